/**
 * Every rule of the Run decider, given-when-then on plain data (docs/architecture.md "Habits" 4): given the
 * events a run stream holds, when a command is decided, then these events or this error.
 */
import { describe, expect, it } from 'vitest';
import type { RunbookDefinition, StepDefinition } from '../../../domain/runbooks/model.ts';
import { runDecider, type ActionLogRow, type RunCommand, type RunEvent, type RunState } from '../../../domain/runs/index.ts';
import { given } from '../../support/decider.ts';
import { runbookDefinition, stepDefinition } from '../../support/runbook-definitions.ts';

const T = '2026-01-01T00:00:00.000Z';
const DEADLINE = '2026-01-01T02:00:00.000Z';

const step = (id: string): StepDefinition => stepDefinition(id);
const runbook: RunbookDefinition = runbookDefinition([step('a'), step('b')], {
  id: 'phish-triage',
  name: 'Phish triage',
  inputs: [
    { name: 'mailbox', type: 'string', required: true, description: '' },
    { name: 'ticket', type: 'string', required: true, description: '' },
    { name: 'note', type: 'string', required: false, description: '' },
  ],
});

const queue = (over: Partial<Extract<RunCommand, { type: 'queue_run' }>> = {}): RunCommand => ({
  type: 'queue_run',
  runbook,
  runId: 'r1',
  caseId: 'k1',
  triggerType: 'manual',
  trigger: { case_id: 'k1' },
  inputs: { mailbox: 'a@x', ticket: 'T-1' },
  dryRun: false,
  requestedBy: 'a@x',
  now: T,
  ...over,
});

const log = (stepId: string, attempt: number, status: ActionLogRow['status'] = 'ok'): ActionLogRow => ({
  run_id: 'r1',
  step_id: stepId,
  action: 'notify.webhook',
  attempt,
  status,
  input: null,
  output: null,
  error: null,
  started_at: T,
  finished_at: T,
});
const queued: RunEvent = {
  type: 'run.queued',
  data: {
    run_id: 'r1',
    runbook,
    case_id: 'k1',
    trigger_type: 'manual',
    trigger: { case_id: 'k1' },
    inputs: { mailbox: 'a@x', ticket: 'T-1' },
    dry_run: false,
    requested_by: 'a@x',
    queued_at: T,
  },
};
const started: RunEvent = { type: 'run.started', data: { run_id: 'r1', at: T } };
const stepStarted = (stepId: string, attempt: number): RunEvent => ({ type: 'step.started', data: { run_id: 'r1', step_id: stepId, attempt, at: T } });
const stepFinished = (stepId: string, attempt: number): RunEvent => ({
  type: 'step.finished',
  data: { run_id: 'r1', step_id: stepId, attempt, status: 'ok', output: null, error: null, log: log(stepId, attempt), at: T },
});
const gateOpened: RunEvent = {
  type: 'gate.opened',
  data: { run_id: 'r1', step_id: 'b', reason: 'approval', roles: ['approver'], message: null, deadline: DEADLINE, at: T },
};
const finished = (status: 'cancelled' | 'succeeded'): RunEvent => ({ type: 'run.finished', data: { run_id: 'r1', status, error: null, at: T } });

const running = [queued, started];
const waiting = [queued, started, stepStarted('a', 1), stepFinished('a', 1), gateOpened];
const decideGate = (over: Partial<Extract<RunCommand, { type: 'decide_gate' }>> = {}): RunCommand => ({
  type: 'decide_gate',
  stepId: 'b',
  decision: 'approved',
  by: 'a@x',
  roles: ['approver'],
  note: 'ok',
  now: '2026-01-01T01:00:00.000Z',
  ...over,
});

