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

/** Outbound mirroring per link: rows waiting (`pending`), rows ended by a failure (`failed`) and the newest failure's class. */
export type MirrorState = { pending: number; failed: number; last_error: string | null };

/** The mirroring state of each of `linkIds` (links with no rows are absent: nothing was ever queued). */
export async function mirrorStates(db: Kysely<Database>, linkIds: readonly string[]): Promise<Map<string, MirrorState>> {
  if (linkIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('ticket_outbox')
    .select((eb) => [
      'link_id',
      eb.fn.count<number>('event_position').filterWhere('done_at', 'is', null).as('pending'),
      eb.fn
        .count<number>('event_position')
        .filterWhere((w) => w.and([w('done_at', 'is not', null), w('last_error', 'is not', null)]))
        .as('failed'),
    ])
    .where('link_id', 'in', linkIds)
    .groupBy('link_id')
    .execute();
  const errors = await db
    .selectFrom('ticket_outbox')
    .select(['link_id', 'last_error'])
    .distinctOn('link_id')
    .where('link_id', 'in', linkIds)
    .where('last_error', 'is not', null)
    .orderBy('link_id')
    .orderBy('event_position', 'desc')
    .execute();
  const lastError = new Map(errors.map((e) => [e.link_id, e.last_error]));
  return new Map(rows.map((r) => [r.link_id, { pending: Number(r.pending), failed: Number(r.failed), last_error: lastError.get(r.link_id) ?? null }]));
}
