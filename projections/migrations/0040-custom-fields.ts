/**
 * Custom fields (docs/configuration.md "Custom fields"; issue 50): the definitions, written
 * in place like saved views (configuration, not case history), and each case's values,
 * projected from `case.custom_fields_set` into `cases.custom_fields` with a GIN index for
 * the list's `cf.<name>=` filters (jsonb containment).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table custom_fields (
    id uuid primary key,
    name text not null unique,
    label text not null,
    type text not null,
    options jsonb,
    team text,
    required_at text check (required_at in ('close', 'resolve')),
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`.execute(db);
  await sql`alter table cases add column custom_fields jsonb not null default '{}'`.execute(db);
  await sql`create index cases_custom_fields on cases using gin (custom_fields jsonb_path_ops)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index cases_custom_fields`.execute(db);
  await sql`alter table cases drop column custom_fields`.execute(db);
  await sql`drop table custom_fields`.execute(db);
}
