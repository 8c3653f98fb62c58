/**
 * Case merges (docs/configuration.md "Case merge and split"; issue 50): a merged case
 * points at its target (`merged_into`), a target lists every case merged into it
 * (`merged_from`, `[{case_id, key}]`), and a comment a merge copied names where it came
 * from (`merged_from`, `{case_id, id, at}`).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table cases add column merged_into uuid`.execute(db);
  await sql`alter table cases add column merged_from jsonb not null default '[]'`.execute(db);
  await sql`alter table case_comments add column merged_from jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table case_comments drop column merged_from`.execute(db);
  await sql`alter table cases drop column merged_from`.execute(db);
  await sql`alter table cases drop column merged_into`.execute(db);
}
