/**
 * Webhook sources (SPEC.md "Webhook source"): UI-managed inbound endpoints. The token
 * (and a `pager_a` signing secret) are sealed with SVC_SECRET_KEY, bound to the row id;
 * `slug` names the endpoint `POST /webhooks/<slug>`.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table webhook_sources (
      id uuid primary key,
      slug text not null unique,
      type text not null,
      name text not null,
      team text,
      field_map jsonb not null,
      default_severity text not null,
      enabled boolean not null,
      token_ciphertext text not null,
      signing_secret_ciphertext text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table webhook_sources').execute(db);
}
