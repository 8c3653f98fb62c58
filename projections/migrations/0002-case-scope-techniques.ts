/**
 * Cases gain what scoping and ATT&CK mapping need (SPEC.md "Case"): the `private`
 * flag, the creating user (a member of a private case), and `attack_techniques`.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `alter table cases add column private boolean not null default false`,
  `alter table cases add column created_by_id uuid`,
  `alter table cases add column attack_techniques jsonb not null default '[]'::jsonb`,
  `create index cases_team on cases (team, created_at desc)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop index cases_team').execute(db);
  for (const column of ['attack_techniques', 'created_by_id', 'private']) await sql.raw(`alter table cases drop column ${column}`).execute(db);
}
