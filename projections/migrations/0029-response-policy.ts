/**
 * Response policy versions (SPEC.md "Response policy": append-only, each publish a new
 * version), projected from the `response-policy` stream: one row per version with its
 * whole document. The newest row is the policy in force.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table response_policy_versions (
     version integer primary key,
     policy jsonb not null,
     digest text not null,
     published_at timestamptz not null,
     published_by text
   )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table response_policy_versions`.execute(db);
}
