/**
 * Applying a ticket's update to the cases linked to it (SPEC.md "Webhook intake" ticket
 * sources, "Ticket mirroring"; domain/tickets/mirror.ts). Used by the ticket webhook
 * sources and by the poller alike.
 *
 * For each link of the ticket: a new remote status mapped through the link connection's
 * `config.inbound_status_map` changes the case status first (a repeat is harmless: the case
 * decider ignores an unchanged status), then the link records the new comments and the
 * status outcome in one append, together with a `ticket.status_sync` audit entry when the
 * status could not be applied. A crash between the two steps leaves the status unrecorded,
 * so the next delivery or poll applies it again.
 *
 * A poll passes the store position it read the ticket at; its status is then taken only when
 * nothing newer is known of the link's or case's status (domain/tickets/mirror.ts
 * polledStatusIsCurrent), and its comments are taken either way.
 */
import { DomainError } from '../../domain/shared/errors.ts';
import type { Kysely } from 'kysely';
import * as v from 'valibot';
import type { AuditActor } from '../../domain/audit/events.ts';
import { streams } from '../../domain/shared/streams.ts';
import { fold, systemMetadata, type RecordedEvent } from '../../domain/shared/messages.ts';
import { ticketLinkDecider, type MirrorVia, type RecordMirrored, type StatusSyncReason, type TicketLinkState } from '../../domain/tickets/index.ts';
import { planRemoteStatus, polledStatusIsCurrent, type RemoteTicketUpdate } from '../../domain/tickets/mirror.ts';
import type { Database } from '../../projections/database.ts';
import type { EventStore } from '../event-store/port.ts';
import { decideAndAppend } from './aggregate.ts';
import type { AuditLog } from './audit.ts';
import type { CaseConfig } from './case-config.ts';
import type { CaseCommands } from './cases.ts';

/** What one update did to the ticket's links: how many, and the comments and status changes taken in. */
export const ticketUpdateSchema = v.strictObject({
  provider: v.string(),
  remote_id: v.string(),
  links: v.number(),
  comments_ingested: v.number(),
  status_changes: v.number(),
});

/** A status change that was not applied, and why. */
const statusSyncSchema = v.strictObject({
  link_id: v.string(),
  case_id: v.string(),
  remote_status: v.string(),
  local_status: v.nullable(v.string()),
  applied: v.literal(false),
  reason: v.picklist([
    'applied',
    'already_in_status',
    'unmapped_status',
    'unknown_local_status',
    'case_closed',
    'custom_field_required',
    'case_already_merged',
  ] satisfies StatusSyncReason[]),
});

/** What one update did; `ticket_status_sync` lists the refused status changes (SPEC.md "Errors": reported in the 202). */
export const ticketUpdateResultSchema = v.strictObject({ ticket: ticketUpdateSchema, ticket_status_sync: v.array(statusSyncSchema) });

export type TicketUpdateResult = v.InferOutput<typeof ticketUpdateResultSchema>;

export type TicketMirrorDeps = {
  store: EventStore;
  db: Kysely<Database>;
  cases: CaseCommands;
  audit: AuditLog;
  caseConfig: CaseConfig;
  /** The `inbound_status_map` of the named ticket connection ({} when it has none or is gone). */
  inboundStatusMap: (connection: string) => Promise<Record<string, string>>;
  ids: () => string;
  now: () => Date;
};

export type TicketMirror = ReturnType<typeof createTicketMirror>;

const STATUS_EVENTS: ReadonlySet<string> = new Set(['ticket.remote_status_received', 'ticket.status_mirrored', 'case.status_changed']);

