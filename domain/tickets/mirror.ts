/**
 * Ticket mirroring (SPEC.md "Webhook intake" ticket sources, "Ticket mirroring"): what a
 * ticket's update (a webhook delivery or a poll) changes on the linked case. The link's
 * decider (index.ts) records it; this module holds the status mapping, the comment
 * de-duplication and the mirror marker it shares with the adapters.
 *
 * - A remote comment is taken once per link, matched on the provider's comment id, and
 *   becomes a case comment (`ticket.remote_comment_received`). A comment carrying our
 *   mirror marker is our own echo and is skipped.
 * - A remote status is taken once per change: the link remembers the last remote status it
 *   saw or set, so a repeat (or the echo of a status we mirrored out) changes nothing. A new
 *   one is mapped through the connection's `inbound_status_map` onto a case status; when it
 *   cannot be applied the link records why (`ticket.remote_status_received` with `applied:
 *   false`), and the caller audits it and reports it as `ticket_status_sync`.
 * - A polled status is a reading taken at one moment: it is stale, and dropped until the next
 *   poll, when the link or its case recorded a status after the reading, or when a case
 *   status of ours is still on its way to the ticket (polledStatusIsCurrent).
 * - Outbound, a case comment posted to the ticket and a case status set on it are recorded
 *   (`ticket.comment_mirrored`, `ticket.status_mirrored`), so neither is sent twice.
 */
import type { StatusSyncReason } from './events.ts';
import type { TicketProvider } from './links.ts';
import type { TicketLinkState } from './state.ts';

/** A ticket update in the products' neutral shape (adapters/webhook-sources/ticket-events.ts, adapters/tickets/poll-client.ts). */
export type RemoteTicketUpdate = {
  provider: TicketProvider;
  remote_id: string;
  remote_key: string | null;
  status: string | null;
  comments: { id: string; text: string; author: string | null; created_at: string | null }[];
};

const MARKER = /\[svc-mirror:[0-9a-f-]{36}\]/;

/** The marker an outbound mirrored comment carries, so its echo is recognised (`commentId`: the case comment's id). */
export const mirrorMarker = (commentId: string) => `[svc-mirror:${commentId}]`;

/** Whether `text` is one of our own mirrored comments coming back. */
export const isMirrorEcho = (text: string) => MARKER.test(text);

/** `status` through a status map (inbound or outbound), or null when the map does not name it. */
export const mappedStatus = (map: Readonly<Record<string, string>>, status: string): string | null =>
  Object.hasOwn(map, status) ? (map[status] ?? null) : null;

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
  if (theCase.closedStatuses.includes(theCase.status) && !theCase.closedStatuses.includes(mapped))
    return { remoteStatus, localStatus: mapped, reason: 'case_closed' };
  return { remoteStatus, localStatus: mapped, reason: 'applied' };
}

/**
 * Whether a polled remote status may be taken as the ticket's current status. The poll read
 * the ticket once the store's head was at `observedAt` (a global position) and every
 * projection had caught up to it; `statusPositions` are the global positions of the link's
 * and its case's status events, and `pushPending` whether a case status is still queued for
 * this ticket. Otherwise a reading taken just before a local status change or our own push
 * would look like a new remote change and undo it.
 */
export function polledStatusIsCurrent(observedAt: number, statusPositions: readonly number[], pushPending: boolean): boolean {
  return !pushPending && statusPositions.every((position) => position <= observedAt);
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

/** A case comment as it is posted to a ticket: who wrote it, the text, and the marker that makes its echo recognisable. */
export function mirroredCommentText(comment: { comment_id: string; body: string; author_email: string | null }): string {
  return `${comment.author_email ?? 'svc'} commented in svc:\n${comment.body}\n\n${mirrorMarker(comment.comment_id)}`;
}
