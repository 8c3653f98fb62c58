import { describe, expect, it } from 'vitest';
import type { RunbookDefinition, StepDefinition } from '../../../domain/runbooks/model.ts';
import { downstreamOf, gateDeadline, nextMove } from '../../../domain/runbooks/run-workflow.ts';
import type { RunCommand } from '../../../domain/runs/commands.ts';
import { decideRun } from '../../../domain/runs/decide.ts';
import type { RunEvent, StepStatus } from '../../../domain/runs/events.ts';
import { evolveRun, initialRunState, type RunState } from '../../../domain/runs/state.ts';
import { runbookDefinition, stepDefinition } from '../../support/runbook-definitions.ts';

const limits = { maxStepVisits: 3, now: '2026-01-01T00:00:00.000Z', riskOf: () => 'notify', bounded: () => false };

const step = (id: string, over: Partial<StepDefinition> = {}): StepDefinition => stepDefinition(id, { autonomous: false, ...over });

const runbook = (steps: StepDefinition[]): RunbookDefinition => runbookDefinition(steps);

function started(steps: StepDefinition[]): RunState {
  const queued: RunEvent = {
    type: 'run.queued',
    data: {
      run_id: 'r1',
      runbook: runbook(steps),
      case_id: null,
      trigger_type: 'manual',
      trigger: {},
      inputs: {},
      dry_run: false,
      requested_by: null,
      queued_at: 't',
    },
  };
  return [queued, { type: 'run.started', data: { run_id: 'r1', at: 't' } } as RunEvent].reduce(evolveRun, initialRunState());
}

/** Applies what `decideRun` answers to `command`, as the worker does. */
const apply = (state: RunState, command: RunCommand): RunState => decideRun(command, state).reduce(evolveRun, state);

function finish(state: RunState, stepId: string, status: StepStatus, output: unknown = null): RunState {
  const attempt = state.exists ? (state.steps[stepId]?.attempt ?? 0) + 1 : 1;
  const log = { run_id: 'r1', step_id: stepId, action: null, attempt, status, input: null, output, error: null, started_at: 't', finished_at: 't' };
  return apply(state, { type: 'finish_step', stepId, attempt, status, output, error: status === 'error' ? 'boom' : null, log, now: 't' });
}

/** Plays the workflow with `outcome` deciding each executed step, until the run ends; returns executed step ids and the final state. */
function play(steps: StepDefinition[], outcome: (id: string, nth: number) => StepStatus, max = 3) {
  let state = started(steps);
  const executed: string[] = [];
  const events: string[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const move = nextMove(state, { ...limits, maxStepVisits: max });
    if (move.kind === 'idle') break;
    let command: RunCommand;
    if (move.kind === 'execute_step') {
      executed.push(move.step.id);
      state = finish(state, move.step.id, outcome(move.step.id, executed.filter((e) => e === move.step.id).length));
      continue;
    } else if (move.kind === 'skip_step') {
      state = finish(state, move.step.id, 'skipped');
      continue;
    } else if (move.kind === 'goto') command = { type: 'goto', stepId: move.step.id, target: move.target, visit: move.visit, reset: move.reset, now: 't' };
    else if (move.kind === 'loop_cap_exceeded')
      command = { type: 'exceed_loop_cap', stepId: move.step.id, target: move.target, visits: move.visits, cap: move.cap, now: 't' };
    else if (move.kind === 'finish_run') command = { type: 'finish_run', status: move.status, error: move.error, now: 't' };
    else throw new Error(`unexpected move ${move.kind}`);
    events.push(...decideRun(command, state).map((e) => e.type));
    state = apply(state, command);
  }
  return { executed, events, state };
}

describe('needs and on_error', () => {
  it('runs a step once all its needs are ok or skipped', () => {
    const steps = [step('a'), step('b', { on_error: { kind: 'continue' } }), step('c', { needs: ['a'] })];
    const { executed, state } = play(steps, (id) => (id === 'b' ? 'error' : 'ok'));
    expect(executed).toEqual(['a', 'b', 'c']);
    expect(state.exists && state.status).toBe('succeeded');
    expect(state.exists && state.steps.b?.status).toBe('error');
  });

  it('skips a step whose need failed with continue, and fails the run on fail', () => {
    const cont = play([step('a', { on_error: { kind: 'continue' } }), step('b', { needs: ['a'] })], () => 'error');
    expect(cont.executed).toEqual(['a']);
    expect(cont.state.exists && cont.state.steps.b?.status).toBe('skipped');
    const fail = play([step('a'), step('b')], () => 'error');
    expect(fail.executed).toEqual(['a']);
    expect(fail.state.exists && fail.state.status).toBe('failed');
  });
});

