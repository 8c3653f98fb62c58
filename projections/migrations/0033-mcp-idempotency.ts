/**
 * The MCP tool server's idempotency records (SPEC.md "Peer endpoints", `/peer/v1/mcp`:
 * "effectful calls idempotent per `idempotency_key`"): one row per (actor subject, tool,
 * key), inserted as pending before the call is dispatched, so the primary key decides
 * which of two concurrent calls runs, in every process; then the answer it gave.
 * `created_at` is what the purge of old records reads (adapters/http/mcp-server/idempotency.ts).
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table mcp_idempotency (
     actor_subject text not null,
     tool text not null,
     idempotency_key text not null,
     arguments_digest text not null,
     status integer,
     answer text,
     created_at timestamptz not null,
     completed_at timestamptz,
     primary key (actor_subject, tool, idempotency_key)
   )`,
  'create index mcp_idempotency_created_at on mcp_idempotency (created_at)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table mcp_idempotency').execute(db);
}
