/**
 * Which runbooks an alert fires (SPEC.md "Runbooks and runs", Triggers: AND across
 * keys; a list value matches on overlap, a scalar on equality).
 */
import type { AlertTrigger, RunbookDefinition, Scalar } from './model.ts';

/** Keys whose values are compared ignoring case: intake lower-cases them, authors write `High`. */
const CASELESS_KEYS = new Set(['severity', 'status']);

/**
 * True when every condition holds for the alert's `facts` (empty conditions: always).
 * A fact is looked up by its exact key first (facts may hold flattened dotted keys such
 * as `matched_log.host.name`), then as a dotted path into nested objects; an absent or
 * null fact never matches. Condition and fact may each be a scalar or a list, and match
 * when they share a value. Scalars compare by their text (`4625` equals `"4625"`), and
 * ignoring case when the key's last segment is `severity` or `status`.
 */
export function matchesConditions(conditions: AlertTrigger['conditions'], facts: Record<string, unknown>): boolean {
  return Object.entries(conditions).every(([key, expected]) => {
    const fact = lookup(facts, key);
    if (fact === undefined || fact === null) return false;
    const normalise = (value: Scalar): string => (CASELESS_KEYS.has(key.split('.').pop() ?? key) ? String(value).toLowerCase() : String(value));
    const actual = new Set((Array.isArray(fact) ? fact : [fact]).filter(isScalar).map(normalise));
    return (Array.isArray(expected) ? expected : [expected]).some((value) => actual.has(normalise(value)));
  });
}

/**
 * The enabled runbooks with an alert trigger whose conditions match `facts`, sorted by
 * id (code-unit order, so the result does not depend on the locale).
 */
export function matchingRunbooks(runbooks: readonly RunbookDefinition[], facts: Record<string, unknown>): RunbookDefinition[] {
  return runbooks
    .filter((r) => r.enabled && r.trigger.type === 'alert' && matchesConditions(r.trigger.conditions, facts))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Own properties only, so a condition key can never reach an object's prototype. */
function lookup(value: unknown, path: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, path)) return record[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  const head = path.slice(0, dot);
  return Object.hasOwn(record, head) ? lookup(record[head], path.slice(dot + 1)) : undefined;
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