describe('goto', () => {
  const steps = [
    step('prepare'),
    step('fetch', { needs: ['prepare'] }),
    step('side'),
    step('check', { needs: ['fetch'], on_error: { kind: 'goto', target: 'fetch' } }),
    step('report', { needs: ['check'] }),
  ];

  it('resets the target and everything downstream of it, not the rest', () => {
    let state = started(steps);
    for (const id of ['prepare', 'fetch', 'side']) state = finish(state, id, 'ok');
    state = finish(state, 'check', 'error');
    const move = nextMove(state, limits);
    expect(move).toMatchObject({ kind: 'goto', target: 'fetch', visit: 1, reset: ['fetch', 'check', 'report'] });
    if (move.kind !== 'goto') return;
    state = apply(state, { type: 'goto', stepId: 'check', target: 'fetch', visit: 1, reset: move.reset, now: 't' });
    if (!state.exists) throw new Error('run vanished');
    expect(state.steps.prepare).toMatchObject({ status: 'ok', pass: 1 });
    expect(state.steps.side).toMatchObject({ status: 'ok', pass: 1 });
    // The reset steps start their second pass (a new message to the outside); attempts keep counting.
    expect(state.steps.fetch).toEqual({ status: 'pending', attempt: 1, pass: 2, output: null, error: null });
    expect(nextMove(state, limits)).toMatchObject({ kind: 'execute_step', step: { id: 'fetch' }, attempt: 2 });
  });

  it('reruns from the target until the step succeeds', () => {
    const { executed, state } = play(steps, (id, nth) => (id === 'check' && nth < 3 ? 'error' : 'ok'));
    expect(executed).toEqual(['prepare', 'fetch', 'side', 'check', 'fetch', 'check', 'fetch', 'check', 'report']);
    expect(state.exists && state.status).toBe('succeeded');
    expect(state.exists && state.visits).toEqual({ fetch: 2 });
  });

  it('fails the run with runbook.loop_cap_exceeded after the cap of re-entries', () => {
    const failing = play(steps, (id) => (id === 'check' ? 'error' : 'ok'), 3);
    expect(failing.executed.filter((id) => id === 'fetch')).toHaveLength(4);
    expect(failing.events.slice(-2)).toEqual(['runbook.loop_cap_exceeded', 'run.finished']);
    expect(failing.state.exists && failing.state.status).toBe('failed');
    expect(failing.state.exists && failing.state.visits).toEqual({ fetch: 3 });
  });

  it('honours a smaller cap', () => {
    const failing = play(steps, (id) => (id === 'check' ? 'error' : 'ok'), 1);
    expect(failing.executed.filter((id) => id === 'check')).toHaveLength(2);
    expect(failing.events).toContain('runbook.loop_cap_exceeded');
  });
});

describe('branches', () => {
  it('skips the edge not taken', () => {
    const steps = [
      step('decide', { kind: 'branch', action: null, when: 'true' }),
      step('yes', { needs: ['decide'], when_branch: 'true' }),
      step('no', { needs: ['decide'], when_branch: 'false' }),
    ];
    let state = started(steps);
    expect(nextMove(state, limits)).toMatchObject({ kind: 'evaluate_branch', step: { id: 'decide' } });
    state = finish(state, 'decide', 'ok', { result: true });
    expect(nextMove(state, limits)).toMatchObject({ kind: 'execute_step', step: { id: 'yes' } });
    state = finish(state, 'yes', 'ok');
    expect(nextMove(state, limits)).toMatchObject({ kind: 'skip_step', step: { id: 'no' } });
  });
});

describe('downstreamOf', () => {
  it('follows needs transitively', () => {
    const steps = [step('a'), step('b', { needs: ['a'] }), step('c', { needs: ['b'] }), step('d')];
    expect([...downstreamOf(steps, 'a')].sort()).toEqual(['a', 'b', 'c']);
    expect([...downstreamOf(steps, 'd')]).toEqual(['d']);
  });
});

