/**
 * Ticket links (`case_tickets`, migration 0024) and their case timeline rows (kind
 * `ticket_linked`) from `ticket.linked`. Idempotent: keyed by link id and event position.
 */
import type { Insertable } from 'kysely';
import { TICKET_LINKED, type TicketLinked } from '../../domain/tickets/links.ts';
import { insertTimeline, timelineRow } from '../cases/timeline.ts';
import type { CaseTicketsTable, CaseTimelineTable } from '../database.ts';
import type { Projection } from '../projector.ts';

export const ticketsProjection: Projection = {
  name: 'tickets',
  apply: async (trx, batch) => {
    const links: Insertable<CaseTicketsTable>[] = [];
    const timeline: Insertable<CaseTimelineTable>[] = [];
    for (const recorded of batch) {
      if (recorded.type !== TICKET_LINKED) continue;
      const d = (recorded as unknown as TicketLinked).data;
      links.push({
        link_id: d.link_id, case_id: d.case_id, provider: d.provider, connection: d.connection, remote_id: d.remote_id, remote_key: d.remote_key,
        url: d.url, created_at: d.at, event_position: recorded.globalPosition,
      });
      timeline.push(timelineRow(recorded, d.case_id, 'ticket_linked', { link_id: d.link_id, provider: d.provider, remote_key: d.remote_key, url: d.url }));
    }
    if (links.length > 0) await trx.insertInto('case_tickets').values(links).onConflict((oc) => oc.column('link_id').doNothing()).execute();
    await insertTimeline(trx, timeline);
  },
};