describe('queue_run', () => {
  it('queues a run of an enabled runbook with its snapshot, trigger and inputs', () => {
    given(runDecider, []).when(queue()).then([queued]);
  });

  it('refuses a disabled runbook', () => {
    const error = given(runDecider, [])
      .when(queue({ runbook: { ...runbook, enabled: false } }))
      .thenThrows('runbook_disabled', 422);
    expect(error.params).toEqual({ slug: 'phish-triage' });
  });

  it('refuses a manual run missing required inputs, naming them', () => {
    const error = given(runDecider, [])
      .when(queue({ inputs: { note: 'x' } }))
      .thenThrows('runbook_input_missing', 422);
    expect(error.params).toEqual({ missing: ['mailbox', 'ticket'] });
    expect(error.detail).toBe('missing required inputs: mailbox, ticket');
  });

  it('queues an alert or a schedule run without inputs: required inputs are manual-run parameters', () => {
    given(runDecider, [])
      .when(queue({ triggerType: 'alert', inputs: {} }))
      .thenMatch([{ type: 'run.queued', data: { trigger_type: 'alert', inputs: {} } }]);
    given(runDecider, [])
      .when(queue({ triggerType: 'schedule', caseId: null, inputs: {} }))
      .thenMatch([{ type: 'run.queued', data: { trigger_type: 'schedule', case_id: null } }]);
  });

  it('queues nothing on a run that exists, whatever its state (a schedule tick fired twice)', () => {
    given(runDecider, [queued]).when(queue()).then([]);
    given(runDecider, [queued, started, finished('cancelled')])
      .when(queue({ runbook: { ...runbook, enabled: false } }))
      .then([]);
  });
});

describe('a run that does not exist or has finished', () => {
  it('refuses every other command on a run that does not exist', () => {
    given(runDecider, []).when({ type: 'start_run', now: T }).thenThrows('run_not_found', 404);
    given(runDecider, []).when({ type: 'cancel', by: 'a@x', now: T }).thenThrows('run_not_found', 404);
  });

  it('refuses a finished run any further move', () => {
    given(runDecider, [...running, finished('succeeded')])
      .when({ type: 'start_step', stepId: 'a', attempt: 1, now: T })
      .thenThrows('run_finished', 409);
    given(runDecider, [...running, finished('cancelled')])
      .when({ type: 'cancel', by: 'a@x', now: T })
      .thenThrows('run_finished', 409);
  });

  it('accepts the end of the attempt in flight when the run was cancelled, and no other', () => {
    const cancelled = [...running, stepStarted('a', 1), finished('cancelled')];
    const end = { type: 'finish_step', stepId: 'a', status: 'ok', output: null, error: null, now: T } as const;
    given(runDecider, cancelled)
      .when({ ...end, attempt: 1, log: log('a', 1) })
      .then([stepFinished('a', 1)]);
    given(runDecider, cancelled)
      .when({ ...end, attempt: 2, log: log('a', 2) })
      .thenThrows('run_finished', 409);
    given(runDecider, cancelled)
      .when({ ...end, stepId: 'b', attempt: 1, log: log('b', 1) })
      .thenThrows('run_finished', 409);
  });
});

describe('start_run', () => {
  it('starts a queued run, and only a queued one', () => {
    given(runDecider, [queued]).when({ type: 'start_run', now: T }).then([started]);
    given(runDecider, running).when({ type: 'start_run', now: T }).then([]);
  });
});

describe('steps', () => {
  it('starts and finishes an open step', () => {
    given(runDecider, running)
      .when({ type: 'start_step', stepId: 'a', attempt: 1, now: T })
      .then([stepStarted('a', 1)]);
    given(runDecider, [...running, stepStarted('a', 1)])
      .when({ type: 'finish_step', stepId: 'a', attempt: 1, status: 'ok', output: null, error: null, log: log('a', 1), now: T })
      .then([stepFinished('a', 1)]);
  });

  it('refuses a step that is not part of the run', () => {
    const error = given(runDecider, running).when({ type: 'start_step', stepId: 'zz', attempt: 1, now: T }).thenThrows('step_not_found', 404);
    expect(error.params).toEqual({ step_id: 'zz' });
  });

  it('never starts, finishes or gates a finished step again', () => {
    const done = [...running, stepStarted('a', 1), stepFinished('a', 1)];
    given(runDecider, done).when({ type: 'start_step', stepId: 'a', attempt: 2, now: T }).thenThrows('step_already_finished', 409);
    given(runDecider, done)
      .when({ type: 'finish_step', stepId: 'a', attempt: 1, status: 'ok', output: null, error: null, log: log('a', 1), now: T })
      .thenThrows('step_already_finished', 409);
    given(runDecider, done)
      .when({ type: 'open_gate', stepId: 'a', reason: 'risk', roles: ['approver'], message: null, deadline: DEADLINE, requests: [], now: T })
      .thenThrows('step_already_finished', 409);
  });

  it('records a goto with the steps it resets', () => {
    given(runDecider, running)
      .when({ type: 'goto', stepId: 'b', target: 'a', visit: 1, reset: ['a', 'b'], now: T })
      .then([{ type: 'step.goto', data: { run_id: 'r1', step_id: 'b', target: 'a', visit: 1, reset: ['a', 'b'], at: T } }]);
  });

  it('fails the run when a goto exceeds the visit cap, with the log row saying why', () => {
    const error = 'runbook.loop_cap_exceeded: goto a from step b exceeds the visit cap of 3';
    const { state } = given(runDecider, running)
      .when({ type: 'exceed_loop_cap', stepId: 'b', target: 'a', visits: 4, cap: 3, now: T })
      .then([
        {
          type: 'runbook.loop_cap_exceeded',
          data: {
            run_id: 'r1',
            step_id: 'b',
            target: 'a',
            visits: 4,
            cap: 3,
            at: T,
            log: {
              run_id: 'r1',
              step_id: 'b',
              action: null,
              attempt: 0,
              status: 'error',
              input: { target: 'a', visits: 4, cap: 3 },
              output: null,
              error,
              started_at: T,
              finished_at: T,
            },
          },
        },
        { type: 'run.finished', data: { run_id: 'r1', status: 'failed', error, at: T } },
      ]);
    expect(state).toMatchObject({ status: 'failed' });
  });
});

