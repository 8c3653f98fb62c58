/**
 * Ticket link state rebuilt from its stream: what the link's commands decide against, so
 * nothing already seen or sent is recorded twice.
 */
import type { TicketLinkEvent } from './events.ts';
import type { TicketProvider } from './links.ts';

export type TicketLinkState = {
  /** Null until `ticket.linked`. */
  caseId: string | null;
  provider: TicketProvider | null;
  remoteKey: string;
  /** The ticket's status as last seen or set by us. */
  remoteStatus: string | null;
  /** Remote comment ids taken into the case. */
  seenComments: ReadonlySet<string>;
  /** Case comment ids posted to the ticket. */
  mirroredComments: ReadonlySet<string>;
};

export const initialTicketLinkState = (): TicketLinkState => ({
  caseId: null,
  provider: null,
  remoteKey: '',
  remoteStatus: null,
  seenComments: new Set(),
  mirroredComments: new Set(),
});

export function evolveTicketLink(state: TicketLinkState, event: TicketLinkEvent): TicketLinkState {
  switch (event.type) {
    case 'ticket.linked':
      return { ...state, caseId: event.data.case_id, provider: event.data.provider, remoteKey: event.data.remote_key };
    case 'ticket.remote_comment_received':
      return { ...state, seenComments: new Set([...state.seenComments, event.data.remote_comment_id]) };
    case 'ticket.remote_status_received':
      return { ...state, remoteStatus: event.data.remote_status };
    case 'ticket.comment_mirrored':
      return { ...state, mirroredComments: new Set([...state.mirroredComments, event.data.comment_id]) };
    case 'ticket.status_mirrored':
      // The ticket now shows this status: its echo coming back is not a change.
      return { ...state, remoteStatus: event.data.remote_status };
  }
}
