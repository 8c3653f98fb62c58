/**
 * Opens the service database: a PostgreSQL server when `databaseUrl` is given,
 * otherwise embedded PGlite persisted in `<dataDir>/pgdata` (or in memory when
 * `dataDir` is null, for tests). Both run the same Kysely code (docs/architecture.md "Engines").
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../projections/database.ts';
import type { DatabaseLocation, OpenedDatabase } from './opened-database.ts';
import { pipelinedTransactions } from './pipelined.ts';
import { DEFAULT_POOL_IDLE_MS, DEFAULT_POOL_SIZE } from './pool-defaults.ts';

// int8 (bigserial positions, counts) as numbers on pg, as PGlite already returns them.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export type { DatabaseLocation, Engine, OpenedDatabase } from './opened-database.ts';

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
