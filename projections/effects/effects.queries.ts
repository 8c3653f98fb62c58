/**
 * Effect queries (docs/containment.md "Reading effects"): effects `scope` may see (one
 * without a case, or of a visible case), filtered by target, type and status, newest
 * first; and one effect. Rows as stored; adapters/http/effects.routes.ts shapes the answer.
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

/** Effects `scope` may see, newest first. */
export async function listEffects(db: Kysely<Database>, f: EffectFilters, scope: CaseScope): Promise<Selectable<EffectsTable>[]> {
  let q = db.selectFrom('effects').selectAll().where(visibleEffects(scope));
  if (f.targetType) q = q.where('target_type', '=', f.targetType);
  if (f.target) q = q.where('target', '=', f.target);
  if (f.status) q = q.where('status', '=', f.status);
  return q.orderBy('requested_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute();
}

/** One effect if `scope` may see it (an invisible one reads like an absent one). */
export async function findEffect(db: Kysely<Database>, id: string, scope: CaseScope): Promise<Selectable<EffectsTable> | undefined> {
  return db.selectFrom('effects').selectAll().where('id', '=', id).where(visibleEffects(scope)).executeTakeFirst();
}

/** Unresolved effects (active, reversing, or with a failed reversal) of `effectType` on a normalized target, newest first, whoever may see them. */
export async function unresolvedEffectsOn(db: Kysely<Database>, effectType: string, targetType: string, target: string): Promise<Selectable<EffectsTable>[]> {
  return db
    .selectFrom('effects')
    .selectAll()
    .where('effect_type', '=', effectType)
    .where('target_type', '=', targetType)
    .where('target', '=', target)
    .where('status', 'in', ['active', 'reversing', 'reversal_failed'])
    .orderBy('applied_at', 'desc')
    .orderBy('id')
    .execute();
}
