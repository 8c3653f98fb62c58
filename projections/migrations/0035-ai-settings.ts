/**
 * The install's AI settings (SPEC.md "AI settings"; adapters/ai/settings-store.ts): one
 * row, `id = 'install'`, holding both halves. The provider half is written by the
 * identity service, the usage half by the install's admins; each write is one upsert of
 * its own columns. The key is sealed with the service's secret box (`api_key_sealed`),
 * never stored in clear. A usage column left null (and no row at all) means the
 * configured default (SVC_AI_DEFAULT_*).
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table ai_settings (
     id text primary key check (id = 'install'),
     enabled boolean not null default false,
     provider text,
     base_url text,
     model text,
     api_key_sealed text,
     data_classes jsonb,
     max_tokens integer,
     temperature double precision,
     timeout_seconds integer,
     updated_at timestamptz not null
   )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table ai_settings').execute(db);
}
