/**
 * Applies pending schema migrations (`svc migrate`, and at every start).
 * Throws with the failing migration's name when one fails.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import type { Database } from '../projections/database.ts';
import { migrationProvider } from './schema-migrations.ts';

export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  if (await upToDate(db)) return [];
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).map((r) => r.migrationName);
}

/**
 * Whether the database has applied exactly the migrations this build knows, read in one
 * query. Kysely's migrator finds that out through a full introspection of every table's
 * columns, twice, which was a tenth of a restart on PGlite (issue 48); anything else (no
 * migration table yet, a pending, missing or unknown migration, a failed read) goes to the
 * migrator, which applies, refuses or explains as before.
 */
async function upToDate(db: Kysely<Database>): Promise<boolean> {
  const known = Object.keys(await migrationProvider.getMigrations());
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const applied = new Set(rows.map((r) => r.name));
    return applied.size === known.length && known.every((name) => applied.has(name));
  } catch {
    return false;
  }
}
