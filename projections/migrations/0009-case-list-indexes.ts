/**
 * Indexes for the `owner` filter of `GET /cases` (SPEC.md "Cases"), newest first like
 * the list, so a filtered page at 100k cases reads an index range instead of the table
 * (bench/case-list.ts).
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create index cases_owner_email on cases (owner_email, created_at desc) where owner_email is not null`,
  `create index cases_owner_id on cases (owner_id, created_at desc) where owner_id is not null`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['cases_owner_id', 'cases_owner_email']) await sql.raw(`drop index ${index}`).execute(db);
}
