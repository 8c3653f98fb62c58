/**
 * Whether a managed containment request may go ahead under the response policy (SPEC.md
 * "Managed containment actions": "normalize the target, require a finite TTL, evaluate
 * policy and protected targets, apply the approval gate"), before any binding is resolved
 * and before any vendor call. Pure: the policy in force comes in.
 *
 * Refusals, in this order, each a step failure that creates no effect:
 * `effect_target_type_invalid` (an effect type that does not act on the target type),
 * `target_invalid` (normalization refused it), `target_protected` (a protected target
 * covers it, `params.protected` lists which), `ttl_missing` (absent, zero, negative or not
 * a whole number of seconds), `ttl_out_of_policy` (outside the policy's min..max).
 * Otherwise the request goes ahead with its normalized target, and needs the approval
 * gate unless an automatic grant covers it (its pair, a TTL within the grant, and the
 * case's severity when the grant lists severities). The grant waives only this gate: a
 * step of an automatic run that is not `autonomous` meets the engine's default-deny risk
 * gate first (domain/runbooks/run-workflow.ts), and once a person approved the step no
 * second gate opens.
 */
import { effectTargets, type ManagedEffectType, type ResponsePolicy } from '../response-policy/policy.ts';
import { normalizeTarget, protectedHits, type Target, type TargetType } from '../response-policy/targets.ts';

export type EffectRequest = {
  effectType: ManagedEffectType;
  targetType: TargetType;
  /** The target as the step wrote it. */
  target: string;
  ttlSeconds: number | null | undefined;
  /** The severity of the run's case, null without a case. */
  severity: string | null;
};

export type EffectRefusal = { code: string; message: string; params?: Record<string, unknown> };

export type Evaluation =
  | { ok: false; refusal: EffectRefusal }
  | { ok: true; target: Target; ttlSeconds: number; needsApproval: boolean; grantIndex: number | null };

export function evaluateRequest(policy: ResponsePolicy, request: EffectRequest): Evaluation {
  const refuse = (code: string, message: string, params?: Record<string, unknown>): Evaluation => ({
    ok: false,
    refusal: params ? { code, message, params } : { code, message },
  });
  if (!effectTargets[request.effectType].includes(request.targetType)) {
    return refuse('effect_target_type_invalid', `${request.effectType} does not act on a ${request.targetType}`);
  }
  const normalized = normalizeTarget(request.targetType, request.target);
  if (!normalized.ok) return refuse('target_invalid', normalized.reason, { type: request.targetType });
  const target: Target = { type: request.targetType, value: normalized.value };
  const hits = protectedHits(target, policy.protected_targets);
  if (hits.length > 0) return refuse('target_protected', `${target.value} is protected by the response policy`, { target: target.value, protected: hits });
  const ttl = request.ttlSeconds;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl <= 0)
    return refuse('ttl_missing', 'a managed effect needs a finite TTL: a whole number of seconds above zero');
  if (ttl < policy.ttl.min_seconds || ttl > policy.ttl.max_seconds) {
    return refuse('ttl_out_of_policy', `the TTL must lie within ${policy.ttl.min_seconds}..${policy.ttl.max_seconds} seconds`, {
      ttl_seconds: ttl,
      min_seconds: policy.ttl.min_seconds,
      max_seconds: policy.ttl.max_seconds,
    });
  }
  const grantIndex = policy.automatic_grants.findIndex(
    (g) =>
      g.effect_type === request.effectType &&
      g.target_type === request.targetType &&
      ttl <= g.max_ttl_seconds &&
      (g.severities.length === 0 || (request.severity !== null && g.severities.includes(request.severity))),
  );
  return { ok: true, target, ttlSeconds: ttl, needsApproval: grantIndex === -1, grantIndex: grantIndex === -1 ? null : grantIndex };
}
