/**
 * Every gate fails closed (issue 45; docs/architecture.md "Approval gates"), driven by the
 * run driver against the in-memory event store that passes the store contract suite (the
 * gates' behaviour lives in the driver and the actions, not the database), with the real managed
 * containment and `mcp.call` actions and a stand-in vendor action that counts its calls:
 *
 * - a failure injected into a gate's decision (the response policy, the case severity or
 *   the MCP connection read) never lets the step start: one failure is asked again and the
 *   gate opens; a failure on every try ends the step `gate_evaluation_failed`, unstarted;
 * - decided again at execution: an automatic grant withdrawn between admission and
 *   execution sends the step back to a gate; a target protected after its approval is
 *   refused; an approval of one request is not spent on a changed one; an arbitrary-tier
 *   action approved by a gate no admin decided waits for an admin.
 *
 * No case of it calls the vendor before a person approved exactly what it is called with.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { beforeEach, describe, expect, it } from 'vitest';
import { deliveryIdOf, type ActionDefinition, type ResolvedConnection } from '../../adapters/actions/action.ts';
import { createMcpCall } from '../../adapters/mcp/call-action.ts';
import { createActionRegistry, type ActionRegistry } from '../../adapters/action-registry/registry.ts';
import { effectIdOf, responseActions } from '../../adapters/effects/response-actions.ts';
import { createAuditLog } from '../../adapters/commands/audit.ts';
import { createEffectCommands } from '../../adapters/commands/effects.ts';
import { createRunCommands } from '../../adapters/commands/runs.ts';
import { createEffectReverser } from '../../adapters/effects/reversal.ts';
import { createTemplateEngine } from '../../adapters/templates/liquid.ts';
import { defaultResponsePolicy, type ResponsePolicy } from '../../domain/response-policy/policy.ts';
import type { StepDefinition } from '../../domain/runbooks/model.ts';
import type { RunEvent, RunQueued } from '../../domain/runs/events.ts';
import { streams } from '../../domain/shared/streams.ts';
import { driveRun, type RunDriverDeps } from '../../runtime/worker/run-driver.ts';
import { MemoryEventStore } from '../support/memory-event-store.ts';
import { stepDefinition } from '../support/runbook-definitions.ts';
import { standInBinding, standInGrant, standInWaf } from '../support/stand-in-block.ts';

const granted: ResponsePolicy = { ...defaultResponsePolicy(), automatic_grants: [standInGrant], adapters: [standInBinding] };
const ungranted: ResponsePolicy = { ...defaultResponsePolicy(), adapters: [standInBinding] };
const mcp: ResolvedConnection = {
  id: 'c-mcp',
  kind: 'mcp',
  name: 'tools',
  base_url: 'http://127.0.0.1:9/mcp',
  config: { allowed_tools: ['lookup', 'disable_user'], read_only_tools: ['lookup'] },
  secret: null,
  previous_secret: null,
  bot_token: null,
};

const blockStep = (ip = '{{ case.tags[0] }}', over: Partial<StepDefinition> = {}): StepDefinition =>
  stepDefinition('contain', { action: 'response.ip_block', with: { ip, ttl_seconds: 600 }, ...over });

describe('gates fail closed', () => {
  let store: MemoryEventStore;
  /** The vendor calls made, by IP. */
  let vendorCalls: string[];
  /** What each read of the policy answers, in turn (the last one from then on); a thrown Error is a failed read. */
  let policyReads: (ResponsePolicy | Error)[];
  let severityFailures: number;
  let connectionFailures: number;
  /** The case's tags: the step renders its IP from the first. */
  let caseTags: string[];
  let arbitraryTier: boolean;

  const vendorBlock: ActionDefinition<{ ip: string }, { rule_id: string }> = {
    name: 'custom.stand_in.block',
    connectionKind: 'http',
    risk: 'write',
    input: v.strictObject({ ip: v.string() }),
    output: v.object({ rule_id: v.string() }),
    async execute(input) {
      vendorCalls.push(input.ip);
      return { rule_id: `r-${vendorCalls.length}` };
    },
    preview: async () => ({}),
  };
  /** A custom action whose tier an admin can raise to arbitrary while a run waits (`arbitraryTier`). */
  const customAction: ActionDefinition<{ ip: string }, { done: boolean }> = {
    name: 'custom.stand_in.script',
    connectionKind: 'none',
    risk: 'write',
    get adminGate() {
      return arbitraryTier ? (true as const) : undefined;
    },
    input: v.strictObject({ ip: v.string() }),
    output: v.object({ done: v.boolean() }),
    async execute(input) {
      vendorCalls.push(input.ip);
      return { done: true };
    },
    preview: async () => ({}),
  };

  const resolveConnection = async (name: string): Promise<ResolvedConnection | null> => {
    if (connectionFailures > 0) {
      connectionFailures -= 1;
      throw new Error('connection store unreachable');
    }
    return name === 'waf' ? standInWaf : name === 'tools' ? mcp : null;
  };

  const registry = (): ActionRegistry => {
    const now = () => new Date();
    const effects = createEffectCommands({ store });
    const built: ActionRegistry = createActionRegistry([
      vendorBlock,
      customAction,
      createMcpCall({
        outbound: async () => {
          vendorCalls.push('mcp');
          throw new Error('no MCP server in this test: nothing may be called');
        },
        resolveConnection,
      }),
      ...responseActions({
        registry: () => built,
        policy: async () => {
          const next = policyReads.length > 1 ? policyReads.shift() : policyReads[0];
          if (next instanceof Error) throw next;
          return { policy: next ?? ungranted, version: 1 };
        },
        effects,
        reverser: () => createEffectReverser({ effects, audit: createAuditLog({ store, ids: randomUUID, now }), actions: built, resolveConnection, now }),
        resolveConnection,
        caseSeverity: async () => {
          if (severityFailures > 0) {
            severityFailures -= 1;
            throw new Error('read model unreachable');
          }
          return 'high';
        },
        openEffects: async () => [],
        waitFor: async () => {},
        now,
      }),
    ]);
    return built;
  };

  const deps = (): RunDriverDeps => ({
    store,
    templates: createTemplateEngine(),
    actions: registry(),
    resolveConnection,
    now: () => new Date(),
    sleep: async () => undefined,
    backoffBaseMs: 1,
    gateEvaluationTries: 3,
    caseContext: async (caseId) => ({ id: caseId, key: 'SVC-1', severity: 'high', title: 'Case', tags: caseTags }),
    caseEffects: () => {
      const refuse = async (): Promise<never> => {
        throw new Error('no step here changes its case');
      };
      return { update: refuse, linkTicket: refuse, linkPage: refuse, recordAiTriage: refuse };
    },
    stillOwned: () => true,
    maxStepVisits: 3,
    approvalDeadlineHours: async () => 24,
  });

  const queueRun = async (steps: StepDefinition[]): Promise<string> => {
    const runId = randomUUID();
    const queued: RunQueued = {
      type: 'run.queued',
      data: {
        run_id: runId,
        runbook: { id: 'gates', name: 'Gates', description: '', version: 1, enabled: true, trigger: { type: 'manual' }, inputs: [], steps },
        case_id: randomUUID(),
        trigger_type: 'manual',
        trigger: {},
        inputs: {},
        dry_run: false,
        requested_by: 'ana@example.com',
        queued_at: new Date().toISOString(),
      },
    };
    await store.append(streams.run(runId), [queued], 0);
    return runId;
  };
  const history = async (runId: string) => (await store.readStream(streams.run(runId))) as unknown as RunEvent[];
  const types = async (runId: string) => (await history(runId)).map((e) => e.type);
  const lastGate = async (runId: string) => (await history(runId)).filter((e) => e.type === 'gate.opened').at(-1)?.data;
  const stepEnd = async (runId: string) => (await history(runId)).find((e) => e.type === 'step.finished')?.data;
  const approve = (runId: string, roles = ['approver']) =>
    createRunCommands({ store, runbook: () => undefined, ids: randomUUID, now: () => new Date() }).decideGate({
      runId,
      stepId: 'contain',
      decision: 'approved',
      note: null,
      by: 'approver@example.com',
      roles,
    });

  beforeEach(() => {
    store = new MemoryEventStore();
    vendorCalls = [];
    policyReads = [ungranted];
    severityFailures = 0;
    connectionFailures = 0;
    caseTags = ['203.0.113.5'];
    arbitraryTier = false;
  });

  describe('a failure while deciding whether a gate applies', () => {
    it('asks again after a policy read that fails once, and opens the gate: the step never starts', async () => {
      policyReads = [new Error('policy read failed'), ungranted];
      const runId = await queueRun([blockStep()]);
      await driveRun(deps(), runId);
      expect(await types(runId)).toEqual(['run.queued', 'run.started', 'gate.opened']);
      expect(await lastGate(runId)).toMatchObject({ reason: 'response_policy', roles: ['approver', 'admin'] });
      expect(vendorCalls).toEqual([]);
    });

    it('asks again after a case severity read that fails once, and opens the gate', async () => {
      severityFailures = 1;
      const runId = await queueRun([blockStep()]);
      await driveRun(deps(), runId);
      expect(await types(runId)).toEqual(['run.queued', 'run.started', 'gate.opened']);
      expect(vendorCalls).toEqual([]);
    });

    it('ends the step gate_evaluation_failed, unstarted, when the policy cannot be read on any try', async () => {
      policyReads = [new Error('policy read failed')];
      const runId = await queueRun([blockStep()]);
      await expect(driveRun(deps(), runId)).resolves.toBe(true);
      expect(await types(runId)).toEqual(['run.queued', 'run.started', 'step.finished', 'run.finished']);
      expect(await stepEnd(runId)).toMatchObject({ status: 'error', error: expect.stringMatching(/^gate_evaluation_failed: .*3 tries.*policy read failed/) });
      expect((await history(runId)).at(-1)?.data).toMatchObject({ status: 'failed' });
      expect(vendorCalls).toEqual([]);
      expect(await effectsOf(runId)).toEqual([]);
    });

    it('applies nothing when the policy that admitted a block on its grant cannot be read again at execution', async () => {
      policyReads = [granted, new Error('policy read failed')];
      const runId = await queueRun([blockStep()]);
      await driveRun(deps(), runId);
      expect(await stepEnd(runId)).toMatchObject({ status: 'error', error: expect.stringContaining('policy read failed') });
      expect(vendorCalls).toEqual([]);
      expect(await effectsOf(runId)).toEqual([]);
    });

    it('ends an mcp.call step gate_evaluation_failed, unstarted, when its connection cannot be read on any try', async () => {
      connectionFailures = 100;
      const runId = await queueRun([
        stepDefinition('contain', { action: 'mcp.call', with: { connection: 'tools', tool: 'disable_user', arguments: { user: 'eve' } } }),
      ]);
      await driveRun(deps(), runId);
      expect(await types(runId)).toEqual(['run.queued', 'run.started', 'step.finished', 'run.finished']);
      expect(await stepEnd(runId)).toMatchObject({ status: 'error', error: expect.stringMatching(/^gate_evaluation_failed: .*connection store unreachable/) });
      expect(vendorCalls).toEqual([]);
    });

    it('asks the step approval gate the action request too, and fails closed when that cannot be decided', async () => {
      policyReads = [new Error('policy read failed')];
      const runId = await queueRun([blockStep(undefined, { approval: { roles: ['approver'], message: 'Block it?', timeout_h: null } })]);
      await driveRun(deps(), runId);
      expect(await types(runId)).toEqual(['run.queued', 'run.started', 'step.finished', 'run.finished']);
      expect(await stepEnd(runId)).toMatchObject({ status: 'error', error: expect.stringMatching(/^gate_evaluation_failed/) });
      expect(vendorCalls).toEqual([]);
    });
  });

  describe('decided again at execution', () => {
    it('names the block in the step approval gate, so approving the step approves the block and no second gate opens', async () => {
      const runId = await queueRun([blockStep(undefined, { approval: { roles: ['approver'], message: 'Block it?', timeout_h: null } })]);
      await driveRun(deps(), runId);
      const gate = await lastGate(runId);
      expect(gate).toMatchObject({ reason: 'approval', roles: ['approver'], requests: [expect.stringMatching(/^[0-9a-f]{64}$/)] });
      expect(gate?.message).toMatch(/^Block it\?; response\.ip_block of 203\.0\.113\.5 for 600 s/);
      await approve(runId);
      await expect(driveRun(deps(), runId)).resolves.toBe(true);
      expect(vendorCalls).toEqual(['203.0.113.5']);
      expect((await history(runId)).filter((e) => e.type === 'gate.opened')).toHaveLength(1);
    });

    it('sends the step back to a gate when the automatic grant that admitted it is withdrawn before it runs, and applies once approved', async () => {
      // The first read admits the block on the grant; the grant is gone when the step runs.
      policyReads = [granted, ungranted];
      const runId = await queueRun([blockStep()]);
      await driveRun(deps(), runId);
      expect(await types(runId)).toEqual(['run.queued', 'run.started', 'step.started', 'gate.opened']);
      expect(await lastGate(runId)).toMatchObject({ reason: 'response_policy', requests: [expect.stringMatching(/^[0-9a-f]{64}$/)] });
      expect(vendorCalls).toEqual([]);
      expect(await effectsOf(runId)).toEqual([]);

      await approve(runId);
      await expect(driveRun(deps(), runId)).resolves.toBe(true);
      expect(vendorCalls).toEqual(['203.0.113.5']);
      expect(await stepEnd(runId)).toMatchObject({ status: 'ok', attempt: 2, output: { enforced: true, enforcement_performed: true } });
    });

    it('refuses a target protected after its approval, before any vendor call', async () => {
      const runId = await queueRun([blockStep()]);
      await driveRun(deps(), runId);
      expect(await types(runId)).toEqual(['run.queued', 'run.started', 'gate.opened']);
      await approve(runId);
      policyReads = [{ ...ungranted, protected_targets: [{ type: 'ip', value: '203.0.113.0/24' }] }];
      await driveRun(deps(), runId);
      expect(await stepEnd(runId)).toMatchObject({ status: 'error', error: expect.stringMatching(/^target_protected/) });
      expect(vendorCalls).toEqual([]);
    });

    it('does not spend an approval of one request on a changed one: the changed one waits for its own', async () => {
      const runId = await queueRun([blockStep()]);
      await driveRun(deps(), runId);
      const first = await lastGate(runId);
      expect(first?.message).toContain('203.0.113.5');
      await approve(runId);
      // The case changed while the gate was open: the step now renders another target.
      caseTags = ['198.51.100.7'];
      await driveRun(deps(), runId);
      const second = await lastGate(runId);
      expect(second?.message).toContain('198.51.100.7');
      expect(second?.requests).not.toEqual(first?.requests);
      expect(vendorCalls).toEqual([]);

      await approve(runId);
      await expect(driveRun(deps(), runId)).resolves.toBe(true);
      expect(vendorCalls).toEqual(['198.51.100.7']);
    });

    it('keeps an approval good across a crash re-execution of the same request', async () => {
      const runId = await queueRun([blockStep()]);
      await driveRun(deps(), runId);
      await approve(runId);
      // A driver that died right after it started the step: the next one runs it as attempt 2, on the same approval.
      const before = await history(runId);
      const started = { type: 'step.started', data: { run_id: runId, step_id: 'contain', attempt: 1, at: new Date().toISOString() } };
      await store.append(streams.run(runId), [started], before.length);
      await expect(driveRun(deps(), runId)).resolves.toBe(true);
      expect(await stepEnd(runId)).toMatchObject({ status: 'ok', attempt: 2 });
      expect(vendorCalls).toEqual(['203.0.113.5']);
      expect((await history(runId)).filter((e) => e.type === 'gate.opened')).toHaveLength(1);
    });

    it('makes an arbitrary-tier action approved at a gate no admin decided wait for an admin', async () => {
      const runId = await queueRun([
        stepDefinition('contain', {
          action: 'custom.stand_in.script',
          with: { ip: '203.0.113.5' },
          approval: { roles: ['approver'], message: null, timeout_h: null },
        }),
      ]);
      await driveRun(deps(), runId);
      await approve(runId);
      // Saved again as arbitrary-tier while the run waited.
      arbitraryTier = true;
      await driveRun(deps(), runId);
      expect(await lastGate(runId)).toMatchObject({ reason: 'risk', roles: ['admin'] });
      expect(vendorCalls).toEqual([]);
      await approve(runId, ['admin']);
      await expect(driveRun(deps(), runId)).resolves.toBe(true);
      expect(vendorCalls).toEqual(['203.0.113.5']);
    });
  });

  /** The events of the first effect the run's block would request: none for a block gated or refused before its request. */
  async function effectsOf(runId: string): Promise<string[]> {
    const effectId = effectIdOf({ deliveryId: deliveryIdOf(runId, 'contain', 1, null) }, 1);
    return (await store.readStream(streams.effect(effectId))).map((e) => e.type);
  }
});
