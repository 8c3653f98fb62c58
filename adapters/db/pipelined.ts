/**
 * Transactions whose statements travel together: on a PostgreSQL server, a statement is
 * written to the connection as soon as it is issued, without waiting for the answer to the
 * one before (node-postgres' pipeline mode), so statements issued concurrently inside the
 * body share one round trip. The server still runs them one after the other, in the order
 * they were issued. Used by the projector (projections/projector.ts), whose batch is the
 * serial stage every intake request and step transition waits for: each of its round trips
 * also waits for the service's event loop (bench/alert-intake.ts header).
 *
 * Kysely runs a transaction's statements one at a time (its single-connection provider
 * waits for each), so the body gets a Kysely of its own over the checked-out connection.
 * A body must not leave statements running when it settles: once it has, the transaction
 * commits, or rolls back if it threw, and whatever was still in flight would run outside it.
 */
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import type { Database } from '../../projections/database.ts';
import type { TransactionRunner } from '../../projections/projector.ts';

const affectsRows = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** A Kysely connection over `client` that sends each statement at once (the client is in pipeline mode). */
function pipelinedConnection(client: pg.PoolClient): DatabaseConnection {
  return {
    executeQuery: async <R>(compiled: CompiledQuery): Promise<QueryResult<R>> => {
      const result = await client.query<R & pg.QueryResultRow>(compiled.sql, [...compiled.parameters]);
      return affectsRows.has(result.command) ? { rows: result.rows, numAffectedRows: BigInt(result.rowCount ?? 0) } : { rows: result.rows };
    },
    streamQuery: () => {
      throw new Error('streaming is not supported in a pipelined transaction');
    },
  };
}

/** A Kysely whose every statement goes to `client` concurrently; transaction control stays with the runner. */
function kyselyOver(client: pg.PoolClient): Kysely<Database> {
  const connection = pipelinedConnection(client);
  const nested = () => Promise.reject(new Error('a pipelined transaction cannot open another'));
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: (_c: DatabaseConnection, _s: TransactionSettings) => nested(),
    commitTransaction: nested,
    rollbackTransaction: nested,
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createQueryCompiler: () => new PostgresQueryCompiler(),
      createIntrospector: (db) => new PostgresIntrospector(db),
    },
  });
}

/**
 * Transactions on connections of `pool`, whose clients must be in pipeline mode
 * (`new pg.Pool({ pipeline: true })`). BEGIN travels with the body's first statements.
 * A connection whose rollback failed is destroyed rather than returned to the pool.
 */
export function pipelinedTransactions(pool: pg.Pool): TransactionRunner {
  // One Kysely a connection, built at its first batch: the pool keeps its connections.
  const kyselys = new WeakMap<pg.PoolClient, Kysely<Database>>();
  return async (body) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const begun = client.query('begin');
      // Awaited after the body; until then a failed BEGIN must not count as unhandled.
      begun.catch(() => {});
      try {
        let over = kyselys.get(client);
        if (over === undefined) {
          over = kyselyOver(client);
          kyselys.set(client, over);
        }
        const value = await body(over);
        await begun;
        await client.query('commit');
        return value;
      } catch (error) {
        await client.query('rollback').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  };
}
