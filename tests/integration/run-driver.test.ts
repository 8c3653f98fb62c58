/**
 * The run driver (runtime/worker/run-driver.ts) on every engine, against the real event
 * store: how many appends a run takes, that a step's start is durable before its action
 * runs when it shares an append with the previous step's finish, that a crash between
 * an action and its finish reruns the step as attempt 2 with the delivery id it had (per
 * goto pass and per `for_each` item, not per attempt), and that a driver that kept
 * its state in memory renders templates exactly as one that rebuilt it from the store.
 * Internal effects (`case.update`): a driver that dies just before or just after the
 * append of a step's effect with its end leaves a run whose replay writes each comment
 * once, and a case moved by another command between the decision and the append is
 * decided again without applying anything twice.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionFailure, deliveryIdOf, type ActionDefinition } from '../../adapters/actions/action.ts';
import { caseUpdate } from '../../adapters/actions/case-update.ts';
import { createActionRegistry } from '../../adapters/action-registry/registry.ts';
import { createRunCaseEffects } from '../../adapters/commands/run-case-effects.ts';
import type { StreamWrite } from '../../adapters/event-store/port.ts';
import { defaultPermissionMatrix } from '../../adapters/identity/permissions.ts';
import type { OpenedDatabase } from '../../adapters/db/connect.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { createTemplateEngine } from '../../adapters/templates/liquid.ts';
import type { StepDefinition } from '../../domain/runbooks/model.ts';
import type { CaseOpened } from '../../domain/cases/events.ts';
import type { RunQueued } from '../../domain/runs/events.ts';
import { streams } from '../../domain/shared/streams.ts';
import { driveRun, type RunDriverDeps } from '../../runtime/worker/run-driver.ts';
import { engines } from '../support/engines.ts';

/** No step of this file stages an audit entry (only `ai.triage` does). */
const noAuditHere = {
  write: (): never => {
    throw new Error('no audit entry is staged in this test');
  },
};