describe('gates', () => {
  const at = (iso: string) => ({ ...limits, now: iso });
  const queuedWith = (steps: StepDefinition[], triggerType: 'manual' | 'alert' | 'schedule', dryRun = false): RunState => {
    const queued: RunEvent = {
      type: 'run.queued',
      data: {
        run_id: 'r1',
        runbook: runbook(steps),
        case_id: null,
        trigger_type: triggerType,
        trigger: {},
        inputs: {},
        dry_run: dryRun,
        requested_by: null,
        queued_at: 't',
      },
    };
    return [queued, { type: 'run.started', data: { run_id: 'r1', at: 't' } } as RunEvent].reduce(evolveRun, initialRunState());
  };
  const approvalStep = step('gated', { approval: { roles: ['approver'], timeout_h: 2, message: 'ok?' } });

  it("opens an approval gate with the step's timeout_h, else leaves the install default to the worker", () => {
    expect(nextMove(queuedWith([approvalStep], 'manual'), at('2026-01-01T00:00:00.000Z'))).toMatchObject({
      kind: 'open_gate',
      reason: 'approval',
      roles: ['approver'],
      message: 'ok?',
      timeoutH: 2,
    });
    const noTimeout = step('gated', { approval: { roles: ['admin'], timeout_h: null, message: null } });
    expect(nextMove(queuedWith([noTimeout], 'manual'), at('2026-01-01T00:00:00.000Z'))).toMatchObject({ kind: 'open_gate', timeoutH: null });
    expect(gateDeadline('2026-01-01T00:00:00.000Z', 1.5)).toBe('2026-01-01T01:30:00.000Z');
  });

  it('opens a default-deny risk gate for write and arbitrary actions in automatic runs only, unless autonomous', () => {
    const risky = { ...limits, riskOf: (a: string) => (a === 'http.request' ? 'arbitrary' : a === 'case.update' ? 'write' : 'notify') };
    const call = step('call', { action: 'http.request' });
    expect(nextMove(queuedWith([call], 'alert'), risky)).toMatchObject({ kind: 'open_gate', reason: 'risk', roles: ['approver', 'admin'], timeoutH: null });
    expect(nextMove(queuedWith([step('w', { action: 'case.update' })], 'schedule'), risky)).toMatchObject({ kind: 'open_gate', reason: 'risk' });
    expect(nextMove(queuedWith([call], 'manual'), risky).kind).toBe('execute_step');
    expect(nextMove(queuedWith([{ ...call, autonomous: true }], 'alert'), risky).kind).toBe('execute_step');
    expect(nextMove(queuedWith([step('n')], 'alert'), risky).kind).toBe('execute_step');
    expect(nextMove(queuedWith([call], 'alert', true), risky).kind).toBe('execute_step');
  });

  it('opens an admin-only gate before every live execution of an arbitrary-tier custom action, manual and autonomous included', () => {
    const tier = { ...limits, riskOf: () => 'arbitrary', adminGate: (a: string) => a === 'custom.jump.run' };
    const custom = step('c', { action: 'custom.jump.run', autonomous: true });
    for (const trigger of ['manual', 'alert', 'schedule'] as const) {
      expect(nextMove(queuedWith([custom], trigger), tier)).toMatchObject({ kind: 'open_gate', reason: 'risk', roles: ['admin'] });
    }
    // The step's own approval roles do not replace the admin's.
    const withApproval = { ...custom, approval: { roles: ['approver'], timeout_h: 2, message: null } };
    expect(nextMove(queuedWith([withApproval], 'manual'), tier)).toMatchObject({ kind: 'open_gate', roles: ['admin'], timeoutH: 2 });
    // Dry runs only preview; other arbitrary actions (http.request) keep the default-deny rule.
    expect(nextMove(queuedWith([custom], 'manual', true), tier).kind).toBe('execute_step');
    expect(nextMove(queuedWith([step('h', { action: 'http.request', autonomous: true })], 'manual'), tier).kind).toBe('execute_step');
  });

  it('opens no risk gate in automatic runs for a write action whose risk is bounded (the ban list)', () => {
    const banlist = { ...limits, riskOf: () => 'write', bounded: (a: string) => a === 'banlist.block' };
    expect(nextMove(queuedWith([step('ban', { action: 'banlist.block' })], 'alert'), banlist).kind).toBe('execute_step');
    expect(nextMove(queuedWith([step('w', { action: 'case.update' })], 'alert'), banlist)).toMatchObject({ kind: 'open_gate', reason: 'risk' });
    expect(
      nextMove(queuedWith([step('ban', { action: 'banlist.block', approval: { roles: ['approver'], timeout_h: null, message: null } })], 'alert'), banlist),
    ).toMatchObject({ kind: 'open_gate', reason: 'approval' });
  });

  const opened = () =>
    apply(queuedWith([approvalStep, step('after', { needs: ['gated'] })], 'manual'), {
      type: 'open_gate',
      stepId: 'gated',
      reason: 'approval',
      roles: ['approver'],
      message: null,
      deadline: '2026-01-01T02:00:00.000Z',
      requests: [],
      now: '2026-01-01T00:00:00.000Z',
    });
  const decide = (state: RunState, over: Partial<Extract<RunCommand, { type: 'decide_gate' }>> = {}) =>
    decideRun(
      { type: 'decide_gate', stepId: 'gated', decision: 'approved', by: 'a@x', roles: ['approver'], note: null, now: '2026-01-01T01:00:00.000Z', ...over },
      state,
    );

  it('waits until the deadline, then expires the gate and ends the run expired', () => {
    const state = opened();
    expect(state.exists && state.status).toBe('waiting_approval');
    expect(nextMove(state, at('2026-01-01T01:59:59.000Z')).kind).toBe('idle');
    const move = nextMove(state, at('2026-01-01T02:00:00.000Z'));
    expect(move).toEqual({ kind: 'expire_gate', stepId: 'gated', deadline: '2026-01-01T02:00:00.000Z' });
    const events = decideRun({ type: 'expire_gate', stepId: 'gated', now: '2026-01-01T02:00:01.000Z' }, state);
    expect(events.map((e) => e.type)).toEqual(['runbook.approval_expired', 'run.finished']);
    const expired = events.reduce(evolveRun, state);
    expect(expired.exists && expired.status).toBe('expired');
    expect(() => decide(expired)).toThrow(expect.objectContaining({ code: 'approval_expired', status: 409 }));
  });

  it('approves once, then runs the step without asking again', () => {
    const approved = decide(opened()).reduce(evolveRun, opened());
    expect(approved.exists && approved.status).toBe('running');
    expect(nextMove(approved, limits)).toMatchObject({ kind: 'execute_step', step: { id: 'gated' } });
    expect(() => decide(approved)).toThrow(expect.objectContaining({ code: 'gate_not_open' }));
  });

  it('refuses a decision after the deadline, on another step, or without an accepted role; deny ends the run', () => {
    expect(() => decide(opened(), { now: '2026-01-01T02:00:00.000Z' })).toThrow(expect.objectContaining({ code: 'approval_expired' }));
    expect(() => decide(opened(), { stepId: 'after' })).toThrow(expect.objectContaining({ code: 'gate_not_open' }));
    expect(() => decide(opened(), { roles: ['analyst', 'admin'] })).toThrow(expect.objectContaining({ code: 'approval_role_required', status: 403 }));
    const denied = decide(opened(), { decision: 'denied', note: 'no' });
    expect(denied.map((e) => e.type)).toEqual(['gate.decided', 'run.finished']);
    expect(denied.reduce(evolveRun, opened())).toMatchObject({ status: 'denied' });
  });

  it('cancels an unfinished run once', () => {
    const cancelled = apply(opened(), { type: 'cancel', by: 'a@x', now: 't' });
    expect(cancelled.exists && cancelled.status).toBe('cancelled');
    expect(nextMove(cancelled, limits).kind).toBe('idle');
    expect(() => decideRun({ type: 'cancel', by: 'a@x', now: 't' }, cancelled)).toThrow(expect.objectContaining({ code: 'run_finished' }));
  });
});

