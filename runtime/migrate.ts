/**
 * Applies pending schema migrations (`svc migrate`, and at every start).
 * Throws with the failing migration's name when one fails.
 */
import { Migrator, type Kysely } from 'kysely';
import type { Database } from '../projections/database.ts';
import { migrationProvider } from './schema-migrations.ts';

export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).map((r) => r.migrationName);
}