describe('step passes (the delivery id of a step execution, runtime/worker/step-executor.ts)', () => {
  const goto = (visit: number, reset: string[], target = 'a'): RunEvent => ({
    type: 'step.goto',
    data: { run_id: 'r1', step_id: 'b', target, visit, reset, at: T },
  });
  const stepOf = (state: RunState, id: string) => (state.exists ? state.steps[id] : undefined);

  it('starts every step in pass 1, and a crash re-execution (the next attempt, unfinished before) stays in it', () => {
    const { state } = given(runDecider, [...running, stepStarted('a', 1)])
      .when({ type: 'start_step', stepId: 'a', attempt: 2, now: T })
      .then([stepStarted('a', 2)]);
    expect(stepOf(state, 'a')).toMatchObject({ status: 'running', attempt: 2, pass: 1 });
    expect(stepOf(state, 'b')).toMatchObject({ status: 'pending', attempt: 0, pass: 1 });
  });

  it('moves each step a goto resets to its next pass, keeping its attempts, and leaves the others in theirs', () => {
    const once = [...running, stepStarted('a', 1), stepFinished('a', 1), stepStarted('b', 1), stepFinished('b', 1)];
    const { state } = given(runDecider, once)
      .when({ type: 'goto', stepId: 'b', target: 'b', visit: 1, reset: ['b'], now: T })
      .then([goto(1, ['b'], 'b')]);
    expect(stepOf(state, 'a')).toMatchObject({ status: 'ok', attempt: 1, pass: 1 });
    expect(stepOf(state, 'b')).toMatchObject({ status: 'pending', attempt: 1, pass: 2 });
  });

  it('counts every goto pass from the stored events, through starts and ends (existing runs fold the same)', () => {
    const { state } = given(runDecider, [
      ...running,
      stepStarted('a', 1),
      stepFinished('a', 1),
      goto(1, ['a', 'b']),
      stepStarted('a', 2),
      stepFinished('a', 2),
      goto(2, ['a', 'b']),
      stepStarted('a', 3),
    ])
      .when({ type: 'start_step', stepId: 'a', attempt: 4, now: T })
      .then([stepStarted('a', 4)]);
    expect(stepOf(state, 'a')).toMatchObject({ status: 'running', attempt: 4, pass: 3 });
    expect(stepOf(state, 'b')).toMatchObject({ status: 'pending', attempt: 0, pass: 3 });
  });
});

