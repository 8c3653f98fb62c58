/**
 * Advisory AI triage on cases (SPEC.md "Case": `ai_triage`; "AI triage feedback"): the
 * last triage record on the case row, and one feedback row per analyst per case, which
 * `GET /cases/<id>/ai-triage` reads for `my_feedback` and `/metrics/soc` for
 * `ai_triage_agreement`. Retention removes a purged case's rows with the case.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  'alter table cases add column ai_triage jsonb',
  `create table case_ai_triage_feedback (
     case_id uuid not null,
     analyst_id uuid not null,
     analyst_verdict text not null,
     ai_verdict text not null,
     note text,
     at timestamptz not null,
     primary key (case_id, analyst_id)
   )`,
  'create index case_ai_triage_feedback_at on case_ai_triage_feedback (at)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table case_ai_triage_feedback').execute(db);
  await sql.raw('alter table cases drop column ai_triage').execute(db);
}
