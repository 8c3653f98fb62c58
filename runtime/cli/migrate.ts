/**
 * `svc migrate`: applies the database migrations of `env`'s configuration and exits
 * (CONTRACTS.md section 1); on the embedded engine it first reports an upgrade of the
 * data directory's PostgreSQL major version (docs/operations.md).
 */
import { upgradeNotice } from '../../adapters/db/embedded-upgrade.ts';
import { openDatabase } from '../../adapters/db/connect.ts';
import { loadConfig } from '../config.ts';
import { migrateToLatest } from '../migrate.ts';

/** Writes what was applied (or that nothing was) to `write`; rejects when the database cannot be opened or a migration fails. */
export async function runMigrate(env: NodeJS.ProcessEnv, write: (text: string) => void): Promise<void> {
  const config = loadConfig(env);
  const opened = await openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir });
  try {
    const upgraded = upgradeNotice(opened.dataDir);
    if (upgraded) write(`${upgraded}\n`);
    const applied = await migrateToLatest(opened.db);
    write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await opened.close();
  }
}