describe('approval gates', () => {
  it('opens a gate on an open step and waits for approval', () => {
    const { state } = given(runDecider, [...running, stepStarted('a', 1), stepFinished('a', 1)])
      .when({ type: 'open_gate', stepId: 'b', reason: 'approval', roles: ['approver'], message: null, deadline: DEADLINE, requests: [], now: T })
      .then([gateOpened]);
    expect(state).toMatchObject({ status: 'waiting_approval', gate: { stepId: 'b', deadline: DEADLINE } });
  });

  it('refuses a decision when no gate is open on that step', () => {
    given(runDecider, running).when(decideGate()).thenThrows('gate_not_open', 409);
    given(runDecider, waiting)
      .when(decideGate({ stepId: 'a' }))
      .thenThrows('gate_not_open', 409);
  });

  it('refuses a decision at or after the deadline', () => {
    const error = given(runDecider, waiting)
      .when(decideGate({ now: DEADLINE }))
      .thenThrows('approval_expired', 409);
    expect(error.params).toEqual({ run_id: 'r1', deadline: DEADLINE });
  });

  it('refuses a decision once the gate expired, also after the deadline was recorded', () => {
    const { events } = given(runDecider, waiting)
      .when({ type: 'expire_gate', stepId: 'b', now: '2026-01-01T02:00:01.000Z' })
      .thenMatch([{ type: 'runbook.approval_expired' }, { type: 'run.finished', data: { status: 'expired' } }]);
    // Decided before the deadline, yet refused: the run is `expired`.
    given(runDecider, [...waiting, ...events])
      .when(decideGate())
      .thenThrows('approval_expired', 409);
  });

  it('refuses a caller none of whose roles the gate accepts, with 403', () => {
    const error = given(runDecider, waiting)
      .when(decideGate({ roles: ['analyst'] }))
      .thenThrows('approval_role_required', 403);
    expect(error.params).toEqual({ roles: ['approver'] });
  });

  it('approves: the gate closes and the run goes on', () => {
    const at = '2026-01-01T01:00:00.000Z';
    const { state } = given(runDecider, waiting)
      .when(decideGate())
      .then([
        {
          type: 'gate.decided',
          data: {
            run_id: 'r1',
            step_id: 'b',
            decision: 'approved',
            by: 'a@x',
            note: 'ok',
            at,
            log: {
              run_id: 'r1',
              step_id: 'b',
              action: null,
              attempt: 0,
              status: 'approved',
              input: { by: 'a@x', note: 'ok', reason: 'approval' },
              output: null,
              error: null,
              started_at: at,
              finished_at: at,
            },
          },
        },
      ]);
    expect(state).toMatchObject({ status: 'running', gate: null, approvals: { b: { requests: [], byAdmin: false } } });
  });

  it('denies: the run ends denied', () => {
    const at = '2026-01-01T01:00:00.000Z';
    const { state } = given(runDecider, waiting)
      .when(decideGate({ decision: 'denied' }))
      .thenMatch([
        { type: 'gate.decided', data: { decision: 'denied', log: { status: 'denied' } } },
        { type: 'run.finished', data: { run_id: 'r1', status: 'denied', error: 'step b denied by a@x', at } },
      ]);
    expect(state).toMatchObject({ status: 'denied' });
  });

  it('expires the open gate: the run ends expired, with a log row', () => {
    const at = '2026-01-01T02:00:01.000Z';
    const error = `runbook.approval_expired: approval of step b expired at ${DEADLINE}`;
    const { state } = given(runDecider, waiting)
      .when({ type: 'expire_gate', stepId: 'b', now: at })
      .then([
        {
          type: 'runbook.approval_expired',
          data: {
            run_id: 'r1',
            step_id: 'b',
            deadline: DEADLINE,
            at,
            log: {
              run_id: 'r1',
              step_id: 'b',
              action: null,
              attempt: 0,
              status: 'expired',
              input: { deadline: DEADLINE },
              output: null,
              error,
              started_at: at,
              finished_at: at,
            },
          },
        },
        { type: 'run.finished', data: { run_id: 'r1', status: 'expired', error, at } },
      ]);
    expect(state).toMatchObject({ status: 'expired', gate: null });
  });

  it('expires nothing when that gate is no longer open (decided meanwhile, or another step)', () => {
    given(runDecider, running).when({ type: 'expire_gate', stepId: 'b', now: T }).then([]);
    given(runDecider, waiting).when({ type: 'expire_gate', stepId: 'a', now: T }).then([]);
  });
});

describe('cancel and finish', () => {
  it('cancels a run in flight, naming who did', () => {
    given(runDecider, waiting)
      .when({ type: 'cancel', by: 'a@x', now: T })
      .then([{ type: 'run.finished', data: { run_id: 'r1', status: 'cancelled', error: 'cancelled by a@x', at: T } }]);
    given(runDecider, [queued])
      .when({ type: 'cancel', by: null, now: T })
      .then([{ type: 'run.finished', data: { run_id: 'r1', status: 'cancelled', error: 'cancelled by the system', at: T } }]);
  });

  it('finishes a run with the outcome the workflow reached', () => {
    given(runDecider, running)
      .when({ type: 'finish_run', status: 'succeeded', error: null, now: T })
      .then([finished('succeeded')]);
  });
});
