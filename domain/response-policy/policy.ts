/**
 * The response policy document (SPEC.md "Response policy"; our field shapes where it says
 * "not shown", restated in docs/containment.md): `protected_targets`, `ttl`,
 * `automatic_grants` and `adapters` (bindings). `policyProblems` holds what the schema
 * cannot say and what makes a document one the runtime cannot evaluate; `normalizePolicy`
 * writes every protected target in its canonical form (targets.ts), so matching at run
 * time compares like with like.
 *
 * A binding names, for one `(effect_type, target_type)`, the adapter (its pack or label),
 * the actions that block, unblock and read status, the connection they run on and
 * non-secret `parameters`. An automatic grant lets an autonomous step apply an effect of
 * its `(effect_type, target_type)` without the approval gate, with a TTL of at most
 * `max_ttl_seconds`, on cases of the listed severities (all when empty).
 */
import * as v from 'valibot';
import { canonicalJson } from '../shared/canonical-json.ts';
import type { SpecProblem } from '../custom-actions/templates.ts';
import { normalizeTarget, targetTypes, type TargetType } from './targets.ts';
import { sha256Hex } from '../shared/hash-chain.ts';

export const managedEffectTypes = ['block', 'contain', 'disable_identity'] as const;
export type ManagedEffectType = (typeof managedEffectTypes)[number];

/** The target types each effect type acts on (SPEC.md "Effect": block ip and domain, contain host, identity suspend). */
export const effectTargets: Record<ManagedEffectType, readonly TargetType[]> = {
  block: ['ip', 'domain'],
  contain: ['host'],
  disable_identity: ['identity'],
};

/** The longest TTL a policy may allow: one year, so every effect ends. */
export const MAX_TTL_SECONDS = 365 * 24 * 3600;
const ACTION_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){1,3}$/;
const scalar = v.union([v.string(), v.number(), v.boolean(), v.null()]);
const seconds = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TTL_SECONDS));

export const bindingSchema = v.strictObject({
  effect_type: v.picklist(managedEffectTypes),
  target_type: v.picklist(targetTypes),
  /** The adapter: the integration pack (or label) its actions come from. */
  adapter_id: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _, starting with a letter')),
  block_action: v.pipe(v.string(), v.regex(ACTION_NAME, 'an action name')),
  unblock_action: v.pipe(v.string(), v.regex(ACTION_NAME, 'an action name')),
  status_action: v.optional(v.nullable(v.pipe(v.string(), v.regex(ACTION_NAME, 'an action name'))), null),
  connection_name: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  /** Non-secret adapter configuration, passed to the bound actions as inputs of the same name. */
  parameters: v.optional(
    v.pipe(
      v.record(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,62}$/)), scalar),
      v.check((r) => Object.keys(r).length <= 50, 'at most 50 parameters'),
    ),
    {},
  ),
});

export const automaticGrantSchema = v.strictObject({
  effect_type: v.picklist(managedEffectTypes),
  target_type: v.picklist(targetTypes),
  max_ttl_seconds: seconds,
  /** Case severities the grant covers; empty covers every severity. */
  severities: v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(50))), v.maxLength(20)), []),
});

export const responsePolicySchema = v.strictObject({
  protected_targets: v.optional(
    v.pipe(v.array(v.strictObject({ type: v.picklist(targetTypes), value: v.pipe(v.string(), v.maxLength(320)) })), v.maxLength(5000)),
    [],
  ),
  ttl: v.strictObject({ min_seconds: seconds, max_seconds: seconds }),
  automatic_grants: v.optional(v.pipe(v.array(automaticGrantSchema), v.maxLength(100)), []),
  adapters: v.optional(v.pipe(v.array(bindingSchema), v.maxLength(50)), []),
});

export type ResponsePolicy = v.InferOutput<typeof responsePolicySchema>;
export type Binding = v.InferOutput<typeof bindingSchema>;

/** The policy in force before any publish: nothing protected, TTLs from 1 minute to 1 day, no grant, no adapter. */
export const defaultResponsePolicy = (): ResponsePolicy => ({
  protected_targets: [],
  ttl: { min_seconds: 60, max_seconds: 86_400 },
  automatic_grants: [],
  adapters: [],
});

