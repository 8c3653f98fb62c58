/**
 * Effect queries (docs/containment.md "Reading effects"): effects `scope` may see (one
 * without a case, or of a visible case), filtered by target, type and status, newest
 * first; and one effect.
 */
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database, EffectsTable } from '../database.ts';

export type EffectFilters = { targetType?: string | undefined; target?: string | undefined; status?: string | undefined; limit: number; offset: number };

const visibleEffects = (scope: CaseScope) => (eb: ExpressionBuilder<Database, 'effects'>) =>
  eb.or([
    eb('effects.case_id', 'is', null),
    eb.exists(eb.selectFrom('cases').select('cases.id').whereRef('cases.id', '=', 'effects.case_id').where(visibleCases(scope))),
  ]);

export type EffectView = ReturnType<typeof effectView>;

export function effectView(r: Selectable<EffectsTable>) {
  const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
  return {
    id: r.id,
    effect_type: r.effect_type,
    target_type: r.target_type,
    target: r.target,
    status: r.status,
    ttl_seconds: r.ttl_seconds,
    expires_at: iso(r.expires_at),
    adapter_id: r.adapter_id,
    policy_version: r.policy_version,
    snapshot_digest: r.snapshot_digest,
    handle: r.handle,
    already_enforced: r.already_enforced,
    enforcement_performed: r.enforcement_performed,
    last_error: r.last_error,
    reversal_attempts: r.reversal_attempts,
    retry_at: iso(r.retry_at),
    run_id: r.run_id,
    step_id: r.step_id,
    case_id: r.case_id,
    requested_by: r.requested_by,
    requested_at: new Date(r.requested_at).toISOString(),
    applied_at: iso(r.applied_at),
    reversed_at: iso(r.reversed_at),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** Effects `scope` may see, newest first. */
export async function listEffects(db: Kysely<Database>, f: EffectFilters, scope: CaseScope): Promise<EffectView[]> {
  let q = db.selectFrom('effects').selectAll().where(visibleEffects(scope));
  if (f.targetType) q = q.where('target_type', '=', f.targetType);
  if (f.target) q = q.where('target', '=', f.target);
  if (f.status) q = q.where('status', '=', f.status);
  return (await q.orderBy('requested_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute()).map(effectView);
}

/** One effect if `scope` may see it (an invisible one reads like an absent one). */
export async function findEffect(db: Kysely<Database>, id: string, scope: CaseScope): Promise<EffectView | undefined> {
  const row = await db.selectFrom('effects').selectAll().where('id', '=', id).where(visibleEffects(scope)).executeTakeFirst();
  return row && effectView(row);
}
