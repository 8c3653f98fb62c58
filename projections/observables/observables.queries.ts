/**
 * Observable queries (SPEC.md "Cases": GET /cases/<id>/observables; `cross_case_hits`),
 * over the view `case_observables_present` (migration 0014): hand-added observables and
 * those of the alerts linked to the case, one row per (type, normalized value).
 */
import { type Kysely, sql } from 'kysely';
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

/** A cross-case hit of one of a case's observables: the other case, and which (type, normalized value) it shares. */
export type CaseObservableHit = Awaited<ReturnType<typeof crossCaseHits>>[number] & { type: string; normalized: string };

/**
 * The cross-case hits of every present observable of `caseId` in one query: for each
 * (type, normalized value), up to MAX_CROSS_CASE_HITS other cases `scope` may see, newest
 * first, as crossCaseHits answers for one.
 */
export async function crossCaseHitsOfCase(db: Kysely<Database>, caseId: string, scope: CaseScope): Promise<CaseObservableHit[]> {
  const ranked = db
    .selectFrom('case_observables_present as o')
    .innerJoin('cases', 'cases.id', 'o.case_id')
    .select([
      'cases.id as case_id',
      'cases.key as case_key',
      'cases.title',
      'cases.status',
      'o.id as observable_id',
      'o.type',
      'o.normalized',
      'cases.created_at',
      sql<number>`row_number() over (partition by o.type, o.normalized order by cases.created_at desc)`.as('rank'),
    ])
    .where(sql<boolean>`(o.type, o.normalized) in (select type, normalized from case_observables_present where case_id = ${caseId})`)
    .where('o.case_id', '<>', caseId)
    .where(visibleCases(scope))
    .as('ranked');
  return db
    .selectFrom(ranked)
    .select(['case_id', 'case_key', 'title', 'status', 'observable_id', 'type', 'normalized'])
    .where('rank', '<=', MAX_CROSS_CASE_HITS)
    .orderBy('created_at', 'desc')
    .execute();
}
