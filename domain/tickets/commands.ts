/**
 * Ticket link commands (SPEC.md "Ticket link", "Ticket mirroring"). Ids and the time come
 * in with the command (docs/architecture.md "Habits" 3); a remote status comes planned against the case
 * (`planRemoteStatus`, mirror.ts), comment ids chosen by the caller.
 */
import type { MirrorVia } from './events.ts';
import type { TicketProvider } from './links.ts';
import type { planRemoteStatus, RemoteTicketUpdate } from './mirror.ts';

/** Links a ticket a runbook step opened to the case: first on the link's new stream. */
export type LinkTicket = {
  type: 'link_ticket';
  linkId: string;
  caseId: string;
  provider: TicketProvider;
  connection: string;
  remoteId: string;
  remoteKey: string;
  url: string | null;
  runId: string | null;
  stepId: string | null;
  now: string;
};

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

export type TicketLinkCommand = LinkTicket | ReceiveTicketUpdate | RecordMirrored;