describe('a run cancelled while an action is in flight', () => {
  const log = (attempt: number) => ({
    run_id: 'r1',
    step_id: 'a',
    action: 'notify.webhook',
    attempt,
    status: 'ok' as const,
    input: null,
    output: null,
    error: null,
    started_at: 't',
    finished_at: 't',
  });
  const inFlight = apply(apply(started([step('a'), step('b', { needs: ['a'] })]), { type: 'start_step', stepId: 'a', attempt: 1, now: 't' }), {
    type: 'cancel',
    by: 'ana',
    now: 't',
  });

  it('still records the outcome of the attempt that was running', () => {
    const events = decideRun({ type: 'finish_step', stepId: 'a', attempt: 1, status: 'ok', output: null, error: null, log: log(1), now: 't' }, inFlight);
    expect(events.map((e) => e.type)).toEqual(['step.finished']);
    const after = events.reduce(evolveRun, inFlight);
    expect(after.exists && after.status).toBe('cancelled');
  });

  it('takes nothing else: another attempt, a new step or a second finish', () => {
    const code = (command: RunCommand, state = inFlight) => {
      try {
        decideRun(command, state);
        return null;
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    expect(code({ type: 'finish_step', stepId: 'a', attempt: 2, status: 'ok', output: null, error: null, log: log(2), now: 't' })).toBe('run_finished');
    expect(code({ type: 'start_step', stepId: 'b', attempt: 1, now: 't' })).toBe('run_finished');
    const recorded = apply(inFlight, { type: 'finish_step', stepId: 'a', attempt: 1, status: 'ok', output: null, error: null, log: log(1), now: 't' });
    expect(code({ type: 'finish_step', stepId: 'a', attempt: 1, status: 'ok', output: null, error: null, log: log(1), now: 't' }, recorded)).toBe(
      'run_finished',
    );
  });
});