export function createTicketMirror(deps: TicketMirrorDeps) {
  const linkState = async (linkId: string): Promise<TicketLinkState> => fold(ticketLinkDecider, await deps.store.readStream(streams.ticket(linkId)));

  /** Whether a status polled at `observedAt` is still the news for this link (see polledStatusIsCurrent), given the link's history. */
  const pollIsCurrent = async (link: { link_id: string; case_id: string }, linkEvents: RecordedEvent[], observedAt: number): Promise<boolean> => {
    const [caseEvents, pending] = await Promise.all([
      deps.store.readStream(streams.case(link.case_id)),
      deps.db
        .selectFrom('ticket_outbox')
        .select('event_position')
        .where('link_id', '=', link.link_id)
        .where('kind', '=', 'status')
        .where('done_at', 'is', null)
        .limit(1)
        .executeTakeFirst(),
    ]);
    const positions = [...linkEvents, ...caseEvents].filter((e) => STATUS_EVENTS.has(e.type)).map((e) => e.globalPosition);
    return polledStatusIsCurrent(observedAt, positions, pending !== undefined);
  };
  return {
    /** The link's state from its stream (what was taken in and sent out). */
    linkState,

    /** Records that a case comment or status reached the ticket (nothing when already recorded); the position written, or null. */
    recordMirrored: async (command: RecordMirrored): Promise<number | null> =>
      (await decideAndAppend(deps.store, streams.ticket(command.linkId), ticketLinkDecider, () => command, systemMetadata)).position,

    /**
     * Applies `update` to every link of its ticket; `actor` is who delivered it (the webhook
     * source, or the system for a poll); `observedAt` is the store position a poll read the
     * ticket at. Resolves with the result and the last position written.
     */
    async apply(
      update: RemoteTicketUpdate,
      via: MirrorVia,
      actor: AuditActor,
      observedAt?: number,
    ): Promise<{ result: TicketUpdateResult; position: number | null }> {
      const links = await deps.db
        .selectFrom('case_tickets as t')
        .innerJoin('cases as c', 'c.id', 't.case_id')
        .select(['t.link_id', 't.case_id', 't.connection', 't.remote_key', 'c.status'])
        .where('t.provider', '=', update.provider)
        .where('t.remote_id', '=', update.remote_id)
        .orderBy('t.created_at')
        .execute();
      const result: TicketUpdateResult = {
        ticket: { provider: update.provider, remote_id: update.remote_id, links: links.length, comments_ingested: 0, status_changes: 0 },
        ticket_status_sync: [],
      };
      let position: number | null = null;
      for (const link of links) {
        const history = await deps.store.readStream(streams.ticket(link.link_id));
        const state = fold(ticketLinkDecider, history);
        const current = observedAt === undefined || (await pollIsCurrent(link, history, observedAt));
        const status = current
          ? planRemoteStatus(state, update.status, await deps.inboundStatusMap(link.connection), {
              status: link.status,
              statuses: deps.caseConfig.statuses,
              closedStatuses: [...deps.caseConfig.closedStatuses],
            })
          : null;
        let planned = status;
        if (status?.reason === 'applied' && status.localStatus !== null) {
          try {
            const changed = await deps.cases.changeStatus(
              link.case_id,
              status.localStatus,
              `${update.provider} ${link.remote_key} is now ${status.remoteStatus}`,
              { userId: null, email: null },
              link.link_id,
            );
            position = changed.position ?? position;
          } catch (error) {
            // The case refused the status for a reason of its own: recorded and audited like a mapping refusal, not a failed delivery.
            if (!(error instanceof DomainError) || (error.code !== 'custom_field_required' && error.code !== 'case_already_merged')) throw error;
            planned = { ...status, reason: error.code };
          }
        }
        const commentIds = new Map(update.comments.map((c) => [c.id, deps.ids()]));
        const decided = await decideAndAppend(
          deps.store,
          streams.ticket(link.link_id),
          ticketLinkDecider,
          () => ({ type: 'receive_update' as const, linkId: link.link_id, update, status: planned, commentIds, via, now: deps.now().toISOString() }),
          { actor: { id: actor.id, email: actor.email, kind: actor.kind } },
          (events) =>
            events.flatMap((e) =>
              e.type === 'ticket.remote_status_received' && !e.data.applied
                ? [
                    deps.audit.write({
                      action: 'ticket.status_sync',
                      actor,
                      target: { type: 'ticket_link', id: link.link_id },
                      team: null,
                      detail: {
                        case_id: e.data.case_id,
                        provider: update.provider,
                        remote_key: link.remote_key,
                        remote_status: e.data.remote_status,
                        local_status: e.data.local_status,
                        reason: e.data.reason,
                        via,
                      },
                    }),
                  ]
                : [],
            ),
        );
        position = decided.position ?? position;
        for (const e of decided.events) {
          if (e.type === 'ticket.remote_comment_received') result.ticket.comments_ingested += 1;
          if (e.type !== 'ticket.remote_status_received') continue;
          if (e.data.applied) result.ticket.status_changes += 1;
          else
            result.ticket_status_sync.push({
              link_id: link.link_id,
              case_id: e.data.case_id,
              remote_status: e.data.remote_status,
              local_status: e.data.local_status,
              applied: false,
              reason: e.data.reason,
            });
        }
      }
      return { result, position };
    },
  };
}
