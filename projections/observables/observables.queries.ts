/**
 * Observable queries (SPEC.md "Cases": GET /cases/<id>/observables; `cross_case_hits`),
 * over the view `case_observables_present` (migration 0014): hand-added observables and
 * those of the alerts linked to the case, one row per (type, normalized value).
 */
import type { Kysely } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';

/** Most cross-case hits one answer lists. */
export const MAX_CROSS_CASE_HITS = 20;

/** The present observables of a case, oldest first. */
export async function listObservables(db: Kysely<Database>, caseId: string) {
  return db.selectFrom('case_observables_present').selectAll().where('case_id', '=', caseId).orderBy('created_at').orderBy('id').execute();
}

/** One present observable of a case, hand-added or from an alert. */
export async function findObservable(db: Kysely<Database>, caseId: string, id: string) {
  return db.selectFrom('case_observables_present').selectAll().where('case_id', '=', caseId).where('id', '=', id).executeTakeFirst();
}

/** Other cases `scope` may see that hold the same (type, normalized value), newest first. */
export async function crossCaseHits(db: Kysely<Database>, caseId: string, type: string, normalized: string, scope: CaseScope) {
  return db
    .selectFrom('case_observables_present as o')
    .innerJoin('cases', 'cases.id', 'o.case_id')
    .select(['cases.id as case_id', 'cases.key as case_key', 'cases.title', 'cases.status', 'o.id as observable_id'])
    .where('o.type', '=', type)
    .where('o.normalized', '=', normalized)
    .where('o.case_id', '<>', caseId)
    .where(visibleCases(scope))
    .orderBy('cases.created_at', 'desc')
    .limit(MAX_CROSS_CASE_HITS)
    .execute();
}