/** What the runtime knows of an action a binding names; `compensation` is the action it declares undoes it, if any. */
export type ActionFacts = { registered: boolean; arbitrary: boolean; managed: boolean; compensation: string | null };

/**
 * Every reason the runtime could not evaluate `policy`, as validation issues relative to
 * the document: `protected_target_invalid`, `ttl_range_invalid` (min over max),
 * `grant_target_type_invalid`, `grant_ttl_over_policy`, `binding_target_type_invalid`
 * (a pair SPEC.md does not bind), `binding_duplicate` (two bindings of one pair),
 * `binding_action_unregistered`, `binding_action_arbitrary`, `binding_action_managed`
 * (a managed action itself: binding it would loop), `binding_unblock_not_compensation`
 * (the block action declares a compensation and the unblock is another action: the
 * effect's automatic reversal would not undo what the block did).
 */
export function policyProblems(policy: ResponsePolicy, facts: (name: string) => ActionFacts): SpecProblem[] {
  const problems: SpecProblem[] = [];
  policy.protected_targets.forEach((t, i) => {
    const normalized = normalizeTarget(t.type, t.value);
    if (!normalized.ok) problems.push({ loc: ['protected_targets', i, 'value'], msg: normalized.reason, type: 'protected_target_invalid' });
  });
  if (policy.ttl.min_seconds > policy.ttl.max_seconds) problems.push({ loc: ['ttl'], msg: 'min_seconds is over max_seconds', type: 'ttl_range_invalid' });
  policy.automatic_grants.forEach((g, i) => {
    if (!effectTargets[g.effect_type].includes(g.target_type)) {
      problems.push({
        loc: ['automatic_grants', i, 'target_type'],
        msg: `${g.effect_type} does not act on ${g.target_type}`,
        type: 'grant_target_type_invalid',
      });
    }
    if (g.max_ttl_seconds > policy.ttl.max_seconds) {
      problems.push({ loc: ['automatic_grants', i, 'max_ttl_seconds'], msg: 'over the policy maximum ttl', type: 'grant_ttl_over_policy' });
    }
  });
  const pairs = new Set<string>();
  policy.adapters.forEach((b, i) => {
    const loc = ['adapters', i];
    if (!effectTargets[b.effect_type].includes(b.target_type)) {
      problems.push({ loc: [...loc, 'target_type'], msg: `${b.effect_type} does not act on ${b.target_type}`, type: 'binding_target_type_invalid' });
    }
    const pair = `${b.effect_type}/${b.target_type}`;
    if (pairs.has(pair)) problems.push({ loc, msg: `${pair} is bound twice`, type: 'binding_duplicate' });
    pairs.add(pair);
    for (const field of ['block_action', 'unblock_action', 'status_action'] as const) {
      const name = b[field];
      if (name === null) continue;
      const f = facts(name);
      if (f.managed) problems.push({ loc: [...loc, field], msg: `${name} is a managed action itself`, type: 'binding_action_managed' });
      else if (!f.registered) problems.push({ loc: [...loc, field], msg: `${name} is not a registered, enabled action`, type: 'binding_action_unregistered' });
      else if (f.arbitrary) problems.push({ loc: [...loc, field], msg: `${name} is in the arbitrary tier`, type: 'binding_action_arbitrary' });
    }
    const compensation = facts(b.block_action).compensation;
    if (compensation !== null && compensation !== b.unblock_action) {
      problems.push({
        loc: [...loc, 'unblock_action'],
        msg: `${b.block_action} declares ${compensation} as its compensation: bind that as the unblock action`,
        type: 'binding_unblock_not_compensation',
      });
    }
  });
  return problems;
}

/** `policy` with every protected target in canonical form; call only on a policy without problems. */
export function normalizePolicy(policy: ResponsePolicy): ResponsePolicy {
  return {
    ...policy,
    protected_targets: policy.protected_targets.map((t) => {
      const n = normalizeTarget(t.type, t.value);
      return { type: t.type, value: n.ok ? n.value : t.value };
    }),
  };
}

/** SHA-256 of the policy's canonical JSON (RFC 8785): what a publish records and audits. */
export function policyDigest(policy: ResponsePolicy): string {
  return sha256Hex(canonicalJson(policy));
}
