/**
 * Inbound ticket mirroring (SPEC.md "Webhook intake" ticket sources, "Ticket mirroring"):
 * what a ticket's update (a webhook delivery or a poll) changes on the linked case.
 *
 * - A remote comment is taken once per link, matched on the provider's comment id, and
 *   becomes a case comment (`ticket.remote_comment_received`). A comment carrying our
 *   mirror marker is our own echo and is skipped.
 * - A remote status is taken once per change: the link remembers the last remote status it
 *   saw or set, so a repeat (or the echo of a status we mirrored out) changes nothing. A new
 *   one is mapped through the connection's `inbound_status_map` onto a case status; when it
 *   cannot be applied the link records why (`ticket.remote_status_received` with `applied:
 *   false`), and the caller audits it and reports it as `ticket_status_sync`.
 * - Outbound, a case comment posted to the ticket and a case status set on it are recorded
 *   (`ticket.comment_mirrored`, `ticket.status_mirrored`), so neither is sent twice.
 */
import type { Event } from '../shared/messages.ts';
import type { TicketLinked, TicketProvider } from './links.ts';

/** How an update reached us. */
export type MirrorVia = 'webhook' | 'poll';

/** A remote comment taken into the case. `comment_id` is the case comment's id (ours). */
export type TicketRemoteCommentReceived = Event<
  'ticket.remote_comment_received',
  {
    link_id: string;
    case_id: string;
    provider: TicketProvider;
    remote_key: string;
    comment_id: string;
    remote_comment_id: string;
    author: string | null;
    text: string;
    remote_created_at: string | null;
    via: MirrorVia;
    at: string;
  }
>;
export const TICKET_REMOTE_COMMENT_RECEIVED = 'ticket.remote_comment_received';

/** Why a remote status did or did not change the case. */
export type StatusSyncReason = 'applied' | 'already_in_status' | 'unmapped_status' | 'unknown_local_status' | 'case_closed';

/** A remote status change seen on the ticket, and what it did to the case. */
export type TicketRemoteStatusReceived = Event<
  'ticket.remote_status_received',
  { link_id: string; case_id: string; remote_status: string; local_status: string | null; applied: boolean; reason: StatusSyncReason; via: MirrorVia; at: string }
>;
export const TICKET_REMOTE_STATUS_RECEIVED = 'ticket.remote_status_received';

/** A case comment posted to the ticket (outbound mirroring); `remote_comment_id` when the product names it. */
export type TicketCommentMirrored = Event<'ticket.comment_mirrored', { link_id: string; case_id: string; comment_id: string; remote_comment_id: string | null; at: string }>;
/** A case status set on the ticket (outbound mirroring), as the ticket's own status. */
export type TicketStatusMirrored = Event<'ticket.status_mirrored', { link_id: string; case_id: string; local_status: string; remote_status: string; at: string }>;

export type TicketLinkEvent = TicketLinked | TicketRemoteCommentReceived | TicketRemoteStatusReceived | TicketCommentMirrored | TicketStatusMirrored;

/** A ticket update in the products' neutral shape (adapters/webhook-sources/ticket-events.ts, adapters/tickets/poll-client.ts). */
export type RemoteTicketUpdate = {
  provider: TicketProvider;
  remote_id: string;
  remote_key: string | null;
  status: string | null;
  comments: { id: string; text: string; author: string | null; created_at: string | null }[];
};

