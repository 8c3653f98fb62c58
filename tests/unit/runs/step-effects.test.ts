/**
 * Exactly-once internal effects, on plain data (docs/architecture.md "Run path", crash
 * recovery). A step's effect on our store is appended in one appendMany with its
 * `step.finished`, so a restarted worker meets one of two run streams: the step started
 * and nothing else (neither was written: run it again) or started and finished (both
 * were: never run it again). The effect itself is decided in a unit of work against the
 * case stream as read, so a try that lost the race to another command is decided again
 * on the moved case, never applied on top of it.
 */
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createRunCaseEffects } from '../../../adapters/commands/run-case-effects.ts';
import { createUnitOfWork } from '../../../adapters/commands/unit-of-work.ts';
import { defaultPermissionMatrix } from '../../../adapters/identity/permissions.ts';
import type { CaseEvent } from '../../../domain/cases/events.ts';
import type { RunbookDefinition, StepDefinition } from '../../../domain/runbooks/model.ts';
import { nextMove } from '../../../domain/runbooks/run-workflow.ts';
import { decideRun } from '../../../domain/runs/decide.ts';
import type { ActionLogRow, RunEvent } from '../../../domain/runs/events.ts';
import { evolveRun, initialRunState } from '../../../domain/runs/state.ts';
import type { RecordedEvent } from '../../../domain/shared/messages.ts';
import type { Database } from '../../../projections/database.ts';
import { runbookDefinition, stepDefinition } from '../../support/runbook-definitions.ts';

/** No step of this file stages an audit entry (only `ai.triage` does). */
const noAuditHere = {
  write: (): never => {
    throw new Error('no audit entry is staged in this test');
  },
};

const T = '2026-01-01T00:00:00.000Z';
const limits = { maxStepVisits: 3, now: T, riskOf: () => 'write', bounded: () => false };

const step = (id: string, needs: string[], comment: string): StepDefinition => stepDefinition(id, { action: 'case.update', needs, with: { comment } });
const runbook: RunbookDefinition = runbookDefinition([step('c1', [], 'one'), step('c2', ['c1'], 'two')], { id: 'notes', name: 'Notes' });
const log = (stepId: string, attempt: number): ActionLogRow => ({
  run_id: 'r1',
  step_id: stepId,
  action: 'case.update',
  attempt,
  status: 'ok',
  input: null,
  output: null,
  error: null,
  started_at: T,
  finished_at: T,
});

const queued: RunEvent = {
  type: 'run.queued',
  data: { run_id: 'r1', runbook, case_id: 'k1', trigger_type: 'manual', trigger: {}, inputs: {}, dry_run: false, requested_by: null, queued_at: T },
};
const runStarted: RunEvent = { type: 'run.started', data: { run_id: 'r1', at: T } };
const started = (stepId: string, attempt: number): RunEvent => ({ type: 'step.started', data: { run_id: 'r1', step_id: stepId, attempt, at: T } });
const finished = (stepId: string, attempt: number): RunEvent => ({
  type: 'step.finished',
  data: { run_id: 'r1', step_id: stepId, attempt, status: 'ok', output: null, error: null, log: log(stepId, attempt), at: T },
});
const given = (events: RunEvent[]) => events.reduce(evolveRun, initialRunState());

describe('a run stream as a dead worker left it', () => {
  it('given a step started whose end (and so its effect) was never appended, when the workflow decides, then the step runs again as its next attempt', () => {
    const move = nextMove(given([queued, runStarted, started('c1', 1)]), limits);
    expect(move).toMatchObject({ kind: 'execute_step', step: { id: 'c1' }, attempt: 2 });
  });

  it('given a step whose end was appended with its effect, when the workflow decides, then it moves on and never runs that step again', () => {
    const move = nextMove(given([queued, runStarted, started('c1', 1), finished('c1', 1)]), limits);
    expect(move).toMatchObject({ kind: 'execute_step', step: { id: 'c2' }, attempt: 1 });
    expect(() => decideRun({ type: 'start_step', stepId: 'c1', attempt: 2, now: T }, given([queued, runStarted, started('c1', 1), finished('c1', 1)]))).toThrow(
      'already finished',
    );
  });

  it('given a run cancelled while an attempt was in flight, when that attempt ends, then its end (with its effect) is taken, and the end of any other attempt is refused', () => {
    const cancelled = given([
      queued,
      runStarted,
      started('c1', 1),
      { type: 'run.finished', data: { run_id: 'r1', status: 'cancelled', error: 'cancelled', at: T } },
    ]);
    const end = { type: 'finish_step', stepId: 'c1', status: 'ok', output: null, error: null, now: T } as const;
    expect(decideRun({ ...end, attempt: 1, log: log('c1', 1) }, cancelled).map((e) => e.type)).toEqual(['step.finished']);
    expect(() => decideRun({ ...end, attempt: 2, log: log('c1', 2) }, cancelled)).toThrow('run already cancelled');
  });
});

