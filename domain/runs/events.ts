/**
 * Run events (SPEC.md "Run and action log", "Runs, steps and gates").
 * `run.queued` snapshots the runbook so later edits never change a run in flight.
 */
import type { RunbookDefinition } from '../runbooks/model.ts';
import type { Event } from '../shared/messages.ts';

export type StepStatus = 'ok' | 'error' | 'skipped';
export type RunOutcome = 'succeeded' | 'failed';

/** One action-log row as recorded; the projector chains it (hash, prev_hash, index). */
export type ActionLogRow = {
  run_id: string;
  step_id: string;
  action: string | null;
  attempt: number;
  status: StepStatus | 'dry_run';
  input: unknown;
  output: unknown;
  error: string | null;
  started_at: string;
  finished_at: string;
};

export type RunQueued = Event<
  'run.queued',
  {
    run_id: string;
    runbook: RunbookDefinition;
    case_id: string | null;
    trigger_type: 'alert' | 'manual' | 'schedule';
    trigger: Record<string, unknown>;
    inputs: Record<string, unknown>;
    dry_run: boolean;
    requested_by: string | null;
    queued_at: string;
  }
>;
export type RunStarted = Event<'run.started', { run_id: string; at: string }>;
export type StepStarted = Event<'step.started', { run_id: string; step_id: string; attempt: number; at: string }>;
export type StepFinished = Event<
  'step.finished',
  { run_id: string; step_id: string; attempt: number; status: StepStatus; output: unknown; error: string | null; log: ActionLogRow; at: string }
>;
export type RunFinished = Event<'run.finished', { run_id: string; status: RunOutcome; error: string | null; at: string }>;

export type RunEvent = RunQueued | RunStarted | StepStarted | StepFinished | RunFinished;
