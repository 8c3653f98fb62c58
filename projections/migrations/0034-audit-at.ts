/**
 * The audit log by time (docs/suite-contracts.md "Peer audit route": `since`, `until`):
 * without it a recent `since` reads the whole chain from its first entry to find the
 * few that match.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw('create index audit_log_at on audit_log (at, chain_index)').execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop index audit_log_at').execute(db);
}
