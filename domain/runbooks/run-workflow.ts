/**
 * The runbook process manager as a decider (docs/architecture.md "Habits" 5): from a run's state,
 * the next move the worker must carry out. Pure; the worker in runtime/ executes it.
 *
 * Steps run one at a time in deterministic topological order (SPEC.md "Execution is
 * sequential"). A step runs once every `needs` step is ok or skipped; otherwise it is
 * skipped. A `when_branch` step runs only on the taken edge of its upstream branch.
 * A step left `running` by a crashed worker is executed again as the next attempt;
 * a finished step is never executed again, unless a goto resets it.
 *
 * A failed step follows its `on_error` (SPEC.md "Runs, steps and gates"): `fail` ends
 * the run, `continue` leaves it `error` and moves on, `goto:<target>` resets the target,
 * every step downstream of it (through `needs`) and the failed step itself, then reruns
 * them in order. Each goto counts one visit of its target; the visit that would exceed
 * `maxStepVisits` fails the run instead (`runbook.loop_cap_exceeded`).
 *
 * Gates (SPEC.md "Runs, steps and gates"): before a step with `approval` runs, and
 * before a step whose action risk is `write` or `arbitrary` runs in an automatic
 * (alert or schedule) run unless it is `autonomous` or its action's risk is bounded, the run waits in
 * `waiting_approval`. The deadline is `approval.timeout_h` hours after opening, else the
 * install default, which is I/O (the suite's approval settings) and so the worker's to
 * read: the move carries `timeoutH` null for it. At the deadline the gate expires. An
 * action `adminGate` names (arbitrary-tier custom actions) opens a gate only admins decide before every
 * live execution, in every kind of run and whatever `autonomous` says. Dry runs open no gates:
 * they only preview.
 */
import type { GateReason } from '../runs/events.ts';
import { ADMIN_GATE_ROLES, finishedStatuses, RISK_GATE_ROLES, type RunState, type StepState } from '../runs/state.ts';
import { executionOrder } from './dag.ts';
import type { StepDefinition } from './model.ts';

export type NextMove =
  | { kind: 'start_run' }
  | { kind: 'execute_step'; step: StepDefinition; attempt: number }
  | { kind: 'evaluate_branch'; step: StepDefinition; attempt: number }
  | { kind: 'skip_step'; step: StepDefinition; attempt: number; reason: string }
  | { kind: 'goto'; step: StepDefinition; target: string; visit: number; reset: string[] }
  | { kind: 'loop_cap_exceeded'; step: StepDefinition; target: string; visits: number; cap: number }
  | { kind: 'open_gate'; step: StepDefinition; attempt: number; reason: GateReason; roles: string[]; message: string | null; timeoutH: number | null }
  | { kind: 'expire_gate'; stepId: string; deadline: string }
  | { kind: 'finish_run'; status: 'succeeded' | 'failed'; error: string | null }
  | { kind: 'idle' };

/**
 * What the workflow needs from outside: `maxStepVisits` (SVC_MAX_STEP_VISITS, default 3),
 * `now` as an ISO time, `riskOf` giving an action's registry risk (null when unknown), and
 * `bounded` telling an action whose risk is bounded (SPEC.md "Ban-list built-in actions": automatic
 * runs are autonomous for them).
 */
export type WorkflowLimits = {
  maxStepVisits: number;
  now: string;
  riskOf: (action: string) => string | null;
  bounded: (action: string) => boolean;
  /**
   * Whether every live execution of the action needs an admin's approval (arbitrary-tier
   * custom actions, SPEC.md "Custom action"); absent means none does.
   */
  adminGate?: (action: string) => boolean;
};

const GATED_RISKS = new Set(['write', 'arbitrary']);

