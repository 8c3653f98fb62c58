/**
 * External ticket links (SPEC.md "Ticket link": a case's link to a ticket_a or ticket_b
 * ticket). Each link is its own `ticket-<link_id>` stream, so what later happens to the
 * ticket (mirrored comments, status changes, polls) never contends with the case.
 */
import type { Event } from '../shared/messages.ts';

/** The ticketing products (SPEC.md neutral names). */
export const ticketProviders = ['ticket_a', 'ticket_b'] as const;
export type TicketProvider = (typeof ticketProviders)[number];

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
