/**
 * What openDatabase (connect.ts) takes and answers, apart from both engines' openers
 * (connect.ts for a server, connect-embedded.ts for PGlite) so neither imports the other.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { Kysely } from 'kysely';
import type { Database } from '../../projections/database.ts';
import type { TransactionRunner } from '../../projections/projector.ts';
import type { EmbeddedDataDirState } from './embedded-upgrade.ts';

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
