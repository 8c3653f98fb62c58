/**
 * Run state rebuilt from its events: the process manager decides the next move from it.
 */
import type { RunbookDefinition } from '../runbooks/model.ts';
import type { GateReason, RunEvent, RunOutcome, StepStatus } from './events.ts';

/** Roles that may decide a gate the engine opens itself (the default-deny risk gate, an action's own gate). */
export const RISK_GATE_ROLES: readonly string[] = ['approver', 'admin'];
/** Roles that may decide the gate before an arbitrary-tier custom action runs: a gate accepting only these was decided by an admin. */
export const ADMIN_GATE_ROLES: readonly string[] = ['admin'];

/** The gate the run waits on; `deadline` is an ISO time; `requests` the request digests its approval covers, `resume` what it resumes. */
export type OpenGate = {
  stepId: string;
  reason: GateReason;
  roles: string[];
  deadline: string;
  requests: string[];
  resume: Record<string, Record<string, unknown>>;
};

/**
 * What people approved for one step in its current pass (a goto reset forgets it; a crash
 * re-execution within the pass keeps it): the request digests the approved gates named,
 * whether one of them only admins could decide, and, by delivery id, what an action that
 * stopped to ask left to resume from. An action decides at execution whether this covers
 * what it is about to do (adapters/actions/action.ts `ActionContext.approval`).
 */
export type StepApproval = { requests: string[]; byAdmin: boolean; resume: Record<string, Record<string, unknown>> };

/** Run statuses after which nothing more happens to a run. */
export const finishedStatuses: readonly string[] = ['succeeded', 'failed', 'denied', 'expired', 'cancelled'];

/**
 * One step of a run. `attempt` counts every execution of the step (retries within one
 * execution are not counted; a crash re-execution and a goto re-entry are). `pass` counts
 * the step's passes: 1, then one more each time a `step.goto` resets it. A crash
 * re-execution stays in its pass, so (run, step, pass) names one message to the outside
 * (the delivery id of runtime/worker/step-executor.ts).
 */
export type StepState = { status: 'pending' | 'running' | StepStatus; attempt: number; pass: number; output: unknown; error: string | null };

export type RunState =
  | { exists: false }
  | {
      exists: true;
      id: string;
      status: 'queued' | 'running' | 'waiting_approval' | RunOutcome;
      runbook: RunbookDefinition;
      caseId: string | null;
      trigger: Record<string, unknown>;
      triggerType: string;
      inputs: Record<string, unknown>;
      dryRun: boolean;
      requestedBy: string | null;
      steps: Record<string, StepState>;
      /** Re-entries of each goto target so far (SPEC.md "Limits": goto re-entry cap). */
      visits: Record<string, number>;
      gate: OpenGate | null;
      /** The approvals of each step whose gate was approved in its current pass (a goto reset asks again). */
      approvals: Record<string, StepApproval>;
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
      steps: Object.fromEntries(d.runbook.steps.map((s) => [s.id, { status: 'pending', attempt: 0, pass: 1, output: null, error: null }])),
      visits: {},
      gate: null,
      approvals: {},
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
    case 'step.goto': {
      // Attempts keep counting across a reset, so every execution has its own attempt number;
      // a reset step starts its next pass.
      const steps = { ...state.steps };
      for (const id of event.data.reset) {
        const current = steps[id];
        if (current) steps[id] = { status: 'pending', attempt: current.attempt, pass: current.pass + 1, output: null, error: null };
      }
      const approvals = Object.fromEntries(Object.entries(state.approvals).filter(([id]) => !event.data.reset.includes(id)));
      return { ...state, steps, approvals, visits: { ...state.visits, [event.data.target]: event.data.visit } };
    }
    case 'gate.opened': {
      const { step_id, reason, roles, deadline, requests, resume } = event.data;
      return { ...state, status: 'waiting_approval', gate: { stepId: step_id, reason, roles, deadline, requests: requests ?? [], resume: resume ?? {} } };
    }
    case 'gate.decided':
      return event.data.decision === 'approved' ? { ...state, status: 'running', gate: null, approvals: withApproval(state) } : { ...state, gate: null };
    case 'runbook.approval_expired':
      return { ...state, gate: null };
    case 'run.finished':
      return { ...state, status: event.data.status };
    default:
      return state;
  }
}

/** The approvals after the open gate was approved: its requests join the step's, and an admin-only gate marks it decided by an admin. */
function withApproval(state: Extract<RunState, { exists: true }>): Record<string, StepApproval> {
  const gate = state.gate;
  if (gate === null) return state.approvals;
  const before = Object.hasOwn(state.approvals, gate.stepId) ? state.approvals[gate.stepId] : undefined;
  const byAdmin = gate.roles.length > 0 && gate.roles.every((r) => ADMIN_GATE_ROLES.includes(r));
  return {
    ...state.approvals,
    [gate.stepId]: {
      requests: [...new Set([...(before?.requests ?? []), ...gate.requests])],
      byAdmin: (before?.byAdmin ?? false) || byAdmin,
      resume: { ...before?.resume, ...gate.resume },
    },
  };
}

/** `step` as the state of `stepId`, in the pass the step is in (1 for a step the runbook does not name). */
function withStep(state: Extract<RunState, { exists: true }>, stepId: string, step: Omit<StepState, 'pass'>): RunState {
  return { ...state, steps: { ...state.steps, [stepId]: { ...step, pass: state.steps[stepId]?.pass ?? 1 } } };
}
