/**
 * Custom action queries (SPEC.md "Actions and connections": `/custom-actions`), each row
 * as the API's view: `{id, name, version, enabled, source, spec, created_at, created_by,
 * updated_at, updated_by}`, and the versions of one action, newest first.
 */
import type { Kysely, Selectable } from 'kysely';
import type { CustomActionsTable, CustomActionVersionsTable, Database } from '../database.ts';

export type CustomActionView = {
  id: string;
  name: string;
  version: number;
  enabled: boolean;
  source: string;
  spec: Record<string, unknown>;
  created_at: string;
  created_by: string | null;
  updated_at: string;
  updated_by: string | null;
};

export type CustomActionVersionView = {
  version: number;
  enabled: boolean;
  source: string;
  acknowledged_danger: boolean;
  spec: Record<string, unknown>;
  saved_at: string;
  saved_by: string | null;
};

const iso = (d: Date | string) => new Date(d).toISOString();

const view = (r: Selectable<CustomActionsTable>): CustomActionView => ({
  id: r.id,
  name: r.name,
  version: r.version,
  enabled: r.enabled,
  source: r.source,
  spec: r.spec,
  created_at: iso(r.created_at),
  created_by: r.created_by,
  updated_at: iso(r.updated_at),
  updated_by: r.updated_by,
});

const versionView = (r: Selectable<CustomActionVersionsTable>): CustomActionVersionView => ({
  version: r.version,
  enabled: r.enabled,
  source: r.source,
  acknowledged_danger: r.acknowledged_danger,
  spec: r.spec,
  saved_at: iso(r.saved_at),
  saved_by: r.saved_by,
});

/** Every custom action, by name. */
export async function listCustomActions(db: Kysely<Database>): Promise<CustomActionView[]> {
  return (await db.selectFrom('custom_actions').selectAll().orderBy('name').execute()).map(view);
}

/** One custom action, or undefined. */
export async function findCustomAction(db: Kysely<Database>, id: string): Promise<CustomActionView | undefined> {
  const row = await db.selectFrom('custom_actions').selectAll().where('id', '=', id).executeTakeFirst();
  return row && view(row);
}

/** Every saved version of one action, newest first (empty for an unknown id). */
export async function listCustomActionVersions(db: Kysely<Database>, id: string): Promise<CustomActionVersionView[]> {
  return (await db.selectFrom('custom_action_versions').selectAll().where('custom_action_id', '=', id).orderBy('version', 'desc').execute()).map(versionView);
}
