/**
 * The live-update bus over the database (docs/operations.md "Live updates"): messages go
 * out with `pg_notify` on LIVE_CHANNEL and come back to every listening process, this one
 * included, so several API processes on one database push the same updates. On a
 * PostgreSQL server one dedicated connection LISTENs and reconnects after a loss (frames
 * sent meanwhile are missed: clients re-read on reconnect); embedded PGlite delivers to
 * its own listeners in process.
 */
import type { PGlite } from '@electric-sql/pglite';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../../projections/database.ts';
import { LIVE_CHANNEL, type BusMessage } from '../../projections/live/messages.ts';

export type LiveBus = {
  /** NOTIFYs `message` (outside any transaction). */
  publish: (message: BusMessage) => Promise<void>;
  /** Calls `handler` with every message any process published, in arrival order. */
  subscribe: (handler: (message: BusMessage) => void) => () => void;
  close: () => Promise<void>;
};

export type LiveBusOptions = {
  db: Kysely<Database>;
  /** The embedded database, or null with `databaseUrl` set. */
  embedded: PGlite | null;
  databaseUrl: string | null;
  /** Ms before listening again after a lost server connection. */
  reconnectMs: number;
  onError: (error: unknown) => void;
};

const parse = (payload: string | undefined): BusMessage | null => {
  try {
    const m = JSON.parse(payload ?? '') as BusMessage;
    return m && (m.kind === 'frames' || m.kind === 'presence') ? m : null;
  } catch {
    return null;
  }
};

/** Starts listening; resolves once the first LISTEN is in place. */
export async function startLiveBus(options: LiveBusOptions): Promise<LiveBus> {
  const handlers = new Set<(m: BusMessage) => void>();
  const deliver = (payload: string | undefined) => {
    const message = parse(payload);
    if (message === null) return;
    for (const h of handlers) {
      try {
        h(message);
      } catch (error) {
        options.onError(error);
      }
    }
  };

  let stop: () => Promise<void>;
  if (options.embedded) {
    stop = await options.embedded.listen(LIVE_CHANNEL, deliver);
  } else {
    if (!options.databaseUrl) throw new Error('the live bus needs the embedded database or a database URL');
    const url = options.databaseUrl;
    let closed = false;
    let client: pg.Client | null = null;
    let retry: NodeJS.Timeout | null = null;
    const connect = async (): Promise<void> => {
      const c = new pg.Client({ connectionString: url });
      c.on('notification', (n) => {
        if (n.channel === LIVE_CHANNEL) deliver(n.payload);
      });
      const lost = (error?: unknown) => {
        if (error) options.onError(error);
        if (closed || client !== c) return;
        client = null;
        retry = setTimeout(() => connect().catch(lost), options.reconnectMs);
      };
      c.on('error', lost);
      c.on('end', () => lost());
      client = c;
      await c.connect();
      await c.query(`LISTEN ${LIVE_CHANNEL}`);
    };
    try {
      await connect();
    } catch (error) {
      closed = true;
      if (retry) clearTimeout(retry);
      throw error;
    }
    stop = async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    };
  }

  return {
    publish: async (message) => {
      await sql`select pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(message)})`.execute(options.db);
    },
    subscribe: (handler) => {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    close: async () => {
      handlers.clear();
      await stop();
    },
  };
}
