/**
 * Run events (SPEC.md "Run and action log", "Runs, steps and gates").
 * `run.queued` snapshots the runbook so later edits never change a run in flight.
 */
import type { RunbookDefinition } from '../runbooks/model.ts';
import type { Event } from '../shared/messages.ts';

export type StepStatus = 'ok' | 'error' | 'skipped';
/** How a run ends: `denied` after a deny, `expired` when a gate's deadline passed, `cancelled` by POST cancel. */
export type RunOutcome = 'succeeded' | 'failed' | 'denied' | 'expired' | 'cancelled';
/**
 * Why a gate opened: the step's `approval`, the engine's default-deny risk gate, or a
 * managed containment request no automatic grant of the response policy covers.
 */
export type GateReason = 'approval' | 'risk' | 'response_policy';
/** What starts a run: an alert matched its trigger, a person asked, or its schedule came due. */
export type TriggerType = 'alert' | 'manual' | 'schedule';

/** One action-log row as recorded; the projector chains it (hash, prev_hash, index). */
export type ActionLogRow = {
  run_id: string;
  step_id: string;
  action: string | null;
  attempt: number;
  status: StepStatus | 'dry_run' | 'approved' | 'denied' | 'expired';
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
    trigger_type: TriggerType;
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
/**
 * `on_error: goto:<target>` taken after `step_id` failed: every step in `reset` (the
 * target, everything downstream of it, and the failed step) is pending again; `visit`
 * is the target's re-entry count including this one.
 */
export type StepGoto = Event<'step.goto', { run_id: string; step_id: string; target: string; visit: number; reset: string[]; at: string }>;
/** A goto would re-enter `target` more than `cap` times; a failing `run.finished` follows. */
export type LoopCapExceeded = Event<
  'runbook.loop_cap_exceeded',
  { run_id: string; step_id: string; target: string; visits: number; cap: number; log?: ActionLogRow; at: string }
>;

/**
 * The run waits for a human decision on `step_id` until `deadline` (ISO time). `requests`
 * are the digests of the concrete requests the step's action asked a person to approve (a
 * managed containment request, an MCP tool call; adapters/actions/action.ts
 * `ActionGate`): an approval covers exactly these. Absent on gates that name none, and on
 * gates recorded before approvals were bound to requests. `resume` keeps, by delivery id,
 * what an action that stopped mid-way to ask (an `ai.agent` write intent) needs to go on
 * once approved; absent when none did.
 */
export type GateOpened = Event<
  'gate.opened',
  {
    run_id: string;
    step_id: string;
    reason: GateReason;
    roles: string[];
    message: string | null;
    deadline: string;
    at: string;
    requests?: string[];
    resume?: Record<string, Record<string, unknown>>;
  }
>;
/** A person decided the open gate; `log` is the decision's action-log row. */
export type GateDecided = Event<
  'gate.decided',
  { run_id: string; step_id: string; decision: 'approved' | 'denied'; by: string | null; note: string | null; log: ActionLogRow; at: string }
>;
/** Nobody decided before the deadline; a `run.finished` with status `expired` follows. */
export type ApprovalExpired = Event<'runbook.approval_expired', { run_id: string; step_id: string; deadline: string; log: ActionLogRow; at: string }>;

export type RunEvent =
  | RunQueued
  | RunStarted
  | StepStarted
  | StepFinished
  | StepGoto
  | LoopCapExceeded
  | GateOpened
  | GateDecided
  | ApprovalExpired
  | RunFinished;
