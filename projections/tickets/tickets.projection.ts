/**
 * Ticket links (`case_tickets`, migration 0024) and their case timeline rows from the
 * link streams (domain/tickets): `ticket.linked` (kind `ticket_linked`); a remote comment
 * (`ticket.remote_comment_received`) becomes a case comment, its author and ticket named in
 * the body, with timeline kind `ticket_comment`; a remote status
 * (`ticket.remote_status_received`) sets `remote_status`, with timeline kind
 * `ticket_status`. Idempotent: keyed by link id, comment id and event position.
 */
import type { Insertable } from 'kysely';
import {
  TICKET_LINKED,
  TICKET_REMOTE_COMMENT_RECEIVED,
  TICKET_REMOTE_STATUS_RECEIVED,
  type TicketLinked,
  type TicketRemoteCommentReceived,
  type TicketRemoteStatusReceived,
} from '../../domain/tickets/events.ts';
import { insertTimeline, timelineRow } from '../cases/timeline.ts';
import type { CaseCommentsTable, CaseTicketsTable, CaseTimelineTable } from '../database.ts';
import type { Projection } from '../projector.ts';

export const ticketsProjection: Projection = {
  name: 'tickets',
  apply: async (trx, batch) => {
    const links: Insertable<CaseTicketsTable>[] = [];
    const timeline: Insertable<CaseTimelineTable>[] = [];
    const comments: Insertable<CaseCommentsTable>[] = [];
    const statuses: { linkId: string; status: string }[] = [];
    for (const recorded of batch) {
      if (recorded.type === TICKET_REMOTE_COMMENT_RECEIVED) {
        const d = (recorded as unknown as TicketRemoteCommentReceived).data;
        const by = d.author === null ? '' : ` by ${d.author}`;
        comments.push({
          id: d.comment_id,
          case_id: d.case_id,
          body: `Comment on ${d.provider} ${d.remote_key}${by}:\n${d.text}`,
          author_id: null,
          author_email: null,
          created_at: d.at,
        });
        timeline.push(
          timelineRow(recorded, d.case_id, 'ticket_comment', {
            link_id: d.link_id,
            comment_id: d.comment_id,
            remote_comment_id: d.remote_comment_id,
            author: d.author,
          }),
        );
        continue;
      }
      if (recorded.type === TICKET_REMOTE_STATUS_RECEIVED) {
        const d = (recorded as unknown as TicketRemoteStatusReceived).data;
        statuses.push({ linkId: d.link_id, status: d.remote_status });
        timeline.push(
          timelineRow(recorded, d.case_id, 'ticket_status', {
            link_id: d.link_id,
            remote_status: d.remote_status,
            local_status: d.local_status,
            applied: d.applied,
            reason: d.reason,
          }),
        );
        continue;
      }
      if (recorded.type !== TICKET_LINKED) continue;
      const d = (recorded as unknown as TicketLinked).data;
      links.push({
        link_id: d.link_id,
        case_id: d.case_id,
        provider: d.provider,
        connection: d.connection,
        remote_id: d.remote_id,
        remote_key: d.remote_key,
        url: d.url,
        created_at: d.at,
        event_position: recorded.globalPosition,
      });
      timeline.push(timelineRow(recorded, d.case_id, 'ticket_linked', { link_id: d.link_id, provider: d.provider, remote_key: d.remote_key, url: d.url }));
    }
    if (links.length > 0)
      await trx
        .insertInto('case_tickets')
        .values(links)
        .onConflict((oc) => oc.column('link_id').doNothing())
        .execute();
    // After the links of this batch exist; in order, so a link's last status wins.
    for (const { linkId, status } of statuses) await trx.updateTable('case_tickets').set({ remote_status: status }).where('link_id', '=', linkId).execute();
    if (comments.length > 0)
      await trx
        .insertInto('case_comments')
        .values(comments)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    await insertTimeline(trx, timeline);
  },
};
