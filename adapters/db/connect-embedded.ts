/**
 * The embedded engine's half of openDatabase (connect.ts): PGlite persisted in
 * `<dataDir>/pgdata`, or in memory when `dataDir` is null. connect.ts imports this module
 * only when no server is configured, so a service on a server never loads PGlite.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import type { Database } from '../../projections/database.ts';
import { plainTransactions } from '../../projections/projector.ts';
import type { DatabaseLocation, OpenedDatabase } from './opened-database.ts';
import { embeddedOptions } from './embedded-options.ts';
import { prepareEmbeddedDataDir, type EmbeddedDataDirState } from './embedded-upgrade.ts';

/** Opens (creating it when new, upgrading it when older) the embedded database at `location`. */
export async function openEmbedded(location: Exclude<DatabaseLocation, { databaseUrl: string }>): Promise<OpenedDatabase> {
  let client: PGlite;
  let dataDir: EmbeddedDataDirState | null = null;
  if (location.dataDir === null) {
    client = new PGlite({ ...embeddedOptions, ...(location.image ? { loadDataDir: location.image } : {}) });
  } else {
    const dir = join(location.dataDir, 'pgdata');
    dataDir = await prepareEmbeddedDataDir(dir);
    mkdirSync(dir, { recursive: true });
    const startParams = location.sharedBuffers ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${location.sharedBuffers}`] : undefined;
    client = new PGlite(dir, { ...embeddedOptions, ...(startParams ? { startParams } : {}) });
  }
  await client.waitReady;
  const db = new Kysely<Database>({ dialect: new PGliteDialect(client) });
  const pipelinedTransaction = plainTransactions(db);
  return { db, engine: 'pglite', embedded: client, dataDir, pipelinedTransaction, close: () => db.destroy() };
}
