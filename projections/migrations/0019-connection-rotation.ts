/**
 * Credential rotation of connections (SPEC.md "Actions and connections": old and new
 * credentials overlap 24 hours; the deadline is on connection responses): the previous
 * sealed secret and the end of its overlap.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `alter table connections add column previous_secret_ciphertext text`,
  `alter table connections add column rotation_overlap_until timestamptz`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['rotation_overlap_until', 'previous_secret_ciphertext']) await sql.raw(`alter table connections drop column ${column}`).execute(db);
}
