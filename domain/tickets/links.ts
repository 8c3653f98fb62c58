/**
 * External ticket links (SPEC.md "Ticket link": a case's link to a ticket_a or ticket_b
 * ticket). Each link is its own `ticket-<link_id>` stream, so what later happens to the
 * ticket (mirrored comments, status changes, polls) never contends with the case. The
 * link's aggregate is `ticketLinkDecider` (index.ts); this module names the products.
 */

/** The ticketing products (SPEC.md neutral names). */
export const ticketProviders = ['ticket_a', 'ticket_b'] as const;
export type TicketProvider = (typeof ticketProviders)[number];
