/** Installed integration pack queries (SPEC.md "Integration packs": the registry's install state). */
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';

export type InstalledPackView = {
  pack_id: string;
  version: string;
  sha256: string;
  actions: { name: string; custom_action_id: string; version: number }[];
  installed_at: string;
  installed_by: string | null;
  updated_at: string;
  updated_by: string | null;
};

/** Every installed pack by id. */
export async function installedPacks(db: Kysely<Database>): Promise<Map<string, InstalledPackView>> {
  const rows = await db.selectFrom('integration_packs').selectAll().orderBy('pack_id').execute();
  return new Map(
    rows.map((r) => [
      r.pack_id,
      {
        pack_id: r.pack_id,
        version: r.version,
        sha256: r.sha256,
        actions: r.actions,
        installed_at: new Date(r.installed_at).toISOString(),
        installed_by: r.installed_by,
        updated_at: new Date(r.updated_at).toISOString(),
        updated_by: r.updated_by,
      },
    ]),
  );
}
