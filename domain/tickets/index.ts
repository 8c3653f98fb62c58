/** The Ticket link aggregate as a decider (docs/architecture.md "Habits" 1); one stream per link, `ticket-<link_id>`. */
import type { Decider } from '../shared/messages.ts';
import type { TicketLinkCommand } from './commands.ts';
import { decideTicketLink } from './decide.ts';
import type { TicketLinkEvent } from './events.ts';
import { evolveTicketLink, initialTicketLinkState, type TicketLinkState } from './state.ts';

export const ticketLinkDecider: Decider<TicketLinkCommand, TicketLinkEvent, TicketLinkState> = {
  initialState: initialTicketLinkState,
  evolve: evolveTicketLink,
  decide: decideTicketLink,
};

export type { LinkTicket, ReceiveTicketUpdate, RecordMirrored, TicketLinkCommand } from './commands.ts';
export type { MirrorVia, StatusSyncReason, TicketLinked, TicketLinkEvent, TicketRemoteCommentReceived, TicketRemoteStatusReceived } from './events.ts';
export { TICKET_LINKED, TICKET_REMOTE_COMMENT_RECEIVED, TICKET_REMOTE_STATUS_RECEIVED } from './events.ts';
export type { TicketLinkState } from './state.ts';
