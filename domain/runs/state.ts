/**
 * Run state rebuilt from its events: the process manager decides the next move from it.
 */
import type { RunbookDefinition } from '../runbooks/model.ts';
import type { RunEvent, RunOutcome, StepStatus } from './events.ts';

export type StepState = { status: 'pending' | 'running' | StepStatus; attempt: number; output: unknown; error: string | null };

export type RunState =
  | { exists: false }
  | {
      exists: true;
      id: string;
      status: 'queued' | 'running' | RunOutcome;
      runbook: RunbookDefinition;
      caseId: string | null;
      trigger: Record<string, unknown>;
      triggerType: string;
      inputs: Record<string, unknown>;
      dryRun: boolean;
      requestedBy: string | null;
      steps: Record<string, StepState>;
    };

export const initialRunState = (): RunState => ({ exists: false });

export function evolveRun(state: RunState, event: RunEvent): RunState {
  if (event.type === 'run.queued') {
    const d = event.data;
    return {
      exists: true,
      id: d.run_id,
      status: 'queued',
      runbook: d.runbook,
      caseId: d.case_id,
      trigger: d.trigger,
      triggerType: d.trigger_type,
      inputs: d.inputs,
      dryRun: d.dry_run,
      requestedBy: d.requested_by,
      steps: Object.fromEntries(d.runbook.steps.map((s) => [s.id, { status: 'pending', attempt: 0, output: null, error: null }])),
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'run.started':
      return { ...state, status: 'running' };
    case 'step.started':
      return withStep(state, event.data.step_id, { status: 'running', attempt: event.data.attempt, output: null, error: null });
    case 'step.finished':
      return withStep(state, event.data.step_id, {
        status: event.data.status,
        attempt: event.data.attempt,
        output: event.data.output,
        error: event.data.error,
      });
    case 'run.finished':
      return { ...state, status: event.data.status };
    default:
      return state;
  }
}

function withStep(state: Extract<RunState, { exists: true }>, stepId: string, step: StepState): RunState {
  return { ...state, steps: { ...state.steps, [stepId]: step } };
}
