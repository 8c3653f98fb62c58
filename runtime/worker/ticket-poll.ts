/**
 * Ticket polling (SPEC.md "Ticket mirroring": when webhooks do not arrive the worker polls
 * each link on a non-closed case every `config.poll_interval_s`; a failed poll is stored as
 * `last_poll_error` and retried next interval).
 *
 * Every tick one `UPDATE ... FOR UPDATE SKIP LOCKED` claims up to `batch` due links (their
 * `last_polled_at` is set as they are claimed, so two workers never poll one link in one
 * interval), then each is read through adapters/tickets/poll-client.ts and applied like a
 * webhook delivery (adapters/commands/ticket-mirror.ts). Before the read the poller notes the
 * store's head and waits for the projections to reach it, so the mirror can tell a reading
 * older than a local status change, or than our own push still in the outbox, and drop it. `last_poll_error` is a class, never
 * a message; a success clears it. These two columns of `case_tickets` belong to the poller:
 * the projection never writes them.
 */
import { sql, type Kysely } from 'kysely';
import type { OutboundFetch } from '../../adapters/actions/outbound-http.ts';
import type { ResolvedConnection } from '../../adapters/actions/action.ts';
import type { TicketMirror } from '../../adapters/commands/ticket-mirror.ts';
import { systemActor } from '../../adapters/commands/audit.ts';
import { pollTicket } from '../../adapters/tickets/poll-client.ts';
import { TicketApiFailure } from '../../adapters/tickets/ticket-api.ts';
import type { TicketProvider } from '../../domain/tickets/links.ts';
import { TICKET_POLL_INTERVAL } from '../../adapters/connections/config-rules.ts';
import type { Database } from '../../projections/database.ts';

export type TicketPollerOptions = {
  db: Kysely<Database>;
  mirror: TicketMirror;
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
  outbound: OutboundFetch;
  closedStatuses: readonly string[];
  now: () => Date;
  /** The store's head position now (EventStore.headPosition). */
  headPosition: () => Promise<number>;
  /** Resolves once the projections have applied `position` (Projector.waitFor). */
  waitFor: (position: number) => Promise<void>;
  /** Links claimed per tick. */
  batch: number;
  /** Longest one poll may take, ms. */
  timeoutMs: number;
  onError: (error: unknown) => void;
};

type Due = { link_id: string; provider: TicketProvider; connection: string; remote_id: string; remote_key: string };

const SYSTEM = systemActor('ticket_poll');

/** The poller; `tick` polls what is due now and resolves with how many links it polled and how many failed. */
export function createTicketPoller(options: TicketPollerOptions) {
  const claim = async (now: Date): Promise<Due[]> => {
    const closed = options.closedStatuses.length === 0 ? [''] : [...options.closedStatuses];
    const result = await sql<Due>`
      update case_tickets set last_polled_at = ${now}
      where link_id in (
        select t.link_id from case_tickets t
        join cases c on c.id = t.case_id
        left join connections k on k.name = t.connection
        where c.status not in (${sql.join(closed)})
          and (t.last_polled_at is null
               or t.last_polled_at <= ${now}::timestamptz - make_interval(secs => coalesce((k.config->>'poll_interval_s')::int, ${TICKET_POLL_INTERVAL.default})))
        order by t.last_polled_at nulls first, t.link_id
        limit ${options.batch}
        for update of t skip locked
      )
      returning link_id, provider, connection, remote_id, remote_key`.execute(options.db);
    return result.rows;
  };

  const record = (linkId: string, error: string | null) =>
    options.db.updateTable('case_tickets').set({ last_poll_error: error }).where('link_id', '=', linkId).execute();

  const pollOne = async (link: Due): Promise<boolean> => {
    try {
      const connection = await options.resolveConnection(link.connection);
      if (!connection) throw new TicketApiFailure('connection_missing', true);
      const observedAt = await options.headPosition();
      await options.waitFor(observedAt);
      const update = await pollTicket(options.outbound, connection, link, AbortSignal.timeout(options.timeoutMs));
      // Applied like a webhook delivery, to every link of the ticket (each takes it once), under the id the link knows.
      await options.mirror.apply({ ...update, provider: link.provider, remote_id: link.remote_id }, 'poll', SYSTEM, observedAt);
      await record(link.link_id, null);
      return true;
    } catch (error) {
      await record(link.link_id, error instanceof TicketApiFailure ? error.errorClass : 'internal_error');
      if (!(error instanceof TicketApiFailure)) options.onError(error);
      return false;
    }
  };

  return {
    tick: async (): Promise<{ polled: number; failed: number }> => {
      const due = await claim(options.now());
      let failed = 0;
      for (const link of due) if (!(await pollOne(link))) failed += 1;
      return { polled: due.length, failed };
    },
  };
}

/**
 * Runs `passes` one after the other every `intervalMs` until stopped (the outbox drain, then
 * the poll); a failing pass is reported and the others still run.
 */
export function startTicketLoop(passes: (() => Promise<unknown>)[], intervalMs: number, onError: (error: unknown) => void) {
  const once = async () => {
    for (const pass of passes) await pass().catch(onError);
  };
  let running: Promise<unknown> = once();
  const timer = setInterval(() => {
    running = running.then(once);
  }, intervalMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
