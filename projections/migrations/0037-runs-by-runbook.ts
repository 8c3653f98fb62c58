/**
 * `GET /runs?runbook_id=` (a runbook's recent runs, newest first: the console's runbook
 * page) reads runs by runbook in queue order.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index runs_runbook on runs (runbook_id, queued_at desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index runs_runbook`.execute(db);
}
