/**
 * `migrateToLatest` (runtime/migrate.ts): an up-to-date database is known in one query and
 * left alone; one whose applied migrations differ from this build's still goes through
 * Kysely's migrator, which applies or refuses as it always did (issue 48).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../runtime/migrate.ts';
import { engines } from '../support/engines.ts';

describe.each(engines)('migrateToLatest on $name', (engine) => {
  it('applies nothing to a migrated database, and refuses one that applied a migration this build does not know', async () => {
    const opened = await engine.open();
    try {
      expect(await migrateToLatest(opened.db)).toEqual([]);
      await sql`insert into kysely_migration (name, timestamp) values ('9999_from_a_newer_build', now()::text)`.execute(opened.db);
      await expect(migrateToLatest(opened.db)).rejects.toThrow(/9999_from_a_newer_build/);
    } finally {
      await opened.close();
    }
  });
});
