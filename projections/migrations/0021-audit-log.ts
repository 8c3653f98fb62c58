/**
 * The hash-chained audit log (SPEC.md "Audit entry"), projected from `audit.recorded`
 * events in global order like `action_log`: `chain_index` is the 0-based position in
 * the chain, `event_position` the event it came from (unique: a replayed event is
 * chained once). The filter columns repeat members of `row`, which alone is hashed.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table audit_log (
     chain_index bigint primary key,
     event_position bigint not null unique,
     entry_id uuid not null unique,
     at timestamptz not null,
     action text not null,
     actor_id text,
     target_type text,
     target_id text,
     team text,
     row jsonb not null,
     prev_hash text not null,
     hash text not null
   )`,
  'create index audit_log_action on audit_log (action, chain_index)',
  'create index audit_log_target on audit_log (target_type, target_id, chain_index)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table audit_log').execute(db);
}
