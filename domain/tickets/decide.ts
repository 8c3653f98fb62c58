/**
 * Ticket link decisions (SPEC.md "Ticket link", "Ticket mirroring"): the link is made
 * once; it takes an update's new comments and status outcome, and records what was
 * mirrored out; nothing already seen or sent is recorded twice. A command on a link
 * that was never made decides nothing.
 *
 * Errors: `ticket_link_exists` (409) for linking an existing link twice.
 */
import { conflict } from '../shared/errors.ts';
import type { LinkTicket, ReceiveTicketUpdate, TicketLinkCommand } from './commands.ts';
import type { TicketLinkEvent } from './events.ts';
import type { TicketProvider } from './links.ts';
import { newRemoteComments } from './mirror.ts';
import type { TicketLinkState } from './state.ts';

/** What a made link names of its case and product. */
type LinkedTo = { caseId: string; provider: TicketProvider };

export function decideTicketLink(command: TicketLinkCommand, state: TicketLinkState): TicketLinkEvent[] {
  if (command.type === 'link_ticket') return link(command, state);
  const { caseId, provider } = state;
  if (caseId === null || provider === null) return [];
  if (command.type === 'record_comment_mirrored') {
    if (state.mirroredComments.has(command.commentId)) return [];
    return [
      {
        type: 'ticket.comment_mirrored',
        data: { link_id: command.linkId, case_id: caseId, comment_id: command.commentId, remote_comment_id: command.remoteCommentId, at: command.now },
      },
    ];
  }
  if (command.type === 'record_status_mirrored') {
    if (state.remoteStatus === command.remoteStatus) return [];
    return [
      {
        type: 'ticket.status_mirrored',
        data: { link_id: command.linkId, case_id: caseId, local_status: command.localStatus, remote_status: command.remoteStatus, at: command.now },
      },
    ];
  }
  return receiveUpdate(command, state, { caseId, provider });
}

function link(c: LinkTicket, state: TicketLinkState): TicketLinkEvent[] {
  if (state.caseId !== null) throw conflict('ticket_link_exists', 'ticket link already exists', { link_id: c.linkId });
  return [
    {
      type: 'ticket.linked',
      data: {
        link_id: c.linkId,
        case_id: c.caseId,
        provider: c.provider,
        connection: c.connection,
        remote_id: c.remoteId,
        remote_key: c.remoteKey,
        url: c.url,
        run_id: c.runId,
        step_id: c.stepId,
        at: c.now,
      },
    },
  ];
}

function receiveUpdate(c: ReceiveTicketUpdate, state: TicketLinkState, { caseId, provider }: LinkedTo): TicketLinkEvent[] {
  const { remoteKey } = state;
  const comments: TicketLinkEvent[] = newRemoteComments(state, c.update.comments).map((comment) => ({
    type: 'ticket.remote_comment_received',
    data: {
      link_id: c.linkId,
      case_id: caseId,
      provider,
      remote_key: remoteKey,
      comment_id: c.commentIds.get(comment.id) ?? comment.id,
      remote_comment_id: comment.id,
      author: comment.author,
      text: comment.text,
      remote_created_at: comment.created_at,
      via: c.via,
      at: c.now,
    },
  }));
  const status = c.status;
  // Re-checked against the state read now: another delivery may have recorded it meanwhile.
  if (status === null || status.remoteStatus === state.remoteStatus) return comments;
  const applied = status.reason === 'applied' || status.reason === 'already_in_status';
  return [
    ...comments,
    {
      type: 'ticket.remote_status_received',
      data: {
        link_id: c.linkId,
        case_id: caseId,
        remote_status: status.remoteStatus,
        local_status: status.localStatus,
        applied,
        reason: status.reason,
        via: c.via,
        at: c.now,
      },
    },
  ];
}
