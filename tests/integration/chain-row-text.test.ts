/**
 * Migration 0031 on every engine: the hash-chained tables keep the canonical text they
 * hashed in a json column. Rows chained before it (jsonb, which rewrote their text) are
 * rewritten as their canonical JSON, so a chain that verified still verifies, row for row,
 * and one that was broken stays broken at the same row. And the projector's append of
 * chain rows: canonical text, in order, an event chained before skipped.
 */
import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';
import { GENESIS_HASH, chainHash } from '../../domain/shared/hash-chain.ts';
import type { OpenedDatabase } from '../../adapters/db/connect.ts';
import { appendChainRows, verifyChainTable } from '../../projections/chains/chain-table.ts';
import { migrateToLatest } from '../../runtime/migrate.ts';
import { migrationProvider } from '../../runtime/schema-migrations.ts';
import { engines } from '../support/engines.ts';

/** Audit rows shaped as the projector chained them, keys deliberately out of canonical order. */
const entries = Array.from({ length: 5 }, (_, i) => ({
  team: null,
  id: randomUUID(),
  detail: { status: 'new', case_key: `SVC-${i}`, note: 'café ✓' },
  at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  actor: { via: null, kind: 'user', id: randomUUID(), email: 'a@example.com', subject: 's' },
  action: 'case.acknowledge',
  target: { type: 'case', id: randomUUID() },
}));

describe.each(engines)('chain rows as canonical text on $name', (engine) => {
  let opened: OpenedDatabase | null = null;
  afterEach(async () => {
    await opened?.close();
    opened = null;
  });

  /** A database at the schema before 0031, its audit chain written as the projector wrote it then; `broken` rewrites one row afterwards. */
  async function chainedBefore(broken: number | null) {
    opened = await engine.open();
    const { db } = opened;
    const down = await new Migrator({ db, provider: migrationProvider }).migrateTo('0030-effects');
    expect(down.error).toBeUndefined();
    expect(
      (await sql<{ t: string }>`select data_type as t from information_schema.columns where table_name = 'audit_log' and column_name = 'row'`.execute(db))
        .rows[0]?.t,
    ).toBe('jsonb');
    let prev = GENESIS_HASH;
    for (const [i, entry] of entries.entries()) {
      const hash = chainHash(prev, entry);
      const stored = i === broken ? { ...entry, action: 'case.close' } : entry;
      await db
        .insertInto('audit_log')
        .values({
          chain_index: i,
          event_position: i + 1,
          entry_id: entry.id,
          at: entry.at,
          action: entry.action,
          actor_id: null,
          target_type: 'case',
          target_id: null,
          team: null,
          row: JSON.stringify(stored),
          prev_hash: prev,
          hash,
        })
        .execute();
      prev = hash;
    }
    return db;
  }

  it('rewrites every row as its canonical JSON, and the chain verifies as before', async () => {
    const db = await chainedBefore(null);
    expect(await verifyChainTable(db, 'audit_log')).toEqual({ valid: false, checked: 1, first_broken_index: 0 });
    await migrateToLatest(db);
    const { rows } = await sql<{ text: string }>`select row::text as text from audit_log order by chain_index`.execute(db);
    expect(rows.map((r) => r.text)).toEqual(entries.map((e) => canonicalJson(e)));
    expect(await verifyChainTable(db, 'audit_log')).toEqual({ valid: true, checked: entries.length, first_broken_index: null });
    const read = await db.selectFrom('audit_log').select('row').orderBy('chain_index').execute();
    expect(read.map((r) => r.row)).toEqual(entries);
  });

  it('leaves a chain broken before it broken at the same row', async () => {
    const db = await chainedBefore(3);
    await migrateToLatest(db);
    expect(await verifyChainTable(db, 'audit_log')).toEqual({ valid: false, checked: 4, first_broken_index: 3 });
  });

  it('appends rows as their canonical text after the head, skipping events chained before (a replayed batch)', async () => {
    opened = await engine.open();
    const { db } = opened;
    const entry = (i: number) => ({
      position: 10 + i,
      row: entries[i] as Record<string, unknown>,
      extras: { entry_id: entries[i]!.id, at: entries[i]!.at, action: entries[i]!.action, actor_id: null, target_type: 'case', target_id: null, team: null },
    });
    await db.transaction().execute((trx) => appendChainRows(trx, 'audit_log', [entry(0), entry(1)]));
    await db.transaction().execute((trx) => appendChainRows(trx, 'audit_log', [entry(1), entry(2)]));
    await db.transaction().execute((trx) => appendChainRows(trx, 'audit_log', [entry(2)]));
    const { rows } = await sql<{ chain_index: number; event_position: number; text: string }>`
      select chain_index, event_position, row::text as text from audit_log order by chain_index`.execute(db);
    expect(rows.map((r) => [Number(r.chain_index), Number(r.event_position), r.text])).toEqual([0, 1, 2].map((i) => [i, 10 + i, canonicalJson(entries[i])]));
    expect(await verifyChainTable(db, 'audit_log')).toEqual({ valid: true, checked: 3, first_broken_index: null });
  });
});
