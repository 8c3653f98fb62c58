/**
 * Case observables (SPEC.md "Case sub-resources"): one row per observable ever added;
 * a removed one keeps its row with `removed_at`. Cross-case hits look up
 * (type, normalized) among present rows.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table case_observables (
      id uuid primary key,
      case_id uuid not null,
      type text not null,
      value text not null,
      normalized text not null,
      added_by text,
      created_at timestamptz not null,
      removed_at timestamptz
    )`,
  `create index case_observables_case on case_observables (case_id, created_at)`,
  `create index case_observables_value on case_observables (type, normalized) where removed_at is null`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table case_observables').execute(db);
}
