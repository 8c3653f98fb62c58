/**
 * `make bench`: `GET /peer/v1/search` latency at 100k cases (SPEC.md "Peer endpoints"; the
 * suite shell's header search) next to a baseline on the same database in the same run: a
 * bare Hono handler running the hand-written SQL of the same search (the person's user row,
 * then the three case tiers as one statement and the runbook tiers as another) and merging
 * the two lists. Both answer
 * the same rotating list of queries for a team-scoped analyst (exact key, common prefix,
 * common and rare substrings, a term matching nothing, a runbook name); the bench first
 * checks that both give the same ids for every query, so the ratio compares equal work.
 *
 * The 100k cases are bench/seed-cases.ts's (6 teams and org-wide, 5 % private, a hash
 * fragment in each title for rare substrings); 20 runbooks come from the runbooks directory. The analyst's user row
 * is written directly, as the service keeps it from an accepted token.
 * Prints medians of BENCH_ROUNDS rounds of p95 and p99 (ms).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../projections/database.ts';
import { mergeRanked, searchTerms, type MatchTier, type SearchTerms } from '../projections/peer/search-ranking.ts';
import { benchLine, load, median, printReport, runBench, serveBaseline, startBenchService } from './bench-service.ts';
import type { LoadResult } from './load-worker.ts';
import { seedCases } from './seed-cases.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const caseCount = Number(process.env.BENCH_CASES ?? 100_000);
const connections = 10;
const limit = 10;
const team = 'team-a';
const runbookCount = 20;

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const middle = Math.floor(caseCount / 14) * 7;
/** A case of team-a that is not private (n % 7 = 0, n % 20 != 0), for the exact and rare queries. */
const teamCase = middle % 20 === 0 ? middle + 7 : middle;

/** The rotation: an exact key, a common prefix, common and rare substrings, nothing, a runbook name. */
const queries = [`SVC-${teamCase}`, 'phishing', 'travel', `${md5(String(teamCase)).slice(0, 6)}`, 'zzqq', 'triage 1'];

function runbookFiles(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-peer-runbooks-'));
  for (let i = 0; i < runbookCount; i++) {
    const yaml = [
      `id: triage-${i}`,
      `name: Triage ${i}`,
      'version: 1',
      'trigger: { type: manual }',
      'steps:',
      '  - id: note',
      '    action: case.update',
      '    with: { comment: noted }',
      '',
    ];
    writeFileSync(join(dir, `triage-${i}.yml`), yaml.join('\n'));
  }
  return dir;
}

type Hit = { tier: MatchTier; id: string };

/** The hand-written case search: the analyst's cases (its own, or org-wide or its team's and not private), three tiers in one statement. */
async function baselineCases(db: Kysely<Database>, t: SearchTerms, userId: string): Promise<Hit[]> {
  const scope = sql`(owner_id = ${userId} or created_by_id = ${userId} or (private = false and (team is null or team = ${team})))`;
  const exactOn = [...(t.caseKey === null ? [] : [sql`key = ${t.caseKey}`]), ...(t.caseId === null ? [] : [sql`id = ${t.caseId}::uuid`])];
  const exact = exactOn.length === 0 ? sql`false` : sql`(${sql.join(exactOn, sql` or `)})`;
  const { rows } = await sql<Hit>`
    select id, tier from (
      (select id, created_at, number, 1 as tier from cases where ${exact} and ${scope} limit ${limit})
      union all
      (select id, created_at, number, 2 from cases where lower(title) like lower(${t.prefix}) and ${scope}
        order by created_at desc, number desc limit ${limit})
      union all
      (select id, created_at, number, 3 from cases where lower(title) like lower(${t.contains}) and ${scope}
        order by created_at desc, number desc limit ${2 * limit})
    ) hits order by tier, created_at desc, number desc`.execute(db);
  return rows;
}

/** The hand-written runbook search: exact slug, then name or slug prefix, then containing. */
async function baselineRunbooks(db: Kysely<Database>, t: SearchTerms): Promise<Hit[]> {
  const { rows } = await sql<Hit>`
    select slug as id, case when slug = lower(${t.text}) then 1
      when lower(name) like lower(${t.prefix}) or slug like lower(${t.prefix}) then 2 else 3 end as tier
    from runbooks
    where slug = lower(${t.text}) or lower(name) like lower(${t.contains}) or slug like lower(${t.contains})
    order by tier, lower(name), slug limit ${limit}`.execute(db);
  return rows;
}

/** The hand-written search for the person with identity subject `subject`: its user row, then both kinds. */
async function baselineSearch(db: Kysely<Database>, subject: string, q: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`select id from users where subject = ${subject} and active`.execute(db);
  const userId = rows[0]?.id;
  if (userId === undefined) return [];
  const t = searchTerms(q, 'SVC');
  const [runbooks, cases] = await Promise.all([baselineRunbooks(db, t), baselineCases(db, t, userId)]);
  const ranked = (hits: Hit[], kind: string) => hits.map((h) => ({ tier: Number(h.tier) as MatchTier, key: `${kind}:${h.id}`, item: h.id }));
  return mergeRanked([ranked(runbooks, 'runbook'), ranked(cases, 'case')], limit);
}

async function main() {
  const runbooksDir = runbookFiles();
  const bench = await startBenchService({ SVC_RUNBOOKS_DIR: runbooksDir });
  const { db, engine } = bench.service.opened;
  await seedCases(db, caseCount);
  const subject = randomUUID();
  await db
    .insertInto('users')
    .values({
      id: randomUUID(),
      subject,
      email: 'bench-analyst@example.com',
      name: null,
      active: true,
      grants: JSON.stringify([{ team, role: 'analyst' }]),
      updated_at: new Date(),
    })
    .execute();
  const headers = { authorization: `Bearer ${await bench.serviceToken('svc:peer:status:read')}` };

  const baseline = new Hono().get('/search/:i', async (c) => {
    const q = queries[Number(c.req.param('i'))];
    if (q === undefined) return c.json({ detail: 'no such query' }, 404);
    return c.json({ ids: await baselineSearch(db, subject, q) });
  });
  const baseServer = await serveBaseline(baseline);
  const origin = new URL(bench.url).origin;
  const searchPath = (q: string) => `${new URL(bench.url).pathname.replace(/\/$/, '')}/peer/v1/search?user=${subject}&q=${encodeURIComponent(q)}`;

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
  printReport(`engine=${engine} cases=${caseCount} runbooks=${runbookCount} connections=${connections} rounds=${rounds} seconds=${seconds}`, [
    benchLine('peer_search_p95_ms', median(svc.map((r) => r.p95)), median(base.map((r) => r.p95)), '<= 1.5x'),
    benchLine('peer_search_p99_ms', median(svc.map((r) => r.p99)), median(base.map((r) => r.p99)), '<= 1.5x'),
  ]);
  await baseServer.close();
  await bench.close();
  rmSync(runbooksDir, { recursive: true, force: true });
}

runBench(main);
