/**
 * The ticket outbox (migration 0026; SPEC.md "Ticket mirroring"): every local comment and
 * status change of a case with ticket links becomes one row per link to send. A comment
 * that came from a ticket is a ticket event, not a case comment event, so it is never sent
 * back, nor is a comment a case merge copied in; a status change a ticket caused
 * (`via_ticket_link`) goes to the case's other links only. Runs after the tickets projection, so links made in the same batch are seen.
 * Idempotent: keyed by (link, event position).
 */
import type { Insertable } from 'kysely';
import type { CaseCommentAdded, CaseStatusChanged } from '../../domain/cases/events.ts';
import type { TicketOutboxTable } from '../database.ts';
import type { Projection } from '../projector.ts';
import { ticketsProjection } from './tickets.projection.ts';

export const ticketOutboxProjection: Projection = {
  name: 'ticket_outbox',
  after: [ticketsProjection],
  apply: async (trx, batch) => {
    const wanted = batch.filter((e) => e.type === 'case.comment_added' || e.type === 'case.status_changed');
    if (wanted.length === 0) return;
    const caseIds = [...new Set(wanted.map((e) => (e.data as { case_id: string }).case_id))];
    const links = await trx.selectFrom('case_tickets').select(['link_id', 'case_id']).where('case_id', 'in', caseIds).execute();
    if (links.length === 0) return;
    const rows: Insertable<TicketOutboxTable>[] = [];
    for (const recorded of wanted) {
      const at = new Date(recorded.recordedAt);
      const caseLinks = links.filter((l) => l.case_id === (recorded.data as { case_id: string }).case_id);
      if (recorded.type === 'case.comment_added') {
        const d = (recorded as unknown as CaseCommentAdded).data;
        // A merge's copy was written on another case: posting it again would repeat history on the ticket.
        if (d.merged_from !== undefined) continue;
        const payload = JSON.stringify({ comment_id: d.comment_id, body: d.body, author_email: d.author_email });
        for (const l of caseLinks) rows.push({ link_id: l.link_id, event_position: recorded.globalPosition, kind: 'comment', payload, next_attempt_at: at });
      } else {
        const d = (recorded as unknown as CaseStatusChanged).data;
        const payload = JSON.stringify({ local_status: d.to });
        for (const l of caseLinks) {
          if (l.link_id !== d.via_ticket_link)
            rows.push({ link_id: l.link_id, event_position: recorded.globalPosition, kind: 'status', payload, next_attempt_at: at });
        }
      }
    }
    if (rows.length > 0)
      await trx
        .insertInto('ticket_outbox')
        .values(rows)
        .onConflict((oc) => oc.columns(['link_id', 'event_position']).doNothing())
        .execute();
  },
};
