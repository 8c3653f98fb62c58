/**
 * Observable queries (SPEC.md "Cases": GET /cases/<id>/observables; `cross_case_hits`).
 */
import type { Kysely } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';

/** Most cross-case hits one answer lists. */
export const MAX_CROSS_CASE_HITS = 20;

/** The present observables of a case, oldest first. */
export async function listObservables(db: Kysely<Database>, caseId: string) {
  return db.selectFrom('case_observables').selectAll().where('case_id', '=', caseId).where('removed_at', 'is', null).orderBy('created_at').orderBy('id').execute();
}

export async function findObservable(db: Kysely<Database>, caseId: string, id: string) {
  return db.selectFrom('case_observables').selectAll().where('case_id', '=', caseId).where('id', '=', id).where('removed_at', 'is', null).executeTakeFirst();
}

/** Other cases `scope` may see that hold the same (type, normalized value), newest first. */
export async function crossCaseHits(db: Kysely<Database>, caseId: string, type: string, normalized: string, scope: CaseScope) {
  return db
    .selectFrom('case_observables')
    .innerJoin('cases', 'cases.id', 'case_observables.case_id')
    .select(['cases.id as case_id', 'cases.key as case_key', 'cases.title', 'cases.status', 'case_observables.id as observable_id'])
    .where('case_observables.type', '=', type)
    .where('case_observables.normalized', '=', normalized)
    .where('case_observables.removed_at', 'is', null)
    .where('case_observables.case_id', '<>', caseId)
    .where(visibleCases(scope))
    .orderBy('cases.created_at', 'desc')
    .limit(MAX_CROSS_CASE_HITS)
    .execute();
}
