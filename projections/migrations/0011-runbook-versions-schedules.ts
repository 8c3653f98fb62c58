/**
 * Schedule triggers (SPEC.md "Runbooks and runs", Triggers: the worker computes
 * `next_fire_at` on upsert and enqueues due enabled runbooks). The tick claims a fire
 * time with `update ... where next_fire_at = <old>`; the version index serves
 * `GET /runbooks/<slug>` (its version history).
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `alter table runbooks add column next_fire_at timestamptz`,
  `create index runbooks_next_fire on runbooks (next_fire_at) where next_fire_at is not null`,
  `create index runbook_versions_slug on runbook_versions (slug, saved_at)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of ['drop index runbook_versions_slug', 'drop index runbooks_next_fire', 'alter table runbooks drop column next_fire_at']) {
    await sql.raw(statement).execute(db);
  }
}
