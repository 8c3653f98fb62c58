/**
 * `make bench`: `GET /search` latency at 100k cases (docs/configuration.md "Search"; issue
 * 50) next to a baseline on the same database in the same run: a bare Hono handler running
 * a hand-written `tsvector` query of the same search (the analyst's visible cases matching
 * the query, ranked, with their snippets; then the alerts the same way) and merging the two
 * lists. Both answer the same rotating list of queries for a team-scoped analyst (a common
 * title word, a word of one case's comment, a hash fragment of one title, two words, a term
 * matching nothing); the bench first checks that both give the same ids for every query, so
 * the ratio compares equal work.
 *
 * The 100k cases are bench/seed-cases.ts's; each also gets one comment (a sentence from a
 * small rotation, and one word unique to it) and the search documents are written for all
 * of them with the projection's own statement. Prints medians of BENCH_ROUNDS rounds of
 * p95 and p99 (ms).
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../projections/database.ts';
import { writeAlertDocuments, writeCaseDocuments } from '../projections/search/documents.ts';
import { benchLine, load, median, printReport, runBench, serveBaseline, startBenchService } from './bench-service.ts';
import type { LoadResult } from './load-worker.ts';
import { seedCases } from './seed-cases.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const caseCount = Number(process.env.BENCH_CASES ?? 100_000);
const connections = 10;
const limit = 20;
const team = 'team-a';

const middle = Math.floor(caseCount / 14) * 7;
/** A case of team-a that is not private (n % 7 = 0, n % 20 != 0). */
const teamCase = middle % 20 === 0 ? middle + 7 : middle;
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** The rotation: a common title word, one case's comment word, one title's hash fragment, two words, nothing. */
const queries = ['phishing', `marker${teamCase}`, md5(String(teamCase)).slice(0, 8), 'travel laptop', 'zzqq'];

/** One comment a case: a sentence of a small rotation and a word of its own. */
async function seedComments(db: Kysely<Database>): Promise<void> {
  await sql`
    insert into case_comments (id, case_id, body, author_id, author_email, created_at, deleted_at)
    select gen_random_uuid(), id,
           (array['User reported the laptop was stolen while travelling.', 'Blocked the sender domain at the gateway.',
                  'Reset the password and revoked all sessions.', 'No malicious process found on the host.'])[1 + number % 4]
             || ' marker' || number,
           null, 'analyst@example.com', created_at, null
    from cases`.execute(db);
}

type Hit = { id: string; rank: number };

/** The hand-written search: the analyst's cases (its team or org-wide, not private), then the alerts of the same scope. */
async function baselineSearch(db: Kysely<Database>, q: string): Promise<string[]> {
  const query = sql`websearch_to_tsquery('english', ${q})`;
  const headline = sql`ts_headline('english', left(s.text, 50000), ${query}, 'StartSel="", StopSel="", MaxWords=25, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "')`;
  const [cases, alerts] = await Promise.all([
    sql<Hit>`
      select c.id, ts_rank(s.vector, ${query}) as rank, ${headline} as snippet from case_search s join cases c on c.id = s.case_id
      where s.vector @@ ${query} and c.private = false and (c.team is null or c.team = ${team}) and c.merged_into is null
      order by rank desc, c.created_at desc limit ${limit}`.execute(db),
    sql<Hit>`
      select a.id, ts_rank(s.vector, ${query}) as rank, ${headline} as snippet from alert_search s join alerts a on a.id = s.alert_id
      where s.vector @@ ${query} and (a.team is null or a.team = ${team})
        and (a.case_id is null or exists (select 1 from cases c where c.id = a.case_id and c.private = false and (c.team is null or c.team = ${team})))
      order by rank desc, a.received_at desc limit ${limit}`.execute(db),
  ]);
  return [...cases.rows, ...alerts.rows]
    .sort((x, y) => Number(y.rank) - Number(x.rank))
    .slice(0, limit)
    .map((h) => h.id);
}

async function main() {
  const bench = await startBenchService();
  const { db, engine } = bench.service.opened;
  await seedCases(db, caseCount);
  await seedComments(db);
  await writeCaseDocuments(db, null);
  await writeAlertDocuments(db, null);
  await sql`analyze case_search`.execute(db);
  const token = await bench.exchangeToken([{ team, role: 'analyst' }], 'svc:cases:read');
  const headers = { authorization: `Bearer ${token}` };

  const baseline = new Hono().get('/search/:i', async (c) => {
    const q = queries[Number(c.req.param('i'))];
    if (q === undefined) return c.json({ detail: 'no such query' }, 404);
    return c.json({ ids: await baselineSearch(db, q) });
  });
  const baseServer = await serveBaseline(baseline);
  const origin = new URL(bench.url).origin;
  const searchPath = (q: string) => `${new URL(bench.url).pathname.replace(/\/$/, '')}/search?q=${encodeURIComponent(q)}&limit=${limit}`;

  for (const [i, q] of queries.entries()) {
    const svc = (await (await fetch(`${origin}${searchPath(q)}`, { headers })).json()) as { items?: { id: string }[] };
    const base = (await (await fetch(`${baseServer.origin}/search/${i}`)).json()) as { ids: string[] };
    const svcIds = (svc.items ?? []).map((item) => item.id).join(',');
    if (svcIds !== base.ids.join(',') || (base.ids.length === 0 && q !== 'zzqq')) throw new Error(`query "${q}": service and baseline answers differ`);
  }

  const svc: LoadResult[] = [];
  const base: LoadResult[] = [];
  for (let round = 0; round < rounds; round++) {
    const job = { kind: 'get', seconds, connections, round } as const;
    base.push(await load({ ...job, url: baseServer.origin, headers: {}, paths: queries.map((_, i) => `/search/${i}`) }));
    svc.push(await load({ ...job, url: origin, headers, paths: queries.map(searchPath) }));
  }
  printReport(`engine=${engine} cases=${caseCount} connections=${connections} rounds=${rounds} seconds=${seconds}`, [
    benchLine('search_p95_ms', median(svc.map((r) => r.p95)), median(base.map((r) => r.p95)), '<= 1.5x'),
    benchLine('search_p99_ms', median(svc.map((r) => r.p99)), median(base.map((r) => r.p99)), '<= 1.5x'),
  ]);
  await baseServer.close();
  await bench.close();
}

runBench(main);
