/**
 * Run commands (SPEC.md "Runs, steps and gates"). Ids and the time come in with the
 * command (docs/architecture.md "Habits" 3); the caller found the runbook and checked the case.
 */
import type { RunbookDefinition } from '../runbooks/model.ts';
import type { ActionLogRow, GateReason, RunOutcome, StepStatus, TriggerType } from './events.ts';

export type RunCommand =
  /** `runbook` is snapshotted into `run.queued`, so a later edit never changes the run. */
  | {
      type: 'queue_run';
      runbook: RunbookDefinition;
      runId: string;
      caseId: string | null;
      triggerType: TriggerType;
      trigger: Record<string, unknown>;
      inputs: Record<string, unknown>;
      dryRun: boolean;
      requestedBy: string | null;
      now: string;
    }
  | { type: 'start_run'; now: string }
  | { type: 'start_step'; stepId: string; attempt: number; now: string }
  | { type: 'finish_step'; stepId: string; attempt: number; status: StepStatus; output: unknown; error: string | null; log: ActionLogRow; now: string }
  | { type: 'goto'; stepId: string; target: string; visit: number; reset: string[]; now: string }
  | { type: 'exceed_loop_cap'; stepId: string; target: string; visits: number; cap: number; now: string }
  /** `requests` and `resume`: what an approval of this gate covers and what it resumes (domain/runs/events.ts GateOpened). */
  | {
      type: 'open_gate';
      stepId: string;
      reason: GateReason;
      roles: string[];
      message: string | null;
      deadline: string;
      requests: string[];
      resume?: Record<string, Record<string, unknown>>;
      now: string;
    }
  | { type: 'decide_gate'; stepId: string; decision: 'approved' | 'denied'; by: string | null; roles: string[]; note: string | null; now: string }
  | { type: 'expire_gate'; stepId: string; now: string }
  | { type: 'cancel'; by: string | null; now: string }
  | { type: 'finish_run'; status: RunOutcome; error: string | null; now: string };
