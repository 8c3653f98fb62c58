/**
 * Custom actions (SPEC.md "Custom action (operator-authored)"; domain/custom-actions/),
 * projected from their `custom-action-<id>` streams: `custom_actions` holds each action's
 * current version and state, `custom_action_versions` every saved version (the history of
 * `GET /custom-actions/<id>/versions`). `stream_version` is the aggregate version a row
 * reflects, so applying an event again changes nothing. The unique name mirrors the name
 * claim streams, which are what keeps names unique.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table custom_actions (
     id uuid primary key,
     name text not null unique,
     version integer not null,
     enabled boolean not null,
     transport text not null,
     risk text not null,
     effect_type text not null,
     spec jsonb not null,
     source text not null,
     created_at timestamptz not null,
     created_by text,
     updated_at timestamptz not null,
     updated_by text,
     stream_version integer not null
   )`,
  `create table custom_action_versions (
     custom_action_id uuid not null,
     version integer not null,
     name text not null,
     spec jsonb not null,
     enabled boolean not null,
     source text not null,
     acknowledged_danger boolean not null,
     saved_at timestamptz not null,
     saved_by text,
     primary key (custom_action_id, version)
   )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of ['drop table custom_action_versions', 'drop table custom_actions']) await sql.raw(statement).execute(db);
}
