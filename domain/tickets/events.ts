/**
 * Ticket link events (SPEC.md "Ticket link", "Ticket mirroring"): the link itself, what a
 * ticket's update brought into the case, and what was mirrored out to the ticket.
 */
import type { Event } from '../shared/messages.ts';
import type { TicketProvider } from './links.ts';

/** A ticket created for a case by a runbook step and linked to it. */
export type TicketLinked = Event<
  'ticket.linked',
  {
    link_id: string;
    case_id: string;
    provider: TicketProvider;
    connection: string;
    /** The provider's own id (Jira issue id, ServiceNow sys_id). */
    remote_id: string;
    /** The people-facing key (Jira `ED-1`, ServiceNow `INC0010002`). */
    remote_key: string;
    /** Where a person opens the ticket, when the provider gave one. */
    url: string | null;
    run_id: string | null;
    step_id: string | null;
    at: string;
  }
>;
export const TICKET_LINKED = 'ticket.linked';

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

/**
 * Why a remote status did or did not change the case; `custom_field_required` and
 * `case_already_merged` are the case's own refusals of the mapped status (a required
 * custom field without a value, a case merged into another).
 */
export type StatusSyncReason =
  | 'applied'
  | 'already_in_status'
  | 'unmapped_status'
  | 'unknown_local_status'
  | 'case_closed'
  | 'custom_field_required'
  | 'case_already_merged';

/** A remote status change seen on the ticket, and what it did to the case. */
export type TicketRemoteStatusReceived = Event<
  'ticket.remote_status_received',
  {
    link_id: string;
    case_id: string;
    remote_status: string;
    local_status: string | null;
    applied: boolean;
    reason: StatusSyncReason;
    via: MirrorVia;
    at: string;
  }
>;
export const TICKET_REMOTE_STATUS_RECEIVED = 'ticket.remote_status_received';

/** A case comment posted to the ticket (outbound mirroring); `remote_comment_id` when the product names it. */
export type TicketCommentMirrored = Event<
  'ticket.comment_mirrored',
  { link_id: string; case_id: string; comment_id: string; remote_comment_id: string | null; at: string }
>;
/** A case status set on the ticket (outbound mirroring), as the ticket's own status. */
export type TicketStatusMirrored = Event<
  'ticket.status_mirrored',
  { link_id: string; case_id: string; local_status: string; remote_status: string; at: string }
>;

export type TicketLinkEvent = TicketLinked | TicketRemoteCommentReceived | TicketRemoteStatusReceived | TicketCommentMirrored | TicketStatusMirrored;
