/**
 * The hash-chained tables keep the exact text they hashed (issue 23, chain verification):
 * `row` becomes a `json` column, which stores its text verbatim, holding the row's RFC 8785
 * canonical JSON. Verification then hashes the stored text as it is, with no parse and no
 * canonicalization per row; a `jsonb` column rewrote the text (key order, spacing), so
 * every check had to rebuild it. Reads are unchanged: a json column parses like jsonb.
 *
 * Rows chained before this migration are rewritten as their canonical text, which is what
 * their hash was computed over, so every chain verifies exactly as it did.
 */
import { sql, type Kysely } from 'kysely';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';

const chains = ['action_log', 'audit_log'] as const;
const PAGE = 1000;

async function rewriteCanonical(db: Kysely<unknown>, table: (typeof chains)[number]): Promise<void> {
  let after = -1;
  for (;;) {
    const { rows } = await sql<{ chain_index: string | number; row: Record<string, unknown> }>`
      select chain_index, row from ${sql.table(table)} where chain_index > ${after} order by chain_index limit ${PAGE}`.execute(db);
    const last = rows[rows.length - 1];
    if (last === undefined) return;
    const indexes = rows.map((r) => Number(r.chain_index));
    const texts = rows.map((r) => canonicalJson(r.row));
    await sql`
      update ${sql.table(table)} as t set row = v.text::json
      from (select unnest(${indexes}::bigint[]) as chain_index, unnest(${texts}::text[]) as text) as v
      where t.chain_index = v.chain_index`.execute(db);
    after = Number(last.chain_index);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of chains) {
    await sql`alter table ${sql.table(table)} alter column row type json using row::json`.execute(db);
    await rewriteCanonical(db, table);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of chains) await sql`alter table ${sql.table(table)} alter column row type jsonb using row::jsonb`.execute(db);
}
