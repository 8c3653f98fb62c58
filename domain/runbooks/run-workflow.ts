/**
 * The runbook process manager as a decider (DESIGN.md habit 5): from a run's state,
 * the next move the worker must carry out. Pure; the worker in runtime/ executes it.
 *
 * Steps run one at a time in deterministic topological order (SPEC.md "Execution is
 * sequential"). A step runs once every `needs` step is ok or skipped; otherwise it is
 * skipped. A `when_branch` step runs only on the taken edge of its upstream branch.
 * A step left `running` by a crashed worker is executed again as the next attempt;
 * a finished step is never executed again.
 */
import type { RunState, StepState } from '../runs/state.ts';
import { executionOrder } from './dag.ts';
import type { StepDefinition } from './model.ts';

export type NextMove =
  | { kind: 'start_run' }
  | { kind: 'execute_step'; step: StepDefinition; attempt: number }
  | { kind: 'evaluate_branch'; step: StepDefinition; attempt: number }
  | { kind: 'skip_step'; step: StepDefinition; attempt: number; reason: string }
  | { kind: 'finish_run'; status: 'succeeded' | 'failed'; error: string | null }
  | { kind: 'idle' };

/**
 * Step features whose engine support lands with the runbook-engine issue; until then
 * a run reaching such a step fails with a clear reason instead of ignoring it.
 */
function unsupportedFeature(step: StepDefinition): string | null {
  if (step.approval) return 'approval';
  if (step.for_each !== null) return 'for_each';
  if (step.on_error.kind === 'goto') return 'on_error goto';
  return null;
}

export function nextMove(state: RunState): NextMove {
  if (!state.exists || state.status === 'succeeded' || state.status === 'failed') return { kind: 'idle' };
  if (state.status === 'queued') return { kind: 'start_run' };
  const byId = new Map(state.runbook.steps.map((s) => [s.id, s]));
  for (const id of executionOrder(state.runbook.steps)) {
    const step = byId.get(id);
    const current = state.steps[id];
    if (!step || !current) continue;
    if (current.status === 'ok' || current.status === 'skipped') continue;
    if (current.status === 'error') {
      if (step.on_error.kind === 'continue') continue;
      return { kind: 'finish_run', status: 'failed', error: `step ${id} failed: ${current.error ?? 'error'}` };
    }
    const attempt = current.attempt + 1;
    const blocked = step.needs.find((n) => !isOkOrSkipped(state.steps[n]));
    if (blocked !== undefined) return { kind: 'skip_step', step, attempt, reason: `needs ${blocked}, which did not succeed` };
    if (step.when_branch !== null && !branchTaken(step, state.steps, byId)) {
      return { kind: 'skip_step', step, attempt, reason: `branch edge "${step.when_branch}" not taken` };
    }
    const feature = unsupportedFeature(step);
    if (feature !== null) {
      return { kind: 'finish_run', status: 'failed', error: `step ${id} uses ${feature}, which this engine version does not run yet` };
    }
    return step.kind === 'branch' ? { kind: 'evaluate_branch', step, attempt } : { kind: 'execute_step', step, attempt };
  }
  return { kind: 'finish_run', status: 'succeeded', error: null };
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
