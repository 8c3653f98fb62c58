/**
 * `make bench`: hash-chain verification (../shared/BENCH.md "chain verification"): rows/s
 * of `GET /runs/chain/verify` and `GET /audit/verify` (the route's `verifyChainTable`,
 * page by page through the table, sha256 of each row's stored canonical text, link check)
 * next to a baseline in the same run on the same database: reading the same rows in the
 * same pages and one one-shot sha256 (`crypto.hash`, as the route uses) over each row's
 * stored text in a loop. Target >= 0.5x.
 *
 * Seeds BENCH_CHAIN_ROWS rows (default 50 000) per chain, shaped like real rows (an
 * action-log step with input and output; an audit entry with actor and detail), chained
 * with the service's own hash function. Prints medians of BENCH_ROUNDS rounds.
 *
 * Where the time went (2026-11-24, `--cpu-prof`): with `row` in jsonb, each row was parsed
 * (a fifth of the CPU), canonicalized again (another fifth) and hashed through a
 * `createHash` object (a seventh); the action log verified at 0.40-0.48x. The column is
 * now json holding the canonical text that was hashed (migration 0031), so a row is
 * hashed as read, the hash is one-shot, and the next page is read while one is hashed.
 */
import { hash, randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { ChainName } from '../domain/audit/chain-rows.ts';
import { canonicalJson } from '../domain/shared/canonical-json.ts';
import { GENESIS_HASH, chainHash } from '../domain/shared/hash-chain.ts';
import { verifyChainTable } from '../projections/chains/chain-table.ts';
import type { Database } from '../projections/database.ts';
import { benchLine, median, printReport, runBench, startBenchService } from './bench-service.ts';

const rowCount = Number(process.env.BENCH_CHAIN_ROWS ?? 50_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const pageSize = 1000;

const actionRow = (i: number): Record<string, unknown> => ({
  run_id: randomUUID(),
  step_id: `step-${i % 10}`,
  action: 'notify.webhook',
  attempt: 1,
  status: 'ok',
  input: { connection: 'soc-hook', path: '/hook', body: { case: `SVC-${i}`, ip: '203.0.113.9' } },
  output: { status: 204, webhook_id: `msg_${i}` },
  error: null,
  started_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  finished_at: new Date(1_700_000_000_500 + i * 1000).toISOString(),
});

const auditRow = (i: number): Record<string, unknown> => ({
  id: randomUUID(),
  at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  action: 'case.acknowledge',
  actor: { id: randomUUID(), email: `analyst-${i % 50}@example.com`, subject: randomUUID(), kind: 'user', via: null },
  target: { type: 'case', id: randomUUID() },
  team: `team-${i % 6}`,
  detail: { case_key: `SVC-${i}`, status: 'new' },
});

async function seed(db: Kysely<Database>, chain: ChainName): Promise<void> {
  let prev = GENESIS_HASH;
  for (let start = 0; start < rowCount; start += pageSize) {
    const values = [];
    for (let i = start; i < Math.min(rowCount, start + pageSize); i++) {
      const row = chain === 'action_log' ? actionRow(i) : auditRow(i);
      const hash = chainHash(prev, row);
      const common = { chain_index: i, event_position: i + 1, row: canonicalJson(row), prev_hash: prev, hash };
      values.push(
        chain === 'action_log'
          ? { ...common, run_id: row.run_id as string, step_id: row.step_id as string }
          : {
              ...common,
              entry_id: row.id as string,
              at: row.at as string,
              action: 'case.acknowledge',
              actor_id: null,
              target_type: 'case',
              target_id: null,
              team: null,
            },
      );
      prev = hash;
    }
    await db
      .insertInto(chain as 'action_log')
      .values(values as never)
      .execute();
  }
}

/** Baseline: the same pages of the same rows, one sha256 over each row's stored text. */
async function readAndHash(db: Kysely<Database>, chain: ChainName): Promise<number> {
  let after = -1;
  let hashed = 0;
  for (;;) {
    const { rows } = await sql<{ chain_index: number; row: string; prev_hash: string }>`
      select chain_index, row::text as row, prev_hash from ${sql.table(chain)} where chain_index > ${after} order by chain_index limit ${pageSize}`.execute(db);
    for (const r of rows) {
      hash('sha256', r.prev_hash + r.row, 'hex');
      hashed += 1;
    }
    if (rows.length < pageSize) return hashed;
    after = Number(rows[rows.length - 1]?.chain_index);
  }
}

const rate = async (work: () => Promise<number>): Promise<number> => {
  const started = performance.now();
  const rows = await work();
  return rows / ((performance.now() - started) / 1000);
};

runBench(async () => {
  const bench = await startBenchService();
  try {
    const { db } = bench.service.opened;
    const lines: string[] = [];
    for (const chain of ['action_log', 'audit_log'] as const) {
      await seed(db, chain);
      // One untimed read first: right after seeding, the first pass over the table pays for
      // cold pages, and it was always the service's (0.43x in a one-round run, 0.5-0.6x after).
      await readAndHash(db, chain);
      const verified: number[] = [];
      const baseline: number[] = [];
      for (let r = 0; r < rounds; r++) {
        verified.push(
          await rate(async () => {
            const verdict = await verifyChainTable(db, chain, pageSize);
            if (!verdict.valid || verdict.checked !== rowCount) throw new Error(`${chain} did not verify: ${JSON.stringify(verdict)}`);
            return verdict.checked;
          }),
        );
        baseline.push(await rate(() => readAndHash(db, chain)));
      }
      const route = chain === 'action_log' ? '/runs/chain/verify' : '/audit/verify';
      lines.push(benchLine(`chain verify ${route} rows/s`, median(verified), median(baseline), '>= 0.5x'));
    }
    printReport(`engine=${bench.databaseUrl ? 'postgres' : 'pglite'} rows=${rowCount} rounds=${rounds}`, lines);
  } finally {
    await bench.close();
  }
});
