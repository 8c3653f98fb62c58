/**
 * Installed integration packs (SPEC.md "Integration packs"; domain/integration-packs/),
 * projected from their `integration-pack-<id>` streams: one row per pack with the version
 * installed, the file checksum and the actions it left at which versions. The registry
 * route reads it for each pack's install state. `stream_version` is the aggregate version
 * the row reflects, so applying an event again changes nothing.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table integration_packs (
     pack_id text primary key,
     version text not null,
     sha256 text not null,
     actions jsonb not null,
     installed_at timestamptz not null,
     installed_by text,
     updated_at timestamptz not null,
     updated_by text,
     stream_version integer not null
   )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table integration_packs`.execute(db);
}
