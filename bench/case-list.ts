/**
 * `make bench`: `GET /cases` latency with filters at 100k cases (../shared/BENCH.md
 * "case list") next to a baseline on the same database in the same run: a bare Hono
 * handler running the hand-written indexed SELECT of the same page. Both answer the
 * same rotating list of filter sets for a team-scoped analyst; the bench first checks
 * that both return the same case ids for every set, so the ratio compares equal work.
 *
 * The 100k cases are bench/seed-cases.ts's read-model rows (the list reads only the
 * `cases` projection): 6 teams and org-wide, 5 % private, 4 statuses,
 * 4 severities, a third owned by one of 50 analysts.
 * Prints medians of BENCH_ROUNDS rounds of p95 and p99 (ms).
 */
import { Hono } from 'hono';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../projections/database.ts';
import { benchLine, load, median, printReport, runBench, serveBaseline, startBenchService } from './bench-service.ts';
import type { LoadResult } from './load-worker.ts';
import { seedCases } from './seed-cases.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const caseCount = Number(process.env.BENCH_CASES ?? 100_000);
const connections = 10;
const pageSize = 50;
const team = 'team-a';

/** Filter sets of the rotation: query string of GET /cases and the same filter in SQL. */
const filterSets: { query: string; where: ReturnType<typeof sql> }[] = [
  { query: 'status=new&severity=high', where: sql`status = 'new' and severity = 'high'` },
  { query: 'status=in_progress', where: sql`status = 'in_progress'` },
  { query: 'severity=critical', where: sql`severity = 'critical'` },
  { query: 'owner=analyst-7%40example.com', where: sql`owner_email = 'analyst-7@example.com'` },
  {
    query: 'search=phishing',
    where: sql`(title ilike '%phishing%' or key ilike '%phishing%'
      or exists (select 1 from case_search s where s.case_id = cases.id and s.vector @@ websearch_to_tsquery('english', 'phishing')))`,
  },
  { query: 'status=new&offset=100', where: sql`status = 'new'` },
];

/** The hand-written page: the filter, the analyst's scope (org-wide or its team, not private), newest first. */
function baselinePage(db: Kysely<Database>, set: (typeof filterSets)[number]) {
  const offset = Number(new URLSearchParams(set.query).get('offset') ?? 0);
  return sql<{ id: string }>`
    select * from cases
    where ${set.where} and private = false and (team is null or team = ${team})
    order by created_at desc, number desc limit ${pageSize} offset ${offset}`.execute(db);
}

async function main() {
  const bench = await startBenchService();
  const { db, engine } = bench.service.opened;
  await seedCases(db, caseCount);
  const token = await bench.exchangeToken([{ team, role: 'analyst' }], 'svc:cases:read');
  const headers = { authorization: `Bearer ${token}` };

  const baseline = new Hono().get('/page/:i', async (c) => {
    const set = filterSets[Number(c.req.param('i'))];
    if (!set) return c.json({ detail: 'no such filter set' }, 404);
    return c.json({ items: (await baselinePage(db, set)).rows });
  });
  const baseServer = await serveBaseline(baseline);
  const baseOrigin = baseServer.origin;
  const listPath = (query: string) => `${new URL(bench.url).pathname.replace(/\/$/, '')}/cases?${query}&limit=${pageSize}`;

  for (const [i, set] of filterSets.entries()) {
    const svc = (await (await fetch(`${new URL(bench.url).origin}${listPath(set.query)}`, { headers })).json()) as { items?: { id: string }[] };
    const base = (await (await fetch(`${baseOrigin}/page/${i}`)).json()) as { items: { id: string }[] };
    const ids = (items: { id: string }[] | undefined) => (items ?? []).map((c) => c.id).join(',');
    if (ids(svc.items) !== ids(base.items) || base.items.length === 0) throw new Error(`filter set "${set.query}": service and baseline pages differ`);
  }

  const svc: LoadResult[] = [];
  const base: LoadResult[] = [];
  for (let round = 0; round < rounds; round++) {
    const job = { kind: 'get', seconds, connections, round } as const;
    base.push(await load({ ...job, url: baseOrigin, headers: {}, paths: filterSets.map((_, i) => `/page/${i}`) }));
    svc.push(await load({ ...job, url: new URL(bench.url).origin, headers, paths: filterSets.map((s) => listPath(s.query)) }));
  }
  printReport(`engine=${engine} cases=${caseCount} connections=${connections} rounds=${rounds} seconds=${seconds}`, [
    benchLine('case_list_p95_ms', median(svc.map((r) => r.p95)), median(base.map((r) => r.p95)), '<= 1.5x'),
    benchLine('case_list_p99_ms', median(svc.map((r) => r.p99)), median(base.map((r) => r.p99)), '<= 1.5x'),
  ]);
  await baseServer.close();
  await bench.close();
}

runBench(main);
