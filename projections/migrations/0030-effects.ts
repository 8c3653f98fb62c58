/**
 * Managed containment effects (SPEC.md "Effect (managed containment)"; domain/effects/),
 * projected from their `effect-<uuid>` streams: one row per effect with its target, state,
 * TTL end, adapter and origin, so an analyst sees what is blocked and until when.
 * `stream_version` is the aggregate version the row reflects, so applying an event again
 * changes nothing.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table effects (
     id uuid primary key,
     effect_type text not null,
     target_type text not null,
     target text not null,
     status text not null,
     ttl_seconds integer not null,
     expires_at timestamptz,
     adapter_id text,
     policy_version integer,
     snapshot_digest text,
     handle text,
     already_enforced boolean not null default false,
     enforcement_performed boolean not null default false,
     last_error text,
     reversal_attempts integer not null default 0,
     retry_at timestamptz,
     run_id uuid,
     step_id text,
     case_id uuid,
     requested_by text,
     requested_at timestamptz not null,
     applied_at timestamptz,
     reversed_at timestamptz,
     updated_at timestamptz not null,
     stream_version integer not null
   )`,
  'create index effects_target on effects (target_type, target, requested_at desc)',
  'create index effects_status on effects (status, expires_at)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table effects`.execute(db);
}
