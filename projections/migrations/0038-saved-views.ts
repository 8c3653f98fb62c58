/**
 * Saved views (docs/configuration.md "Saved views"; issue 50): a named query of the case
 * list or the alert inbox, private to its owner or shared with one team. Not an aggregate:
 * a person's list preferences, written in place like connections and webhook sources.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table saved_views (
    id uuid primary key,
    owner_id text not null,
    name text not null,
    resource text not null check (resource in ('cases', 'alerts')),
    query jsonb not null,
    team text,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`.execute(db);
  await sql`create index saved_views_owner on saved_views (owner_id)`.execute(db);
  await sql`create index saved_views_team on saved_views (team) where team is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table saved_views`.execute(db);
}
