/**
 * A case's SLA policy from a case template (SPEC.md "Case" `template_id`, "Other case
 * moves" apply-template): the template it came from, its acknowledge and resolve
 * targets in minutes, and when it was applied; null columns for a case without one.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `alter table cases add column sla_template_id text`,
  `alter table cases add column sla_ack_minutes integer`,
  `alter table cases add column sla_resolve_minutes integer`,
  `alter table cases add column sla_applied_at timestamptz`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['sla_applied_at', 'sla_resolve_minutes', 'sla_ack_minutes', 'sla_template_id']) {
    await sql.raw(`alter table cases drop column ${column}`).execute(db);
  }
}