export type TicketLinkState = {
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

export const initialTicketLinkState = (): TicketLinkState => ({ caseId: null, provider: null, remoteKey: '', remoteStatus: null, seenComments: new Set(), mirroredComments: new Set() });

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

const MARKER = /\[svc-mirror:[0-9a-f-]{36}\]/;

/** The marker an outbound mirrored comment carries, so its echo is recognised (`commentId`: the case comment's id). */
export const mirrorMarker = (commentId: string) => `[svc-mirror:${commentId}]`;

/** Whether `text` is one of our own mirrored comments coming back. */
export const isMirrorEcho = (text: string) => MARKER.test(text);

/** `status` through a status map (inbound or outbound), or null when the map does not name it. */
export const mappedStatus = (map: Readonly<Record<string, string>>, status: string): string | null => (Object.hasOwn(map, status) ? map[status]! : null);

/** What the case looks like to the status mapping. */
export type CaseStatusView = { status: string; statuses: readonly string[]; closedStatuses: readonly string[] };

/** The outcome of a remote status for a case, before it is applied; null when the status is not new. */
export function planRemoteStatus(
  state: TicketLinkState,
  remoteStatus: string | null,
  inboundStatusMap: Readonly<Record<string, string>>,
  theCase: CaseStatusView,
): { remoteStatus: string; localStatus: string | null; reason: StatusSyncReason } | null {
  if (remoteStatus === null || remoteStatus === state.remoteStatus) return null;
  const mapped = mappedStatus(inboundStatusMap, remoteStatus);
  if (mapped === null) return { remoteStatus, localStatus: null, reason: 'unmapped_status' };
  if (!theCase.statuses.includes(mapped)) return { remoteStatus, localStatus: mapped, reason: 'unknown_local_status' };
  if (mapped === theCase.status) return { remoteStatus, localStatus: mapped, reason: 'already_in_status' };
  // A ticket may close a case or move it between closed statuses, but never reopen it.
  if (theCase.closedStatuses.includes(theCase.status) && !theCase.closedStatuses.includes(mapped)) return { remoteStatus, localStatus: mapped, reason: 'case_closed' };
  return { remoteStatus, localStatus: mapped, reason: 'applied' };
}

/** The remote comments not yet taken on this link, in the order given, without our own echoes. */
export function newRemoteComments(state: TicketLinkState, comments: RemoteTicketUpdate['comments']): RemoteTicketUpdate['comments'] {
  const seen = new Set(state.seenComments);
  return comments.filter((c) => {
    if (seen.has(c.id) || isMirrorEcho(c.text)) return false;
    seen.add(c.id);
    return true;
  });
}

/** Takes a ticket update into the link: planned status outcome, comment ids chosen by the caller. */
export type ReceiveTicketUpdate = {
  type: 'receive_update';
  linkId: string;
  update: RemoteTicketUpdate;
  status: ReturnType<typeof planRemoteStatus>;
  /** Our case comment id for each remote comment id. */
  commentIds: ReadonlyMap<string, string>;
  via: MirrorVia;
  now: string;
};

/** Records that a case comment or status reached the ticket (outbound mirroring). */
export type RecordMirrored =
  | { type: 'record_comment_mirrored'; linkId: string; commentId: string; remoteCommentId: string | null; now: string }
  | { type: 'record_status_mirrored'; linkId: string; localStatus: string; remoteStatus: string; now: string };

export type TicketLinkCommand = ReceiveTicketUpdate | RecordMirrored;

/**
 * The link's decider: takes an update's new comments and status outcome, and records what
 * was mirrored out; nothing already seen or sent is recorded twice.
 */
export const ticketLinkDecider = {
  initialState: initialTicketLinkState,
  evolve: evolveTicketLink,
  decide(command: TicketLinkCommand, state: TicketLinkState): TicketLinkEvent[] {
    if (state.caseId === null || state.provider === null) return [];
    if (command.type === 'record_comment_mirrored') {
      if (state.mirroredComments.has(command.commentId)) return [];
      return [{ type: 'ticket.comment_mirrored', data: { link_id: command.linkId, case_id: state.caseId, comment_id: command.commentId, remote_comment_id: command.remoteCommentId, at: command.now } }];
    }
    if (command.type === 'record_status_mirrored') {
      if (state.remoteStatus === command.remoteStatus) return [];
      return [{ type: 'ticket.status_mirrored', data: { link_id: command.linkId, case_id: state.caseId, local_status: command.localStatus, remote_status: command.remoteStatus, at: command.now } }];
    }
    const { caseId, provider, remoteKey } = state;
    const comments: TicketLinkEvent[] = newRemoteComments(state, command.update.comments).map((c) => ({
      type: 'ticket.remote_comment_received',
      data: {
        link_id: command.linkId,
        case_id: caseId,
        provider,
        remote_key: remoteKey,
        comment_id: command.commentIds.get(c.id) ?? c.id,
        remote_comment_id: c.id,
        author: c.author,
        text: c.text,
        remote_created_at: c.created_at,
        via: command.via,
        at: command.now,
      },
    }));
    const status = command.status;
    // Re-checked against the state read now: another delivery may have recorded it meanwhile.
    if (status === null || status.remoteStatus === state.remoteStatus) return comments;
    const applied = status.reason === 'applied' || status.reason === 'already_in_status';
    return [
      ...comments,
      {
        type: 'ticket.remote_status_received',
        data: { link_id: command.linkId, case_id: caseId, remote_status: status.remoteStatus, local_status: status.localStatus, applied, reason: status.reason, via: command.via, at: command.now },
      },
    ];
  },
};

/** A case comment as it is posted to a ticket: who wrote it, the text, and the marker that makes its echo recognisable. */
export function mirroredCommentText(comment: { comment_id: string; body: string; author_email: string | null }): string {
  return `${comment.author_email ?? 'svc'} commented in svc:\n${comment.body}\n\n${mirrorMarker(comment.comment_id)}`;
}
