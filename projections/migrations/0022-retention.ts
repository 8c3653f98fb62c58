/**
 * Retention sweep state (SPEC.md `GET /retention`): one row per swept resource.
 * `next_sweep_at` is both the schedule and the claim: a worker takes a due sweep by
 * moving it forward in one UPDATE, so two workers never sweep at once.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table retention_state (
     resource text primary key,
     next_sweep_at timestamptz not null,
     last_sweep_at timestamptz,
     last_deleted integer not null default 0,
     total_deleted bigint not null default 0,
     backlog boolean not null default false,
     last_error text,
     last_error_at timestamptz
   )`,
  'create index cases_status_updated on cases (status, updated_at)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop index cases_status_updated').execute(db);
  await sql.raw('drop table retention_state').execute(db);
}
