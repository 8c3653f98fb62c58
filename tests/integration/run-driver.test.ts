/**
 * The run driver (runtime/worker/run-driver.ts) on every engine, against the real event
 * store: how many appends a run takes, that a step's start is durable before its action
 * runs when it shares an append with the previous step's finish, that a crash between
 * an action and its finish reruns the step as attempt 2, and that a driver that kept
 * its state in memory renders templates exactly as one that rebuilt it from the store.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionDefinition } from '../../adapters/actions/action.ts';
import { createActionRegistry } from '../../adapters/actions/registry.ts';
import type { OpenedDatabase } from '../../adapters/db/connect.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { createTemplateEngine } from '../../adapters/templates/liquid.ts';
import type { StepDefinition } from '../../domain/runbooks/model.ts';
import type { RunQueued } from '../../domain/runs/events.ts';
import { streams } from '../../domain/shared/streams.ts';
import { driveRun, type RunDriverDeps } from '../../runtime/worker/run-driver.ts';
import { engines } from '../support/engines.ts';

const step = (id: string, needs: string[], text: string): StepDefinition => ({
  id,
  kind: 'action',
  action: 'test.record',
  when: null,
  needs,
  when_branch: null,
  with: { text },
  timeout_s: 10,
  retries: 0,
  on_error: { kind: 'fail' },
  approval: null,
  autonomous: false,
  for_each: null,
  ui: null,
});

/** Three steps; s2 and s3 render the previous step's whole output, key order included. */
const steps = [step('s1', [], 'first'), step('s2', ['s1'], '{{ steps.s1.output | json }}'), step('s3', ['s2'], '{{ steps.s2.output | json }}')];

/** Keys in an order jsonb does not keep, a Date, an undefined member and a non-ASCII key. */
const outputOf = (text: string) => ({ zeta: text, a: { yy: 1, b: [{ long_key: 2, k: 3 }] }, 'é': 4, at: new Date(0), gone: undefined, '10': 5 });

type Call = { step: string; attempt: number; text: string; streamTypes: string[] };

describe.each(engines)('run driver on $name', (engine) => {
  let opened: OpenedDatabase;
  let store: PostgresEventStore;
  let calls: Call[];
  let appends = 0;
  /** Throws from the driver's clock once, right after an action returned: a crash before its finish is written. */
  let crashAfterAction: string | null;
  let crashNow = false;

  const recordAction: ActionDefinition<{ text: string }> = {
    name: 'test.record',
    connectionKind: 'none',
    risk: 'read',
    input: v.object({ text: v.string() }),
    output: v.unknown(),
    execute: async (input, ctx) => {
      const history = await store.readStream(streams.run(ctx.runId));
      calls.push({ step: ctx.stepId, attempt: ctx.attempt, text: input.text, streamTypes: history.map((e) => e.type) });
      if (crashAfterAction === ctx.stepId) {
        crashAfterAction = null;
        crashNow = true;
      }
      return outputOf(input.text);
    },
    preview: async () => ({}),
  };

  const deps = (): RunDriverDeps => ({
    store,
    templates: createTemplateEngine(),
    actions: createActionRegistry([recordAction]),
    resolveConnection: async () => null,
    now: () => {
      if (crashNow) {
        crashNow = false;
        throw new Error('injected crash');
      }
      return new Date();
    },
    sleep: async () => undefined,
    backoffBaseMs: 1,
    caseContext: async () => null,
    caseCommands: () => ({ update: async () => ({}), linkPage: async () => undefined, linkTicket: async () => undefined }),
    stillOwned: () => true,
    maxStepVisits: 3,
    defaultApprovalTimeoutH: 24,
  });

  const queueRun = async (): Promise<string> => {
    const runId = randomUUID();
    const queued: RunQueued = {
      type: 'run.queued',
      data: {
        run_id: runId,
        runbook: { id: 'driver-test', name: 'Driver test', description: '', version: 1, enabled: true, trigger: { type: 'manual' }, inputs: [], steps },
        case_id: null,
        trigger_type: 'manual',
        trigger: {},
        inputs: {},
        dry_run: false,
        requested_by: null,
        queued_at: new Date().toISOString(),
      },
    };
    await store.append(streams.run(runId), [queued], 0);
    return runId;
  };

  beforeAll(async () => {
    opened = await engine.open();
    const inner = new PostgresEventStore(opened.db);
    store = inner;
    const append = inner.append.bind(inner);
    inner.append = (...args) => {
      appends += 1;
      return append(...args);
    };
  });
  afterAll(async () => {
    await store?.settle();
    await opened?.close();
  });

  it('writes a three-step run in four appends, each start durable before its action runs', async () => {
    calls = [];
    crashAfterAction = null;
    const runId = await queueRun();
    appends = 0;
    await expect(driveRun(deps(), runId)).resolves.toBe(true);
    expect(appends).toBe(4);
    expect(calls.map((c) => [c.step, c.attempt, c.streamTypes.slice(1)])).toEqual([
      ['s1', 1, ['run.started', 'step.started']],
      ['s2', 1, ['run.started', 'step.started', 'step.finished', 'step.started']],
      ['s3', 1, ['run.started', 'step.started', 'step.finished', 'step.started', 'step.finished', 'step.started']],
    ]);
    const types = (await store.readStream(streams.run(runId))).map((e) => e.type);
    expect(types).toEqual(['run.queued', 'run.started', 'step.started', 'step.finished', 'step.started', 'step.finished', 'step.started', 'step.finished', 'run.finished']);
  });

  it('leaves a step running when the driver dies after its action, and a new driver runs it as attempt 2 with the same rendered input', async () => {
    calls = [];
    crashAfterAction = null;
    const reference = await queueRun();
    await driveRun(deps(), reference);
    const referenceTexts = calls.map((c) => c.text);

    calls = [];
    crashAfterAction = 's2';
    const runId = await queueRun();
    await expect(driveRun(deps(), runId)).rejects.toThrow('injected crash');
    const afterCrash = await store.readStream(streams.run(runId));
    expect(afterCrash.map((e) => [e.type, (e.data as { step_id?: string }).step_id ?? null, (e.data as { attempt?: number }).attempt ?? null])).toEqual([
      ['run.queued', null, null],
      ['run.started', null, null],
      ['step.started', 's1', 1],
      ['step.finished', 's1', 1],
      ['step.started', 's2', 1],
    ]);

    await expect(driveRun(deps(), runId)).resolves.toBe(true);
    expect(calls.map((c) => [c.step, c.attempt])).toEqual([
      ['s1', 1],
      ['s2', 1],
      ['s2', 2],
      ['s3', 1],
    ]);
    // s2's attempt 1 rendered s1's output from the driver's memory, attempt 2 from the
    // store; s3 renders s2's output from memory in the reference run, from the store here.
    const [s1, s2First, s2Second, s3] = calls.map((c) => c.text);
    expect(s2First).toBe(s2Second);
    expect([s1, s2Second, s3]).toEqual(referenceTexts);
    expect(JSON.parse(s2Second as string)).toEqual({ 10: 5, a: { b: [{ k: 3, long_key: 2 }], yy: 1 }, at: '1970-01-01T00:00:00.000Z', 'é': 4, zeta: 'first' });
    const finished = (await store.readStream(streams.run(runId))).filter((e) => e.type === 'step.finished').map((e) => [(e.data as { step_id: string }).step_id, (e.data as { attempt: number }).attempt]);
    expect(finished).toEqual([
      ['s1', 1],
      ['s2', 2],
      ['s3', 1],
    ]);
  });
});
