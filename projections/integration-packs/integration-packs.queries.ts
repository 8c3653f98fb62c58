/** Installed integration pack queries (SPEC.md "Integration packs": the registry's install state). */
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';

/** The installed version of every installed pack, by pack id. */
export async function installedVersions(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await db.selectFrom('integration_packs').select(['pack_id', 'version']).execute();
  return new Map(rows.map((r) => [r.pack_id, r.version]));
}
