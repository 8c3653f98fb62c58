/**
 * Approval gates of runs (SPEC.md "Runs, steps and gates"): one row per opened gate,
 * read by `GET /approvals` and `GET /runs/<id>`. Projected from `gate.opened`,
 * `gate.decided` and `runbook.approval_expired` of the `run-<id>` streams.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table run_gates (
      run_id uuid not null,
      step_id text not null,
      opened_at timestamptz not null,
      reason text not null,
      roles jsonb not null,
      message text,
      deadline timestamptz not null,
      status text not null,
      decided_by text,
      decided_at timestamptz,
      note text,
      primary key (run_id, step_id, opened_at)
    )`,
  `create index run_gates_pending on run_gates (status, deadline)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table run_gates').execute(db);
}
