/**
 * Opens the service database: a PostgreSQL server when `databaseUrl` is given,
 * otherwise embedded PGlite persisted in `<dataDir>/pgdata` (or in memory when
 * `dataDir` is null, for tests). Both run the same Kysely code (docs/architecture.md "Engines").
 */
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../projections/database.ts';
import type { EmbeddedDataDirState } from './embedded-upgrade.ts';
import type { TransactionRunner } from '../../projections/projector.ts';
import { pipelinedTransactions } from './pipelined.ts';
import { DEFAULT_POOL_IDLE_MS, DEFAULT_POOL_SIZE } from './pool-defaults.ts';

// int8 (bigserial positions, counts) as numbers on pg, as PGlite already returns them.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export type Engine = 'pglite' | 'postgres';

export type OpenedDatabase = {
  db: Kysely<Database>;
  engine: Engine;
  /** The embedded PGlite client (null on a server), for what only its own API offers, such as LISTEN callbacks. */
  embedded: PGlite | null;
  /** What opening found in the embedded data directory (null on a server or in memory): `upgraded` once after a PostgreSQL major upgrade. */
  dataDir: EmbeddedDataDirState | null;
  /**
   * Runs a body in one transaction whose concurrent statements share round trips: on a
   * server, on a connection of a pool of its own in pipeline mode (pipelined.ts); on
   * PGlite, which has no round trips, a plain Kysely transaction.
   */
  pipelinedTransaction: TransactionRunner;
  close: () => Promise<void>;
};

/**
 * Where the database is. On a server, `onConnectionLost` hears of a pooled connection the
 * server ended (a restart, `pg_terminate_backend`, `idle_session_timeout`), idle or in use:
 * the query in flight on it fails, the pool drops it and the next query opens another.
 * `poolSize` connections at most (default `DEFAULT_POOL_SIZE`); an idle one is closed after
 * `poolIdleMs`, and never when it is 0 (the default). An in-memory PGlite (`dataDir` null)
 * starts from `image` when given: a data directory as PGlite's `dumpDataDir` writes it (a
 * tar), which skips initdb. A data directory's engine keeps `sharedBuffers` (PostgreSQL's
 * `shared_buffers`, such as `32MB`) of buffer cache in its WebAssembly memory; PGlite's own default is 128MB.
 */
export type DatabaseLocation =
  | { databaseUrl: string; poolSize?: number; poolIdleMs?: number; onConnectionLost?: (error: Error) => void }
  | { dataDir: string; sharedBuffers?: string }
  | { dataDir: null; image?: Blob };

/** Opens (and creates, for PGlite) the database at `location`. */
export async function openDatabase(location: DatabaseLocation): Promise<OpenedDatabase> {
  if ('databaseUrl' in location) {
    // A pool that closes its idle connections (pg-pool's default: after 10 s) opens them again
    // when the next burst comes, such as an alert storm after a quiet spell: each new server
    // backend starts with empty catalog caches, and its first plan of each table costs a
    // few ms against a few hundredths warm (bench/runbook-engine.ts header).
    const poolOptions = {
      connectionString: location.databaseUrl,
      idleTimeoutMillis: location.poolIdleMs ?? DEFAULT_POOL_IDLE_MS,
    };
    const pool = new pg.Pool({ ...poolOptions, max: location.poolSize ?? DEFAULT_POOL_SIZE });
    // The projector's pool: one connection serves its batches, which run one at a time.
    const pipelinedPool = new pg.Pool({ ...poolOptions, max: 1, pipeline: true });
    // A connection's end is an 'error' event on its client, idle or checked out; pg-pool listens
    // only while it is idle (and re-emits it on the pool), so without a listener of our own on
    // each client an end during a query is an unhandled 'error' event that ends the process.
    const lost = location.onConnectionLost ?? (() => {});
    for (const p of [pool, pipelinedPool]) {
      p.on('connect', (client) => client.on('error', lost));
      p.on('error', () => {});
    }
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const close = async () => {
      await db.destroy();
      await pipelinedPool.end();
    };
    return { db, engine: 'postgres', embedded: null, dataDir: null, pipelinedTransaction: pipelinedTransactions(pipelinedPool), close };
  }
  // PGlite (half a megabyte of JavaScript before its WebAssembly) loads only for the embedded engine: a restart on a server skips it.
  const { openEmbedded } = await import('./connect-embedded.ts');
  return openEmbedded(location);
}
