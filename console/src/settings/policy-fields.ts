/**
 * The response policy editor's rules, pure (tests/unit/console/policy-fields.test.ts):
 * which target types each effect type acts on (SPEC.md "Effect"), a new grant or binding
 * with sensible starting values, and the difference between two published versions as
 * added and removed lines of their documents (keys in order, so only values differ).
 */
import { diffLines } from 'diff';
import type { paths } from '../api-types.ts';

/** `GET /response-policy`: the policy in force with its version and the actions a binding may name. */
export type PolicyView = paths['/response-policy']['get']['responses'][200]['content']['application/json'];
/** The body of `PUT /response-policy`. */
export type PolicyDocument = paths['/response-policy']['put']['requestBody']['content']['application/json'];
export type Grant = NonNullable<PolicyDocument['automatic_grants']>[number];
export type Binding = NonNullable<PolicyDocument['adapters']>[number];
export type EffectType = Grant['effect_type'];
export type TargetType = Grant['target_type'];
/** One published version, whole. */
export type PolicyVersion = paths['/response-policy/versions']['get']['responses'][200]['content']['application/json']['items'][number];

/** The target types each effect type acts on. */
export const EFFECT_TARGETS: Record<EffectType, readonly TargetType[]> = {
  block: ['ip', 'domain'],
  contain: ['host'],
  disable_identity: ['identity'],
};
export const EFFECT_TYPES = Object.keys(EFFECT_TARGETS) as EffectType[];
/** Every target type (docs/containment.md "Targets"), the order the pages offer them in. */
export const TARGET_TYPES: readonly TargetType[] = ['ip', 'domain', 'host', 'identity'];

/** The editable document of a policy as read (its version, digest and bindable actions left out). */
export const documentOf = (view: PolicyDocument): PolicyDocument => ({
  protected_targets: [...(view.protected_targets ?? [])],
  ttl: { ...view.ttl },
  automatic_grants: [...(view.automatic_grants ?? [])],
  adapters: [...(view.adapters ?? [])],
});

/** `effect` with the first target type it acts on, when `target` is not one of its own. */
export const targetFor = (effect: EffectType, target: TargetType): TargetType =>
  EFFECT_TARGETS[effect].includes(target) ? target : (EFFECT_TARGETS[effect][0] as TargetType);

/** A grant to fill in: blocks of addresses for up to an hour, every severity. */
export const newGrant = (): Grant => ({ effect_type: 'block', target_type: 'ip', max_ttl_seconds: 3600, severities: [] });

/** A binding to fill in: blocks of addresses, actions and connection still to choose. */
export const newBinding = (): Binding => ({
  effect_type: 'block',
  target_type: 'ip',
  adapter_id: '',
  block_action: '',
  unblock_action: '',
  status_action: null,
  connection_name: '',
  parameters: {},
});

/** `value` with every object's keys in order, so two documents differ only where their values do. */
const sortedKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, inner]) => [key, sortedKeys(inner)]),
  );
};

/** The policy part of a version, as the editor and the publish route see it, keys in order. */
const documentText = (version: PolicyDocument) => `${JSON.stringify(sortedKeys(documentOf(version)), null, 2)}\n`;

/** The lines `after` adds to and removes from `before` (both whole documents), each prefixed `+ ` or `- `; empty when they are the same. */
export function policyDiff(before: PolicyDocument, after: PolicyDocument): string[] {
  return diffLines(documentText(before), documentText(after)).flatMap((part) => {
    if (!part.added && !part.removed) return [];
    const mark = part.added ? '+ ' : '- ';
    return part.value
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => `${mark}${line}`);
  });
}
