/**
 * Effect queries (docs/containment.md "Reading effects"): effects `scope` may see (one
 * without a case, or of a visible case), filtered by target, status, run and case, newest
 * first; and one effect. Rows as stored; adapters/http/effects.routes.ts shapes the answer.
 */
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database, EffectsTable } from '../database.ts';
import { cappedPage, type Page } from '../page.ts';

export type EffectFilters = {
  targetType?: string | undefined;
  target?: string | undefined;
  status?: readonly string[] | undefined;
  runId?: string | undefined;
  caseId?: string | undefined;
  limit: number;
  offset: number;
};

const visibleEffects = (scope: CaseScope) => (eb: ExpressionBuilder<Database, 'effects'>) =>
  eb.or([
    eb('effects.case_id', 'is', null),
    eb.exists(eb.selectFrom('cases').select('cases.id').whereRef('cases.id', '=', 'effects.case_id').where(visibleCases(scope))),
  ]);

/** A page of the effects `scope` may see, newest first, with `hasMore` and a total counted up to `totalCap` when given (page.ts); `status` matches any of its values. */
export async function listEffects(
  db: Kysely<Database>,
  f: EffectFilters,
  scope: CaseScope,
  totalCap: number | null = null,
): Promise<Page<Selectable<EffectsTable>>> {
  let q = db.selectFrom('effects').where(visibleEffects(scope));
  if (f.targetType) q = q.where('target_type', '=', f.targetType);
  if (f.target) q = q.where('target', '=', f.target);
  if (f.status && f.status.length > 0) q = q.where('status', 'in', f.status);
  if (f.runId) q = q.where('run_id', '=', f.runId);
  if (f.caseId) q = q.where('case_id', '=', f.caseId);
  const filtered = q;
  return cappedPage(
    db,
    filtered,
    (take) => filtered.selectAll().orderBy('requested_at', 'desc').orderBy('id').limit(take).offset(f.offset).execute(),
    f.limit,
    totalCap,
  );
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
