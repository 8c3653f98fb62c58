/**
 * Outbound ticket mirroring (SPEC.md "Ticket mirroring": local case comments and mapped
 * statuses mirror to linked tickets). Drains `ticket_outbox` (written by
 * projections/tickets/outbox.projection.ts): one `UPDATE ... FOR UPDATE SKIP LOCKED` claims
 * due rows (counting the attempt and pushing the next one back), each is sent through
 * adapters/tickets/push-client.ts and recorded on the link stream, and the row is stamped done.
 *
 * - A comment goes out as mirroredCommentText (author, text, and the `[svc-mirror:<id>]`
 *   marker the inbound side skips), once: a comment the link already recorded is not sent.
 * - A status goes out only when the connection's `config.outbound_status_map` maps the case
 *   status, and not when the ticket already shows it (the echo of an inbound change).
 * - Nothing of a private case goes out through a connection without
 *   `config.mirror_private_cases: true` (a realm admin's consent, dropped when the
 *   connection's destination moves; adapters/connections/destination.ts): the row ends with
 *   `private_case_not_mirrored`. Both are read when the row is sent, not when it was queued,
 *   so a case made private since, or a connection re-created under the name, is covered.
 * - A retryable failure waits 30 s doubling up to an hour; a final one (4xx, no
 *   transition, connection gone, private case not mirrored) or the eighth failure ends the
 *   row with `last_error` (a class, never a message).
 */
import { sql, type Kysely } from 'kysely';
import type { ResolvedConnection } from '../../adapters/actions/action.ts';
import type { OutboundFetch } from '../../adapters/actions/outbound-http.ts';
import { MIRROR_PRIVATE_CASES } from '../../adapters/connections/config-rules.ts';
import type { TicketMirror } from '../../adapters/commands/ticket-mirror.ts';
import { pushComment, pushStatus } from '../../adapters/tickets/push-client.ts';
import { ticketApi, TicketApiFailure } from '../../adapters/tickets/ticket-api.ts';
import type { TicketProvider } from '../../domain/tickets/links.ts';
import { mappedStatus, mirroredCommentText } from '../../domain/tickets/mirror.ts';
import type { Database } from '../../projections/database.ts';

/** Attempts before a row is given up. */
export const MAX_OUTBOX_ATTEMPTS = 8;
const BACKOFF_BASE_S = 30;
const BACKOFF_MAX_S = 3600;

export type TicketOutboxOptions = {
  db: Kysely<Database>;
  mirror: TicketMirror;
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
  outbound: OutboundFetch;
  now: () => Date;
  batch: number;
  timeoutMs: number;
  onError: (error: unknown) => void;
};

type Claimed = {
  link_id: string;
  event_position: number;
  kind: 'comment' | 'status';
  payload: Record<string, unknown>;
  attempts: number;
  provider: TicketProvider;
  connection: string;
  remote_id: string;
  remote_key: string;
  /** The case's privacy now; a case no longer there counts as private. */
  private: boolean;
};

/** The outbox sender; `drain` sends what is due now and resolves with how many rows it sent and how many failed. */
export function createTicketOutbox(options: TicketOutboxOptions) {
  const { db } = options;
  const claim = async (now: Date): Promise<Claimed[]> => {
    const rows = await sql<Claimed>`
      with due as (
        select o.link_id, o.event_position from ticket_outbox o
        where o.done_at is null and o.next_attempt_at <= ${now}
        order by o.event_position
        limit ${options.batch}
        for update skip locked
      )
      update ticket_outbox o
      set attempts = o.attempts + 1,
          next_attempt_at = ${now}::timestamptz + make_interval(secs => least(${BACKOFF_MAX_S}, ${BACKOFF_BASE_S} * power(2, o.attempts)))
      from due, case_tickets t
      where o.link_id = due.link_id and o.event_position = due.event_position and t.link_id = o.link_id
      returning o.link_id, o.event_position, o.kind, o.payload, o.attempts, t.provider, t.connection, t.remote_id, t.remote_key,
        coalesce((select c.private from cases c where c.id = t.case_id), true) as private`.execute(db);
    return [...rows.rows].sort((a, b) => Number(a.event_position) - Number(b.event_position));
  };

  const finish = (row: Claimed, error: string | null, done: boolean) =>
    db
      .updateTable('ticket_outbox')
      .set({ last_error: error, ...(done && { done_at: options.now() }) })
      .where('link_id', '=', row.link_id)
      .where('event_position', '=', row.event_position)
      .execute();

  const send = async (row: Claimed): Promise<void> => {
    const connection = await options.resolveConnection(row.connection);
    if (!connection) throw new TicketApiFailure('connection_missing', true);
    if (row.private && connection.config[MIRROR_PRIVATE_CASES] !== true) throw new TicketApiFailure('private_case_not_mirrored', true);
    const api = ticketApi(options.outbound, connection, row.provider, AbortSignal.timeout(options.timeoutMs));
    const state = await options.mirror.linkState(row.link_id);
    const now = () => options.now().toISOString();
    if (row.kind === 'comment') {
      const comment = row.payload as { comment_id: string; body: string; author_email: string | null };
      if (state.mirroredComments.has(comment.comment_id)) return;
      const remoteCommentId = await pushComment(api, row, mirroredCommentText(comment));
      await options.mirror.recordMirrored({ type: 'record_comment_mirrored', linkId: row.link_id, commentId: comment.comment_id, remoteCommentId, now: now() });
      return;
    }
    const localStatus = String(row.payload.local_status);
    const map = (connection.config.outbound_status_map ?? {}) as Record<string, string>;
    const remoteStatus = mappedStatus(map, localStatus);
    if (remoteStatus === null || state.remoteStatus === remoteStatus) return;
    await pushStatus(api, row, remoteStatus);
    await options.mirror.recordMirrored({ type: 'record_status_mirrored', linkId: row.link_id, localStatus, remoteStatus, now: now() });
  };

  return {
    drain: async (): Promise<{ sent: number; failed: number }> => {
      const due = await claim(options.now());
      let failed = 0;
      for (const row of due) {
        try {
          await send(row);
          await finish(row, null, true);
        } catch (error) {
          failed += 1;
          const final = error instanceof TicketApiFailure ? error.final : false;
          await finish(row, error instanceof TicketApiFailure ? error.errorClass : 'internal_error', final || row.attempts >= MAX_OUTBOX_ATTEMPTS);
          if (!(error instanceof TicketApiFailure)) options.onError(error);
        }
      }
      return { sent: due.length - failed, failed };
    },
  };
}
