/**
 * The step graph of a runbook: `needs` edges only. `goto` targets are not edges; they
 * are backward jumps the engine takes at run time (SPEC.md "Runs, steps and gates").
 */
import type { StepDefinition } from './model.ts';

type StepNode = Pick<StepDefinition, 'id' | 'needs'>;

/**
 * The step ids in the order a run executes them (SPEC.md "Runbooks and runs":
 * sequential, deterministic topological order): Kahn's algorithm, always taking the
 * earliest-declared ready step. Needs naming undeclared steps are ignored (the parser
 * refuses them). Throws an Error naming the cycle when `needs` has one; a parsed
 * runbook never does.
 */
export function executionOrder(steps: readonly StepNode[]): readonly string[] {
  const known = orders.get(steps);
  if (known !== undefined) return known;
  const { order, blocked } = kahn(steps);
  if (blocked.size > 0) throw new Error(`steps form a cycle through needs: ${describeCycle(cycleAmong(steps, blocked))}`);
  orders.set(steps, order);
  return order;
}

/**
 * The order of each step list already seen, by identity: the engine asks for it at every
 * move of a run, whose runbook is one object for the run's life, and Kahn's algorithm
 * here is quadratic in the steps.
 */
const orders = new WeakMap<readonly StepNode[], readonly string[]>();

/**
 * One cycle through `needs`, as the step ids along it (each needs the next, the last
 * needs the first), starting at its earliest-declared step; null when the graph is
 * acyclic. A step that needs itself is a cycle of one.
 */
export function findCycle(steps: readonly StepNode[]): string[] | null {
  const { blocked } = kahn(steps);
  return blocked.size === 0 ? null : cycleAmong(steps, blocked);
}

/** Formats a cycle from `findCycle` for messages: `a -> b -> a`. */
export function describeCycle(cycle: readonly string[]): string {
  return [...cycle, cycle[0]].join(' -> ');
}

function kahn(steps: readonly StepNode[]): { order: string[]; blocked: Set<string> } {
  const declared = new Set(steps.map((s) => s.id));
  const waiting = steps.map((s) => new Set(s.needs.filter((n) => declared.has(n))));
  const placed = steps.map(() => false);
  const order: string[] = [];
  for (;;) {
    const next = steps.findIndex((_, i) => !placed[i] && waiting[i]?.size === 0);
    const step = steps[next];
    if (step === undefined) break;
    placed[next] = true;
    order.push(step.id);
    for (const w of waiting) w.delete(step.id);
  }
  return { order, blocked: new Set(steps.filter((_, i) => !placed[i]).map((s) => s.id)) };
}

/**
 * Every step Kahn's algorithm could not place still needs another such step, so
 * following those needs from any of them must come back round: that loop is a cycle.
 */
function cycleAmong(steps: readonly StepNode[], blocked: ReadonlySet<string>): string[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const path: string[] = [];
  let current = steps.find((s) => blocked.has(s.id));
  while (current !== undefined && !path.includes(current.id)) {
    path.push(current.id);
    const next = current.needs.find((n) => blocked.has(n));
    current = next === undefined ? undefined : byId.get(next);
  }
  const cycle = current === undefined ? path : path.slice(path.indexOf(current.id));
  const declaredAt = (id: string): number => steps.findIndex((s) => s.id === id);
  const first = cycle.reduce((best, id, i) => (declaredAt(id) < declaredAt(cycle[best] ?? id) ? i : best), 0);
  return [...cycle.slice(first), ...cycle.slice(0, first)];
}
