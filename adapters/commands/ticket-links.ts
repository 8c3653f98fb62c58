/**
 * Recording ticket links (domain/tickets/links.ts): one `ticket.linked` event opens the
 * link's own stream, so the same link id can never be recorded twice.
 */
import { streams } from '../../domain/shared/streams.ts';
import { TICKET_LINKED, type TicketLinked } from '../../domain/tickets/links.ts';
import type { EventStore } from '../event-store/port.ts';

export type TicketLinkInput = Omit<TicketLinked['data'], 'at'>;

/** Appends the link; resolves with its global position; rejects with StreamVersionConflict for a link id already used. */
export function createTicketLinks(deps: { store: EventStore; now: () => Date }) {
  return {
    link: async (link: TicketLinkInput, actorEmail: string): Promise<number> => {
      const event: TicketLinked = { type: TICKET_LINKED, data: { ...link, at: deps.now().toISOString() } };
      const appended = await deps.store.append(streams.ticket(link.link_id), [{ ...event, metadata: { actor: { id: null, email: actorEmail, kind: 'system' } } }], 0);
      return appended.lastPosition;
    },
  };
}
