/**
 * Run decisions: guards that keep the stream consistent whatever the worker does
 * (a finished run takes no more steps; a finished step is never started again). The
 * one thing a finished run still takes is the outcome of the attempt that was in
 * flight when it was cancelled: the action ran, so the action log must say how it went.
 * Errors: queueing: `runbook_disabled` and `runbook_input_missing` (422); then
 * `run_not_found` (404), `run_finished` and `step_already_finished` (409);
 * deciding a gate: `approval_expired` (409, the deadline passed, also once the run is
 * `expired`), `gate_not_open` (409, no open gate on that step), `approval_role_required`
 * (403, none of the caller's roles is accepted by the gate).
 */
import { DomainError, conflict, notFound, unprocessable } from '../shared/errors.ts';
import { assertNever } from '../shared/messages.ts';
import type { RunCommand } from './commands.ts';
import type { ActionLogRow, RunEvent } from './events.ts';
import { finishedStatuses, type RunState } from './state.ts';

/** Decides a run command on the run's state (SPEC.md "Runs, steps and gates"). */
export function decideRun(command: RunCommand, state: RunState): RunEvent[] {
  if (command.type === 'queue_run') return queueRun(command, state);
  if (!state.exists) throw notFound('run_not_found', 'run not found');
  if (command.type === 'decide_gate' && state.status === 'expired') {
    throw conflict('approval_expired', 'the approval gate expired; it can no longer be decided', { run_id: state.id });
  }
  if (finishedStatuses.includes(state.status) && !isLateFinish(command, state)) {
    throw conflict('run_finished', `run already ${state.status}`, { run_id: state.id });
  }
  switch (command.type) {
    case 'start_run':
      return state.status === 'queued' ? [{ type: 'run.started', data: { run_id: state.id, at: command.now } }] : [];
    case 'start_step': {
      assertStepOpen(state, command.stepId);
      return [{ type: 'step.started', data: { run_id: state.id, step_id: command.stepId, attempt: command.attempt, at: command.now } }];
    }
    case 'finish_step': {
      assertStepOpen(state, command.stepId);
      const { stepId, attempt, status, output, error, log, now } = command;
      return [{ type: 'step.finished', data: { run_id: state.id, step_id: stepId, attempt, status, output, error, log, at: now } }];
    }
    case 'goto': {
      const { stepId, target, visit, reset, now } = command;
      return [{ type: 'step.goto', data: { run_id: state.id, step_id: stepId, target, visit, reset, at: now } }];
    }
    case 'exceed_loop_cap': {
      const { stepId, target, visits, cap, now } = command;
      // The spec's event name leads the text, so the run detail and its log row say why it failed.
      const error = `runbook.loop_cap_exceeded: goto ${target} from step ${stepId} exceeds the visit cap of ${cap}`;
      const log: ActionLogRow = {
        run_id: state.id,
        step_id: stepId,
        action: null,
        attempt: 0,
        status: 'error',
        input: { target, visits, cap },
        output: null,
        error,
        started_at: now,
        finished_at: now,
      };
      return [
        { type: 'runbook.loop_cap_exceeded', data: { run_id: state.id, step_id: stepId, target, visits, cap, log, at: now } },
        { type: 'run.finished', data: { run_id: state.id, status: 'failed', error, at: now } },
      ];
    }
    case 'open_gate': {
      const { stepId, reason, roles, message, deadline, requests, resume, now } = command;
      assertStepOpen(state, stepId);
      const data = { run_id: state.id, step_id: stepId, reason, roles, message, deadline, at: now };
      const withRequests = requests.length > 0 ? { ...data, requests } : data;
      return [{ type: 'gate.opened', data: resume !== undefined && Object.keys(resume).length > 0 ? { ...withRequests, resume } : withRequests }];
    }
    case 'decide_gate':
      return decideGate(command, state);
    case 'expire_gate': {
      const gate = state.gate;
      if (state.status !== 'waiting_approval' || gate === null || gate.stepId !== command.stepId) return [];
      const error = `runbook.approval_expired: approval of step ${gate.stepId} expired at ${gate.deadline}`;
      const log = gateLog(state.id, gate.stepId, 'expired', { deadline: gate.deadline }, error, command.now);
      return [
        { type: 'runbook.approval_expired', data: { run_id: state.id, step_id: gate.stepId, deadline: gate.deadline, log, at: command.now } },
        { type: 'run.finished', data: { run_id: state.id, status: 'expired', error, at: command.now } },
      ];
    }
    case 'cancel':
      return [{ type: 'run.finished', data: { run_id: state.id, status: 'cancelled', error: `cancelled by ${command.by ?? 'the system'}`, at: command.now } }];
    case 'finish_run':
      return [{ type: 'run.finished', data: { run_id: state.id, status: command.status, error: command.error, at: command.now } }];
    default:
      return assertNever(command);
  }
}