const step = (id: string, needs: string[], text: string, action = 'test.record', withMap: Record<string, unknown> = { text }): StepDefinition => ({
  id,
  kind: 'action',
  action,
  when: null,
  needs,
  when_branch: null,
  with: withMap,
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
const outputOf = (text: string) => ({ zeta: text, a: { yy: 1, b: [{ long_key: 2, k: 3 }] }, é: 4, at: new Date(0), gone: undefined, '10': 5 });

/** Two case.update steps: a comment, then a comment with a tag added to the case's tags. */
const commentSteps = [step('c1', [], '', 'case.update', { comment: 'one' }), step('c2', ['c1'], '', 'case.update', { comment: 'two', tags_add: ['x'] })];

type Call = { step: string; attempt: number; deliveryId: string; text: string; streamTypes: string[] };

describe.each(engines)('run driver on $name', (engine) => {
  let opened: OpenedDatabase;
  let store: PostgresEventStore;
  let calls: Call[];
  let appends = 0;
  /**
   * Throws from the driver's clock once, right after the action of this step (`<step>`, or
   * `<step>#<attempt>` for one attempt) returned: a crash before its finish is written.
   */
  let crashAfterAction: string | null;
  let crashNow = false;
  /** Throws from the store's next appendMany that writes a case stream, just before or just after it commits. */
  let crashEffectAppend: 'before' | 'after' | null = null;
  /** Another command's write, made inside the `at`-th appendMany that writes a case stream, just before it reaches the store. */
  let raceEffectAppend: { at: number; write: () => Promise<unknown> } | null = null;
  let effectAppends = 0;
  /** The store's own appendMany, around the injections (`store.append` goes through `appendMany`). */
  let unwatchedAppendMany: PostgresEventStore['appendMany'];

  const recordAction: ActionDefinition<{ text: string }> = {
    name: 'test.record',
    connectionKind: 'none',
    risk: 'read',
    input: v.object({ text: v.string() }),
    output: v.unknown(),
    execute: async (input, ctx) => {
      const history = await store.readStream(streams.run(ctx.runId));
      calls.push({ step: ctx.stepId, attempt: ctx.attempt, deliveryId: ctx.deliveryId, text: input.text, streamTypes: history.map((e) => e.type) });
      if (crashAfterAction === ctx.stepId || crashAfterAction === `${ctx.stepId}#${ctx.attempt}`) {
        crashAfterAction = null;
        crashNow = true;
      }
      return outputOf(input.text);
    },
    preview: async () => ({}),
  };

  /** Fails (final) the first time it runs in a run, then succeeds: its step's `on_error: goto` starts a second pass. */
  const failedOnce = new Set<string>();
  const failOnceAction: ActionDefinition<{ text: string }> = {
    ...recordAction,
    name: 'test.fail_once',
    execute: async (input, ctx) => {
      if (!failedOnce.has(ctx.runId)) {
        failedOnce.add(ctx.runId);
        calls.push({ step: ctx.stepId, attempt: ctx.attempt, deliveryId: ctx.deliveryId, text: input.text, streamTypes: [] });
        throw new ActionFailure('vendor_refused', 'not yet', false);
      }
      return recordAction.execute(input, ctx);
    },
  };

  const deps = (): RunDriverDeps => ({
    store,
    templates: createTemplateEngine(),
    actions: createActionRegistry([recordAction, failOnceAction, caseUpdate]),
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
    gateEvaluationTries: 3,
    caseContext: async () => null,
    caseEffects: createRunCaseEffects({
      db: opened.db,
      severities: ['low', 'medium', 'high', 'critical'],
      statuses: ['new', 'in_progress', 'closed'],
      permissions: defaultPermissionMatrix,
      ids: randomUUID,
      now: () => new Date(),
      audit: noAuditHere,
      fieldRules: async () => ({ definitions: [], closedStatuses: ['closed'] }),
    }),
    stillOwned: () => true,
    maxStepVisits: 3,
    approvalDeadlineHours: async () => 24,
  });

  const queueRun = async (runSteps = steps, caseId: string | null = null): Promise<string> => {
    const runId = randomUUID();
    const queued: RunQueued = {
      type: 'run.queued',
      data: {
        run_id: runId,
        runbook: {
          id: 'driver-test',
          name: 'Driver test',
          description: '',
          version: 1,
          enabled: true,
          trigger: { type: 'manual' },
          inputs: [],
          steps: runSteps,
        },
        case_id: caseId,
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

  const openCase = async (): Promise<string> => {
    const caseId = randomUUID();
    const opened: CaseOpened = {
      type: 'case.opened',
      data: {
        case_id: caseId,
        key: 'SVC-1',
        number: 1,
        title: 'Driver case',
        description: null,
        severity: 'high',
        tags: ['seed'],
        status: 'new',
        team: null,
        private: false,
        correlation_key: null,
        opened_at: new Date().toISOString(),
        opened_by: null,
        opened_by_id: null,
      },
    };
    await store.append(streams.case(caseId), [opened], 0);
    return caseId;
  };
  const caseEvents = async (caseId: string) => (await store.readStream(streams.case(caseId))).map((e) => ({ type: e.type, data: e.data }));
  const commentsOf = async (caseId: string) => (await caseEvents(caseId)).filter((e) => e.type === 'case.comment_added').map((e) => e.data.body);
  const stepEnds = async (runId: string) =>
    (await store.readStream(streams.run(runId))).filter((e) => e.type === 'step.finished').map((e) => [e.data.step_id, e.data.attempt, e.data.status]);

  beforeAll(async () => {
    opened = await engine.open();
    const inner = new PostgresEventStore(opened.db);
    store = inner;
    const append = inner.append.bind(inner);
    inner.append = (...args) => {
      appends += 1;
      return append(...args);
    };
    const appendMany = inner.appendMany.bind(inner);
    unwatchedAppendMany = appendMany;
    inner.appendMany = async (writes: StreamWrite[]) => {
      if (!writes.some((w) => w.streamId.startsWith('case-'))) return appendMany(writes);
      effectAppends += 1;
      if (raceEffectAppend?.at === effectAppends) await raceEffectAppend.write();
      const crash = crashEffectAppend;
      crashEffectAppend = null;
      if (crash === 'before') throw new Error('injected crash');
      const result = await appendMany(writes);
      if (crash === 'after') throw new Error('injected crash');
      return result;
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
    expect(types).toEqual([
      'run.queued',
      'run.started',
      'step.started',
      'step.finished',
      'step.started',
      'step.finished',
      'step.started',
      'step.finished',
      'run.finished',
    ]);
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
    // Attempt 2 sends the same message again: the delivery id (webhook-id, Idempotency-Key) of attempt 1, one per step.
    expect(calls.map((c) => c.deliveryId)).toEqual([
      deliveryIdOf(runId, 's1', 1, null),
      deliveryIdOf(runId, 's2', 1, null),
      deliveryIdOf(runId, 's2', 1, null),
      deliveryIdOf(runId, 's3', 1, null),
    ]);
    expect(new Set(calls.map((c) => c.deliveryId)).size).toBe(3);
    expect([s1, s2Second, s3]).toEqual(referenceTexts);
    expect(JSON.parse(s2Second as string)).toEqual({ 10: 5, a: { b: [{ k: 3, long_key: 2 }], yy: 1 }, at: '1970-01-01T00:00:00.000Z', é: 4, zeta: 'first' });
    const finished = (await store.readStream(streams.run(runId)))
      .filter((e) => e.type === 'step.finished')
      .map((e) => [(e.data as { step_id: string }).step_id, (e.data as { attempt: number }).attempt]);
    expect(finished).toEqual([
      ['s1', 1],
      ['s2', 2],
      ['s3', 1],
    ]);
  });

  it('gives each goto pass its own delivery id, which a crash re-execution within the pass keeps, and each for_each item its own', async () => {
    calls = [];
    crashAfterAction = 's1#2';
    const check: StepDefinition = { ...step('check', ['s1'], 'check', 'test.fail_once'), on_error: { kind: 'goto', target: 's1' } };
    const each: StepDefinition = { ...step('each', ['check'], '{{ item }}'), for_each: '{{ run.id | split: "-" | slice: 0, 3 }}' };
    const runId = await queueRun([step('s1', [], 'first'), check, each]);
    // Pass 1 of s1 and check (check fails: goto s1), then s1's pass 2 crashes after its action.
    await expect(driveRun(deps(), runId)).rejects.toThrow('injected crash');
    await expect(driveRun(deps(), runId)).resolves.toBe(true);
    expect(calls.map((c) => [c.step, c.attempt, c.deliveryId])).toEqual([
      ['s1', 1, deliveryIdOf(runId, 's1', 1, null)],
      ['check', 1, deliveryIdOf(runId, 'check', 1, null)],
      ['s1', 2, deliveryIdOf(runId, 's1', 2, null)],
      // The re-execution after the crash: attempt 3, still pass 2, the same message as attempt 2.
      ['s1', 3, deliveryIdOf(runId, 's1', 2, null)],
      ['check', 2, deliveryIdOf(runId, 'check', 2, null)],
      // `each` is downstream of the goto target: reset too, it first runs in its pass 2; one id per item.
      ['each', 1, deliveryIdOf(runId, 'each', 2, 0)],
      ['each', 1, deliveryIdOf(runId, 'each', 2, 1)],
      ['each', 1, deliveryIdOf(runId, 'each', 2, 2)],
    ]);
    expect(new Set(calls.map((c) => c.deliveryId)).size).toBe(calls.length - 1);
    expect(await stepEnds(runId)).toEqual([
      ['s1', 1, 'ok'],
      ['check', 1, 'error'],
      ['s1', 3, 'ok'],
      ['check', 2, 'ok'],
      ['each', 1, 'ok'],
    ]);
  });

  it.each([
    [
      'before',
      [
        ['c1', 2, 'ok'],
        ['c2', 1, 'ok'],
      ],
    ],
    [
      'after',
      [
        ['c1', 1, 'ok'],
        ['c2', 1, 'ok'],
      ],
    ],
  ] as const)('writes a case.update comment once when the driver dies just %s its effect and end are appended', async (moment, ends) => {
    const caseId = await openCase();
    const runId = await queueRun(commentSteps, caseId);
    crashEffectAppend = moment;
    await expect(driveRun(deps(), runId)).rejects.toThrow('injected crash');
    // As the dead worker left them: c1 started, and its comment and end both written or both not.
    const left = await store.readStream(streams.run(runId));
    expect(left.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'step.started', ...(moment === 'after' ? ['step.finished'] : [])]);
    expect(await commentsOf(caseId)).toEqual(moment === 'after' ? ['one'] : []);

    await expect(driveRun(deps(), runId)).resolves.toBe(true);
    expect(await commentsOf(caseId)).toEqual(['one', 'two']);
    expect(await stepEnds(runId)).toEqual(ends);
  });

  it('decides a case.update again when another command moved the case between its decision and its append, applying each change once', async () => {
    const caseId = await openCase();
    const runId = await queueRun(commentSteps, caseId);
    effectAppends = 0;
    // c1 appends undisturbed; c2's first append finds the case moved and fails whole, its second lands.
    raceEffectAppend = {
      at: 2,
      write: () =>
        unwatchedAppendMany([
          {
            streamId: streams.case(caseId),
            events: [{ type: 'case.updated', data: { case_id: caseId, changes: { tags: ['seed', 'concurrent'] }, at: new Date().toISOString() } }],
            expectedVersion: 'any',
          },
        ]),
    };
    await expect(driveRun(deps(), runId)).resolves.toBe(true);
    raceEffectAppend = null;
    expect(effectAppends).toBe(3);
    expect(await commentsOf(caseId)).toEqual(['one', 'two']);
    const tagUpdates = (await caseEvents(caseId)).filter((e) => e.type === 'case.updated').map((e) => (e.data.changes as { tags: string[] }).tags);
    expect(tagUpdates).toEqual([
      ['seed', 'concurrent'],
      ['seed', 'concurrent', 'x'],
    ]);
    expect(await stepEnds(runId)).toEqual([
      ['c1', 1, 'ok'],
      ['c2', 1, 'ok'],
    ]);
    const c2 = (await store.readStream(streams.run(runId))).find((e) => e.type === 'step.finished' && e.data.step_id === 'c2');
    expect(c2?.data.output).toEqual({ case_id: caseId, changed: ['tags', 'comment'] });
  });
});