export function nextMove(state: RunState, limits: WorkflowLimits): NextMove {
  if (!state.exists || finishedStatuses.includes(state.status)) return { kind: 'idle' };
  if (state.status === 'queued') return { kind: 'start_run' };
  if (state.status === 'waiting_approval') {
    const gate = state.gate;
    if (gate === null || Date.parse(limits.now) < Date.parse(gate.deadline)) return { kind: 'idle' };
    return { kind: 'expire_gate', stepId: gate.stepId, deadline: gate.deadline };
  }
  const byId = new Map(state.runbook.steps.map((s) => [s.id, s]));
  for (const id of executionOrder(state.runbook.steps)) {
    const step = byId.get(id);
    const current = state.steps[id];
    if (!step || !current) continue;
    if (current.status === 'ok' || current.status === 'skipped') continue;
    if (current.status === 'error') {
      if (step.on_error.kind === 'continue') continue;
      if (step.on_error.kind === 'goto') return gotoMove(state, step, step.on_error.target, limits);
      return { kind: 'finish_run', status: 'failed', error: `step ${id} failed: ${current.error ?? 'error'}` };
    }
    const attempt = current.attempt + 1;
    const blocked = step.needs.find((n) => !isOkOrSkipped(state.steps[n]));
    if (blocked !== undefined) return { kind: 'skip_step', step, attempt, reason: `needs ${blocked}, which did not succeed` };
    if (step.when_branch !== null && !branchTaken(step, state.steps, byId)) {
      return { kind: 'skip_step', step, attempt, reason: `branch edge "${step.when_branch}" not taken` };
    }
    const gate = step.kind === 'action' && !state.dryRun && !Object.hasOwn(state.approvals, id) ? gateFor(step, state.triggerType, limits) : null;
    if (gate !== null) return { kind: 'open_gate', step, attempt, ...gate };
    return step.kind === 'branch' ? { kind: 'evaluate_branch', step, attempt } : { kind: 'execute_step', step, attempt };
  }
  return { kind: 'finish_run', status: 'succeeded', error: null };
}

/**
 * When a gate opened at `openedAt` (ISO time) expires, `hours` later (the step's
 * `approval.timeout_h`, else the install default); ISO time. Shared by the gates this
 * workflow opens and the one an action asks for (runtime/worker/run-driver.ts).
 */
export function gateDeadline(openedAt: string, hours: number): string {
  return new Date(Date.parse(openedAt) + hours * 3_600_000).toISOString();
}

function gateFor(step: StepDefinition, triggerType: string, limits: WorkflowLimits) {
  // The step's own timeout, also on the gates the engine adds before it; null: the install default.
  const timeoutH = step.approval?.timeout_h ?? null;
  // Before the step's own approval: whoever else it names, an admin decides this one.
  if (step.action !== null && limits.adminGate?.(step.action) === true) {
    const message = `${step.action} is an arbitrary-tier custom action: every live execution needs an admin's approval`;
    return { reason: 'risk' as const, roles: [...ADMIN_GATE_ROLES], message: step.approval?.message ?? message, timeoutH };
  }
  if (step.approval) return { reason: 'approval' as const, roles: step.approval.roles, message: step.approval.message, timeoutH };
  const automatic = triggerType === 'alert' || triggerType === 'schedule';
  const risk = step.action === null ? null : limits.riskOf(step.action);
  if (automatic && !step.autonomous && risk !== null && GATED_RISKS.has(risk) && !(step.action !== null && limits.bounded(step.action))) {
    return {
      reason: 'risk' as const,
      roles: [...RISK_GATE_ROLES],
      message: `${step.action} has risk ${risk}: approve to run it in this automatic run`,
      timeoutH,
    };
  }
  return null;
}

function gotoMove(state: Extract<RunState, { exists: true }>, step: StepDefinition, target: string, limits: WorkflowLimits): NextMove {
  const visit = (state.visits[target] ?? 0) + 1;
  if (visit > limits.maxStepVisits) return { kind: 'loop_cap_exceeded', step, target, visits: visit - 1, cap: limits.maxStepVisits };
  const reset = new Set([...downstreamOf(state.runbook.steps, target), step.id]);
  return { kind: 'goto', step, target, visit, reset: executionOrder(state.runbook.steps).filter((id) => reset.has(id)) };
}

/** `target` and every step that needs it, directly or through other steps. */
export function downstreamOf(steps: readonly Pick<StepDefinition, 'id' | 'needs'>[], target: string): Set<string> {
  const found = new Set([target]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of steps) {
      if (!found.has(s.id) && s.needs.some((n) => found.has(n))) {
        found.add(s.id);
        grew = true;
      }
    }
  }
  return found;
}

function isOkOrSkipped(step: StepState | undefined): boolean {
  return step?.status === 'ok' || step?.status === 'skipped';
}

/** The edge is taken when an upstream branch step ran and its boolean result equals `when_branch`. */
function branchTaken(step: StepDefinition, steps: Record<string, StepState>, byId: Map<string, StepDefinition>): boolean {
  const wanted = step.when_branch === 'true';
  return step.needs.some((n) => {
    const upstream = byId.get(n);
    const result = steps[n];
    if (upstream?.kind !== 'branch' || result?.status !== 'ok') return false;
    return (result.output as { result?: unknown } | null)?.result === wanted;
  });
}