/**
 * Queues a run of an enabled runbook (SPEC.md "Runbooks and runs"). Required inputs are
 * manual-run parameters (SPEC.md "Runbook": `inputs`), so only a manual run is refused
 * for missing ones. A run that exists already was queued by the same trigger (a schedule's
 * fire time has one run id): nothing more happens, so two workers firing one tick queue
 * one run.
 */
function queueRun(command: Extract<RunCommand, { type: 'queue_run' }>, state: RunState): RunEvent[] {
  if (state.exists) return [];
  const { runbook, runId, caseId, triggerType, trigger, inputs, dryRun, requestedBy, now } = command;
  if (!runbook.enabled) throw unprocessable('runbook_disabled', 'runbook is disabled', { slug: runbook.id });
  if (triggerType === 'manual') {
    const missing = runbook.inputs.filter((i) => i.required && inputs[i.name] === undefined).map((i) => i.name);
    if (missing.length > 0) throw unprocessable('runbook_input_missing', `missing required inputs: ${missing.join(', ')}`, { missing });
  }
  return [
    {
      type: 'run.queued',
      data: { run_id: runId, runbook, case_id: caseId, trigger_type: triggerType, trigger, inputs, dry_run: dryRun, requested_by: requestedBy, queued_at: now },
    },
  ];
}

function decideGate(command: Extract<RunCommand, { type: 'decide_gate' }>, state: Extract<RunState, { exists: true }>): RunEvent[] {
  const { stepId, decision, by, roles, note, now } = command;
  const gate = state.gate;
  if (state.status !== 'waiting_approval' || gate === null || gate.stepId !== stepId) {
    throw conflict('gate_not_open', `no approval gate is open on step ${stepId}`, { run_id: state.id, step_id: stepId });
  }
  if (Date.parse(now) >= Date.parse(gate.deadline)) {
    throw conflict('approval_expired', 'the approval gate expired; it can no longer be decided', { run_id: state.id, deadline: gate.deadline });
  }
  if (!gateAccepts(gate.roles, roles)) {
    throw new DomainError('approval_role_required', 403, `one of the roles ${gate.roles.join(', ')} is required to decide this gate`, { roles: gate.roles });
  }
  const log = gateLog(state.id, stepId, decision, { by, note, reason: gate.reason }, null, now);
  const decided: RunEvent = { type: 'gate.decided', data: { run_id: state.id, step_id: stepId, decision, by, note, log, at: now } };
  if (decision === 'approved') return [decided];
  return [decided, { type: 'run.finished', data: { run_id: state.id, status: 'denied', error: `step ${stepId} denied by ${by ?? 'unknown'}`, at: now } }];
}

/**
 * Whether a gate requiring one of `gateRoles` accepts a decider holding `roles`: role names
 * match exactly, so an `admin` does not decide an `approver`-only gate unless it lists
 * `admin` too. The one acceptance rule for deciding a gate and for listing it to approvers
 * (adapters/identity/gate-approval.ts).
 */
export function gateAccepts(gateRoles: readonly string[], roles: readonly string[]): boolean {
  return roles.some((r) => gateRoles.includes(r));
}

/** The action-log row of a gate decision or expiry. */
function gateLog(runId: string, stepId: string, status: 'approved' | 'denied' | 'expired', input: unknown, error: string | null, at: string): ActionLogRow {
  return { run_id: runId, step_id: stepId, action: null, attempt: 0, status, input, output: null, error, started_at: at, finished_at: at };
}

/** Finishing the very attempt that is still running on a run that was cancelled (or otherwise ended) meanwhile. */
function isLateFinish(command: RunCommand, state: Extract<RunState, { exists: true }>): boolean {
  if (command.type !== 'finish_step') return false;
  const step = state.steps[command.stepId];
  return step !== undefined && step.status === 'running' && step.attempt === command.attempt;
}

function assertStepOpen(state: Extract<RunState, { exists: true }>, stepId: string): void {
  const step = state.steps[stepId];
  if (!step) throw notFound('step_not_found', `step ${stepId} is not part of this run`, { step_id: stepId });
  if (step.status !== 'pending' && step.status !== 'running') {
    throw conflict('step_already_finished', `step ${stepId} already finished`, { step_id: stepId });
  }
}
