/**
 * The two hash-chained tables, `action_log` and `audit_log` (docs/architecture.md
 * "Event sourcing", hash chains): appending a row inside the projector's
 * transaction, and recomputing a whole chain page by page.
 *
 * The projector is the chains' only writer (its checkpoint row lock makes it single-
 * writer across processes), so reading the last row and inserting the next one in its
 * transaction cannot fork a chain.
 */
import { hash } from 'node:crypto';
import { sql, type Insertable, type Kysely } from 'kysely';
import type { ChainName } from '../../domain/audit/chain-rows.ts';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';
import { GENESIS_HASH, chainHashOfText, createChainVerifier, type ChainedText, type ChainVerdict, type Sha256Hex } from '../../domain/shared/hash-chain.ts';
import type { Database } from '../database.ts';

/**
 * Node's native SHA-256, one-shot (`crypto.hash`, of the text's UTF-8 bytes): the same digest
 * as the portable one, several times faster on long chains, and twice as fast as a
 * `createHash` object per row.
 */
export const nativeSha256Hex: Sha256Hex = (text) => hash('sha256', text, 'hex');

type ChainColumns = 'chain_index' | 'event_position' | 'row' | 'prev_hash' | 'hash';
/** The columns of `chain` besides the chain's own (filters copied out of the row). */
export type ChainExtras<C extends ChainName> = Omit<Insertable<Database[C]>, ChainColumns>;

/** One row to chain: the event it came from, its JSON-normalized row (domain/audit/chain-rows.ts) and its filter columns. */
export type ChainEntry<C extends ChainName> = { position: number; row: Record<string, unknown>; extras: ChainExtras<C> };

/** Rows per INSERT: 7 parameters each stays far below Postgres's 65,535 bind parameters. */
const ROWS_PER_INSERT = 1000;

/**
 * Appends `entries`, in their order (the projector's global event order), as the next
 * rows of `chain`, skipping any whose event was chained before (a replayed batch). Two
 * statements a projector batch however many rows it carries: the replay check with the
 * chain's head, and the multi-row insert.
 */
export async function appendChainRows<C extends ChainName>(trx: Kysely<Database>, chain: C, entries: ChainEntry<C>[]): Promise<void> {
  if (entries.length === 0) return;
  // One table type for the query builder: both chains share the chain columns.
  const table = chain as 'action_log';
  // The replay check and the chain's head in one round trip.
  const { rows: found } = await sql<{ chained: (string | number)[]; last_index: string | number | null; last_hash: string | null }>`
    select array(select event_position from ${sql.table(table)} where event_position = any(${entries.map((e) => e.position)}::bigint[])) as chained,
      head.chain_index as last_index, head.hash as last_hash
    from (select 1) as one
    left join lateral (select chain_index, hash from ${sql.table(table)} order by chain_index desc limit 1) as head on true`.execute(trx);
  const head = found[0];
  const already = new Set((head?.chained ?? []).map(Number));
  const fresh = entries.filter((e) => !already.has(e.position));
  if (fresh.length === 0) return;
  let index = head?.last_index == null ? 0 : Number(head.last_index) + 1;
  let prevHash = head?.last_hash ?? GENESIS_HASH;
  const rows = fresh.map((e) => {
    const text = canonicalJson(e.row);
    const hash = chainHashOfText(prevHash, text, nativeSha256Hex);
    const stored = {
      ...(e.extras as ChainExtras<'action_log'>),
      chain_index: index,
      event_position: e.position,
      row: text,
      prev_hash: prevHash,
      hash,
    };
    index += 1;
    prevHash = hash;
    return stored;
  });
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    await trx
      .insertInto(table)
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .execute();
}

/**
 * The rows of `chain` in chain order, each row as the text stored and hashed, read
 * `pageSize` at a time. The next page is asked for before this one is handed out, so on a
 * server the database reads it while the caller hashes.
 */
export async function* chainRows(db: Kysely<Database>, chain: ChainName, pageSize = 1000): AsyncGenerator<StoredChainRow> {
  const table = chain as 'action_log';
  const pageAfter = (after: number) =>
    db
      .selectFrom(table)
      // `row` is a json column: its text is the canonical JSON the projector hashed, byte for byte.
      .select(['chain_index', 'event_position', sql<string>`row::text`.as('text'), 'prev_hash', 'hash'])
      .where('chain_index', '>', after)
      .orderBy('chain_index')
      .limit(pageSize)
      .execute();
  let next = pageAfter(-1);
  for (;;) {
    const page = await next;
    const last = page[page.length - 1];
    const more = page.length === pageSize && last !== undefined;
    if (more) {
      next = pageAfter(Number(last.chain_index));
      // A caller that stops early never awaits the prefetched page: its failure is not an unhandled rejection.
      next.catch(() => {});
    }
    for (const r of page) yield { ...r, chain_index: Number(r.chain_index), event_position: Number(r.event_position) };
    if (!more) return;
  }
}

/** One stored chain row, as hashed, with where it sits in the chain and the event it came from. */
export type StoredChainRow = ChainedText & { chain_index: number; event_position: number };

/**
 * Recomputes `chain` from its first row (SPEC.md `GET /runs/chain/verify`,
 * `GET /audit/verify`): `{valid, checked, first_broken_index}`, the index 0-based.
 */
export async function verifyChainTable(db: Kysely<Database>, chain: ChainName, pageSize = 1000): Promise<ChainVerdict> {
  const verifier = createChainVerifier(GENESIS_HASH, nativeSha256Hex);
  for await (const row of chainRows(db, chain, pageSize)) if (!verifier.push(row)) break;
  return verifier.result();
}
