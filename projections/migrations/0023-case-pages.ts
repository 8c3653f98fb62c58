/**
 * Pages sent for cases (SPEC.md "Webhook intake": pager acknowledgements), by the pager's
 * de-duplication key: a pager's acknowledgement webhook names the key, and this finds the
 * case. The newest link of a key wins.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table case_pages (
     pager text not null,
     key text not null,
     case_id uuid not null,
     connection text not null,
     linked_at timestamptz not null,
     event_position bigint not null,
     primary key (pager, key)
   )`,
  'create index case_pages_case on case_pages (case_id)',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table case_pages').execute(db);
}
