/**
 * Saved views (docs/configuration.md "Saved views"; issue 50): a named query of the case
 * list or the alert inbox. A view without a team is its owner's alone; a view with a team
 * is shared with everyone holding a grant in that team (or a realm-wide grant, which sees
 * every team, as with cases). Only the owner changes or deletes a view. A view the caller
 * cannot see is 404 `view_not_found` exactly like one that does not exist.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import * as v from 'valibot';
import { DomainError, notFound } from '../../domain/shared/errors.ts';
import type { Database, SavedViewsTable } from '../../projections/database.ts';

/** The lists a view may name. */
export const viewResources = ['cases', 'alerts'] as const;
export type ViewResource = (typeof viewResources)[number];

/** A view as the API shows it. */
const viewObject = v.strictObject({
  id: v.string(),
  name: v.string(),
  resource: v.picklist(viewResources),
  query: v.record(v.string(), v.string()),
  team_id: v.nullable(v.string()),
  owner_id: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
});
/** `viewObject` as the document's component schema `SavedView`. */
export const viewSchema = v.pipe(viewObject, v.metadata({ ref: 'SavedView' }));
export type SavedView = v.InferOutput<typeof viewSchema>;

/** Who asks: the person's user id and the teams of their grants (null: a realm-wide grant). */
export type ViewReader = { userId: string; teams: (string | null)[] };

/** What a view is saved with; `query` already checked against its list's filters. */
export type ViewFields = { name: string; resource: ViewResource; query: Record<string, string>; team: string | null };

const viewOf = (row: Selectable<SavedViewsTable>): SavedView => ({
  id: row.id,
  name: row.name,
  resource: row.resource as ViewResource,
  query: row.query,
  team_id: row.team,
  owner_id: row.owner_id,
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
});

/** `now` is the service clock (adapters/shared/clock.ts). */
export function createViewStore(db: Kysely<Database>, now: () => Date) {
  /** The views `reader` may see: their own, and those shared with a team they hold a grant in (every team's for a realm grant). */
  const visible = (reader: ViewReader) =>
    db
      .selectFrom('saved_views')
      .selectAll()
      .where((eb) => {
        const teams = reader.teams.filter((team): team is string => team !== null);
        const shared = reader.teams.includes(null) ? eb('team', 'is not', null) : teams.length > 0 ? eb('team', 'in', teams) : eb.lit(false);
        return eb.or([eb('owner_id', '=', reader.userId), shared]);
      });
  const find = async (reader: ViewReader, id: string): Promise<SavedView> => {
    const row = await visible(reader).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('view_not_found', 'view not found', { view_id: id });
    return viewOf(row);
  };
  const owned = async (reader: ViewReader, id: string): Promise<SavedView> => {
    const view = await find(reader, id);
    if (view.owner_id !== reader.userId) throw new DomainError('forbidden', 403, 'only the owner of a view may change or delete it', { view_id: id });
    return view;
  };
  return {
    find,
    /** Own views first, then shared ones, each by name. */
    list: async (reader: ViewReader): Promise<SavedView[]> =>
      (
        await visible(reader)
          .orderBy((eb) => eb('owner_id', '=', reader.userId), 'desc')
          .orderBy('name')
          .orderBy('id')
          .execute()
      ).map(viewOf),
    create: async (reader: ViewReader, fields: ViewFields): Promise<SavedView> => {
      const at = now();
      const row = await db
        .insertInto('saved_views')
        .values({ id: randomUUID(), owner_id: reader.userId, ...fields, query: JSON.stringify(fields.query), created_at: at, updated_at: at })
        .returningAll()
        .executeTakeFirstOrThrow();
      return viewOf(row);
    },
    /** Replaces the view's fields; its owner's only. */
    update: async (reader: ViewReader, id: string, fields: ViewFields): Promise<SavedView> => {
      await owned(reader, id);
      const row = await db
        .updateTable('saved_views')
        .set({ ...fields, query: JSON.stringify(fields.query), updated_at: now() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return viewOf(row);
    },
    /** Deletes the view; its owner's only. */
    remove: async (reader: ViewReader, id: string): Promise<void> => {
      await owned(reader, id);
      await db.deleteFrom('saved_views').where('id', '=', id).execute();
    },
  };
}

export type ViewStore = ReturnType<typeof createViewStore>;
