/**
 * Run decisions: guards that keep the stream consistent whatever the worker does
 * (a finished run takes no more steps; a finished step is never started again).
 * Errors: `run_not_found` (404), `run_finished` and `step_already_finished` (409).
 */
import { conflict, notFound } from '../shared/errors.ts';
import { assertNever } from '../shared/messages.ts';
import type { ActionLogRow, RunEvent, RunOutcome, StepStatus } from './events.ts';
import type { RunState } from './state.ts';

export type RunCommand =
  | { type: 'start_run'; now: string }
  | { type: 'start_step'; stepId: string; attempt: number; now: string }
  | { type: 'finish_step'; stepId: string; attempt: number; status: StepStatus; output: unknown; error: string | null; log: ActionLogRow; now: string }
  | { type: 'finish_run'; status: RunOutcome; error: string | null; now: string };

export function decideRun(command: RunCommand, state: RunState): RunEvent[] {
  if (!state.exists) throw notFound('run_not_found', 'run not found');
  if (state.status === 'succeeded' || state.status === 'failed') {
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
    case 'finish_run':
      return [{ type: 'run.finished', data: { run_id: state.id, status: command.status, error: command.error, at: command.now } }];
    default:
      return assertNever(command);
  }
}

function assertStepOpen(state: Extract<RunState, { exists: true }>, stepId: string): void {
  const step = state.steps[stepId];
  if (!step) throw notFound('step_not_found', `step ${stepId} is not part of this run`, { step_id: stepId });
  if (step.status !== 'pending' && step.status !== 'running') {
    throw conflict('step_already_finished', `step ${stepId} already finished`, { step_id: stepId });
  }
}
