/**
 * Ticket link reads (SPEC.md `GET /cases/<case_id>/tickets`, `GET /tickets/<link_id>`):
 * scoped by the case's team and privacy, like the case.
 */
import type { Kysely } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';

/** The links of a case, oldest first (the caller checked the case is visible). */
export async function caseTicketLinks(db: Kysely<Database>, caseId: string) {
  return db.selectFrom('case_tickets').selectAll().where('case_id', '=', caseId).orderBy('created_at').orderBy('link_id').execute();
}

/** One link when `scope` may see its case; an invisible one reads like an absent one. */
export async function findTicketLink(db: Kysely<Database>, linkId: string, scope: CaseScope) {
  return db
    .selectFrom('case_tickets')
    .selectAll()
    .where('link_id', '=', linkId)
    .where((eb) => eb.exists(eb.selectFrom('cases').select('cases.id').whereRef('cases.id', '=', 'case_tickets.case_id').where(visibleCases(scope))))
    .executeTakeFirst();
}