/** A case stream `case-k1` read from plain events; every other stream is empty. */
function caseStream(events: CaseEvent[]) {
  const recorded: RecordedEvent[] = events.map((e, i) => ({
    ...e,
    data: e.data as Record<string, unknown>,
    globalPosition: i + 1,
    streamId: 'case-k1',
    streamVersion: i + 1,
    metadata: {},
    recordedAt: T,
  }));
  const readStream = async (streamId: string) => (streamId === 'case-k1' ? recorded : []);
  return { readStream, readStreamFrom: async (streamId: string, fromVersion: number) => (await readStream(streamId)).slice(fromVersion - 1) };
}
const opened: CaseEvent = {
  type: 'case.opened',
  data: {
    case_id: 'k1',
    key: 'SVC-1',
    number: 1,
    title: 'Case',
    description: null,
    severity: 'high',
    tags: ['seed'],
    status: 'new',
    team: null,
    private: false,
    correlation_key: null,
    opened_at: T,
    opened_by: null,
    opened_by_id: null,
  },
};
/** No comment in these tests mentions anyone, so the effects never read the database. */
const noDatabase = new Proxy(
  {},
  {
    get: () => {
      throw new Error('a unit test has no database');
    },
  },
) as Kysely<Database>;
let nextId = 0;
const effects = createRunCaseEffects({
  db: noDatabase,
  severities: ['low', 'high'],
  statuses: ['new', 'closed'],
  permissions: defaultPermissionMatrix,
  ids: () => `c-${++nextId}`,
  now: () => new Date(T),
  audit: noAuditHere,
  fieldRules: async () => ({ definitions: [], closedStatuses: ['closed'] }),
});

describe('case.update staged with the step', () => {
  it('given an open case, when a step adds a tag and a comment, then both are one write on the case stream at the version read', async () => {
    const unit = createUnitOfWork(caseStream([opened]));
    const output = await effects(unit, 'k1', 'notes').update({ tags_add: ['x'], comment: 'one' });
    expect(output).toEqual({ case_id: 'k1', changed: ['tags', 'comment'] });
    expect(unit.writes().map((w) => ({ streamId: w.streamId, expectedVersion: w.expectedVersion, types: w.events.map((e) => e.type) }))).toEqual([
      { streamId: 'case-k1', expectedVersion: 1, types: ['case.updated', 'case.comment_added'] },
    ]);
    expect(unit.writes()[0]?.events[0]?.data).toMatchObject({ changes: { tags: ['seed', 'x'] } });
  });

  it('given a change already staged in the step, when the step asks for it again, then the second decision sees it and stages nothing', async () => {
    const unit = createUnitOfWork(caseStream([opened]));
    const cases = effects(unit, 'k1', 'notes');
    await cases.update({ title: 'Renamed', status: 'closed' });
    expect(await cases.update({ title: 'Renamed', status: 'closed' })).toEqual({ case_id: 'k1', changed: [] });
    expect(unit.writes()[0]?.events.map((e) => e.type)).toEqual(['case.updated', 'case.status_changed']);
  });

  it('given the case moved after a try read it, when the step is decided again in a fresh unit, then it applies on the moved case at its new version', async () => {
    const first = createUnitOfWork(caseStream([opened]));
    await effects(first, 'k1', 'notes').update({ tags_add: ['x'], comment: 'one' });
    const moved: CaseEvent = { type: 'case.updated', data: { case_id: 'k1', changes: { tags: ['seed', 'concurrent'] }, at: T } };
    // The first try's append failed on its expected version 1: nothing of it was written.
    const retry = createUnitOfWork(caseStream([opened, moved]));
    await effects(retry, 'k1', 'notes').update({ tags_add: ['x'], comment: 'one' });
    const [write] = retry.writes();
    expect(write?.expectedVersion).toBe(2);
    expect(write?.events.map((e) => [e.type, e.type === 'case.updated' ? e.data.changes : e.data.body])).toEqual([
      ['case.updated', { tags: ['seed', 'concurrent', 'x'] }],
      ['case.comment_added', 'one'],
    ]);
  });

  it('given a request outside configuration or a case that does not exist, when the step decides, then it throws and stages nothing', async () => {
    const unit = createUnitOfWork(caseStream([opened]));
    const mark = unit.mark();
    await expect(effects(unit, 'k1', 'notes').update({ comment: 'one', status: 'reopened' })).rejects.toThrow('status must be one of new, closed');
    await expect(effects(unit, 'k2', 'notes').update({ comment: 'one' })).rejects.toThrow('case not found');
    expect(unit.writes()).toEqual([]);
    await effects(unit, 'k1', 'notes').update({ comment: 'kept?' });
    unit.restore(mark);
    expect(unit.writes()).toEqual([]);
  });
});
