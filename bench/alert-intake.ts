/**
 * `make bench`: alert intake throughput over HTTP (dedup, correlation, case open or
 * append, projections caught up before the 202) next to a baseline measured in the
 * same run on the same database: a bare Hono handler doing one single-row INSERT per
 * request (../shared/BENCH.md), and for context one writing the rows an alert writes
 * (`sameRowsHandler`). It also measures the same mix through a `generic`
 * webhook source with a `field_map` (POST /webhooks/<slug>), next to the detector's
 * native path measured in the same rounds (issue 5). Prints medians of BENCH_ROUNDS rounds as
 * `name value baseline ratio target`. Engine: PGlite in a temp dir, or a fresh database on the
 * server of DATABASE_URL (dropped afterwards).
 *
 * Where the time goes (PGlite, 2026-11-24; `node --cpu-prof`, and statements counted on
 * the embedded client): PGlite is about half the CPU, HTTP and JSON handling most of the
 * rest, the intake's own code about 3 %. Group commit already shares each append and each
 * projector transaction among the requests in flight (about 20 at 50 connections; under
 * one statement per request in all). The costliest statements are the events INSERT (the
 * alert payload travels in `alert.received`), the cases and alerts upserts, reading the
 * batch back for the projector, and the lock-and-versions call. Live-update frames cost
 * four more statements a batch until they were skipped on PGlite while no socket listens
 * (on a server they are two since 2026-11-28: one read of the audiences, one NOTIFY).
 * Reading the batch back stopped on 2026-11-24 (session 3): the store hands the projector
 * the events it has just committed. On a server, `--cpu-prof` shows the service's thread a
 * fifth idle and a seventh in `writev`: the server's own work on the five tables an alert
 * writes (events, cases, alerts, observables, timeline) competes for the same two CPUs as
 * the load generator, where the baseline writes one row.
 *
 * On a server again (2026-11-28, `perf record -a` over the detector load, and
 * `pg_stat_statements` with planning tracked): the service's process took about 53 % of the
 * machine (a third of that V8's compiler and GC threads), the server backends 25 %, the
 * load generator 6 %. The `writev` share of the `--cpu-prof` profile is mostly time the
 * service's thread lost to the backend its write woke on the other CPU, not the syscall.
 * Statements' execution and planning together are about a third of the backends' CPU; the
 * rest is per-statement and per-transaction overhead, so fewer statements, not cheaper
 * ones, is what would move this figure. Intake averages 1.2 statements an alert (the
 * generic path 1 more, its source lookup, until 2026-11-28: the lookups of one event-loop
 * turn are now one statement, and the generic path went from 0.6-0.85x of the detector's
 * to above it on both engines).
 *
 * Stage by stage on a server (2026-11-28, each stage timed in the process over a 10 s
 * round): the machine was a quarter idle, so intake is bound by latency, not CPU. The
 * projector was busy 89 % of the round (about 28 ms a batch of 19 alerts) and the appender
 * 75 % (14 ms a batch of 11 requests); with 50 clients each waiting for both, the rate is
 * 50 over their sum. A round trip in either costs about 2.5 ms against 0.3 ms of server
 * time: the reply waits for the event loop's turn, which serves the other requests first
 * (`monitorEventLoopDelay` p50 1.3 ms, mean 2.2 ms), and the pool was never short. So the
 * serial stages' round trips are the cost: the projector moved its checkpoint in a second
 * statement, and updated every repeated alert in one statement each; both are now one
 * statement a batch (about 12 round trips a batch became 10.5). In alternating runs the
 * rate did not move beyond the noise (±10 %). The appender's batch was four round trips
 * (begin, lock and versions, insert, commit); since 2026-11-28 it is one statement,
 * `svc_append` (event-store migration 0039). Alternating with the code before, on a
 * server: intake 692 and 606 alerts/s against 563 and 583; webhook-triggered runs 182 and
 * 217 a second against 137 and 171; on PGlite no change beyond the noise (an append batch
 * of 20 requests took 6 ms either way, there being no event loop to wait for). A
 * `--cpu-prof` of the service's thread over the detector round then: a fifth idle, a
 * seventh in `writev` (see above), GC 7 %; reading a request's body through a full
 * fetch `Request` and its web stream (@hono/node-server does this once a middleware or
 * handler touches the body) about a tenth. What is left in round trips is the projector's
 * batch (begin, checkpoint, the read models' statements, commit: about ten); fewer
 * would need round trips that do not wait for the HTTP work: the projector on its own
 * thread, or statements pipelined.
 *
 * Pipelined since 2026-11-28 (session 10): the projections of a batch run concurrently
 * unless one names another in `after`, and on a server the batch's transaction runs on a
 * connection in node-postgres' pipeline mode (adapters/db/pipelined.ts), so statements
 * issued together travel together; `cases` and `alerts` issue their writes together too.
 * An intake batch is about eight statements in three waits (BEGIN with the checkpoint,
 * the reads, the writes) and COMMIT. Timed in the process, one round each, with the same
 * concurrency and only pipeline mode switched: on loopback a batch of about 55 events took
 * 37-39 ms against 50, and intake was 401-409 alerts/s against 383 (inside the noise);
 * through a loopback relay adding 1 ms each way (a database on another host; the relay
 * must set TCP_NODELAY, or Nagle's algorithm holds every pipelined write behind the
 * last one's acknowledgement and pipelining looks slower) 54-56 ms against 78-83, and
 * 344-367 alerts/s against 284-301. On loopback what bounds intake is the service's one
 * thread: `--cpu-prof` over the detector round shows it 93 % busy with no function above
 * 8 % (HTTP and web-stream handling, Kysely, pg, GC), and a statement whose server time is
 * 0.1 ms (the checkpoint's, `pg_stat_statements`) is answered to the projector after about
 * 10 ms, the time the event loop takes to come back to the socket. More throughput on one
 * machine needs less work per alert on that thread or more threads (API processes, or the
 * projector off the HTTP thread), not fewer round trips.
 *
 * Since 2026-11-28 (session 11) the body limit reads a request's body straight from Node's
 * message into Hono's body cache (adapters/http/request-body.ts) instead of through a
 * full fetch `Request` and its web stream, which Hono's `bodyLimit` made the adapter
 * build for every request, GETs included. Alternating one round each on PGlite: 934 and
 * 897 alerts/s against 851 and 865, the generic path 1007 and 946 against 907 and 909;
 * on a server the rounds varied more than that (baseline 1,470-2,880 requests/s). What
 * is left of HTTP on the thread is mostly Hono's router: with `/webhooks/detector` beside
 * `/webhooks/:slug`, Hono's RegExpRouter refuses the route table and the trie router
 * serves it (about 2 %).
 *
 * The projector on a thread of its own (2026-11-29, session 13; tried on a server, not
 * kept): the thread opened its own connections, took the committed events' JSON texts
 * from the appender by `postMessage`, and posted each checkpoint back. The service's
 * thread went from a fifth to a quarter idle and the projector's thread was 45 % busy, but
 * intake stayed at 1,725-1,733 alerts/s against 1,750 in the process (one round each), and
 * steps/s and managed containment moved within their noise in alternating 3-round runs:
 * on this two-CPU machine the CPUs are the limit (the service's threads, the server's
 * backends and the load generator share them), so another thread has no CPU to run on.
 * On a machine with more cores, several API processes (`SVC_ROLE=api`) already use them.
 *
 * `alert_intake_rps_vs_same_rows` (context, since session 13) sets intake beside a bare
 * handler writing the rows an alert writes here (`sameRowsHandler`), one transaction per
 * request; the issue's baseline writes one row. First runs, one round each: the service
 * did 1.15x of that handler on a server (1,631 against 1,415 alerts/s) and 1.49x on
 * PGlite (1,101 against 741): the group commit and the batched projections do the same
 * durable work faster than a handler doing it alert by alert, and what keeps intake under
 * the one-row baseline is the work an alert must do, not how it is done.
 */
import { Hono } from 'hono';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../projections/database.ts';
import { benchLine, load, median, printReport, runBench, serveBaseline, startBenchService } from './bench-service.ts';
import type { LoadResult } from './load-worker.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = 50;

/**
 * The context baseline `alert_intake_rps_vs_same_rows`: a bare handler that writes, in one
 * transaction per request, the rows an alert of this mix writes in the service's store and
 * read models (its event, the alert with its dedup key, the case it opens or joins by rule,
 * the source IP as an observable, a timeline entry), one statement after the other and with
 * none of the service's checks: what a conventional implementation of the same durable work
 * costs on this machine, next to the issue's one-INSERT baseline.
 */
async function sameRowsHandler(db: Kysely<Database>): Promise<Hono> {
  const tables = [
    'bench_rows_events (id bigserial primary key, stream text not null, type text not null, data jsonb not null, at timestamptz not null default now())',
    'bench_rows_alerts (external_id text primary key, case_key text not null, seen int not null default 1, payload jsonb not null)',
    'bench_rows_cases (key text primary key, title text not null, severity text not null, alert_count int not null default 1, updated_at timestamptz not null default now())',
    'bench_rows_observables (case_key text not null, type text not null, value text not null, primary key (case_key, type, value))',
    'bench_rows_timeline (id bigserial primary key, case_key text not null, text text not null, at timestamptz not null default now())',
  ];
  for (const table of tables) await sql.raw(`create table if not exists ${table}`).execute(db);
  return new Hono().post('/ingest', async (c) => {
    const text = await c.req.text();
    const alert = JSON.parse(text) as { alert_id: string; rule: { id: string; title: string; severity: string }; matched_log: { source: { ip: string } } };
    const caseKey = alert.rule.id;
    const fresh = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ inserted: boolean }>`
        insert into bench_rows_alerts (external_id, case_key, payload) values (${alert.alert_id}, ${caseKey}, ${text}::jsonb)
        on conflict (external_id) do update set seen = bench_rows_alerts.seen + 1
        returning (xmax = 0) as inserted`.execute(trx);
      if (!rows[0]?.inserted) return false;
      await sql`insert into bench_rows_events (stream, type, data) values (${`alert-${alert.alert_id}`}, 'alert.received', ${text}::jsonb)`.execute(trx);
      await sql`
        insert into bench_rows_cases (key, title, severity) values (${caseKey}, ${alert.rule.title}, ${alert.rule.severity})
        on conflict (key) do update set alert_count = bench_rows_cases.alert_count + 1, updated_at = now()`.execute(trx);
      await sql`
        insert into bench_rows_observables (case_key, type, value) values (${caseKey}, 'ip', ${alert.matched_log.source.ip})
        on conflict do nothing`.execute(trx);
      await sql`insert into bench_rows_timeline (case_key, text) values (${caseKey}, ${`alert ${alert.alert_id}`})`.execute(trx);
      return true;
    });
    return c.json({ ok: true, duplicate: !fresh }, 202);
  });
}

async function main() {
  const bench = await startBenchService({ SVC_DETECTOR_BOOTSTRAP_SECRET: 'bench' });
  const { db, engine } = bench.service.opened;
  await sql`create table if not exists bench_baseline (id bigserial primary key, body jsonb not null, at timestamptz not null default now())`.execute(db);
  const baseline = new Hono().post('/ingest', async (c) => {
    const body = await c.req.text();
    await sql`insert into bench_baseline (body) values (${body}::jsonb)`.execute(db);
    return c.json({ ok: true }, 202);
  });
  const baseServer = await serveBaseline(baseline);
  const sameRowsServer = await serveBaseline(await sameRowsHandler(db));

  const admin = await bench.exchangeToken([{ team: null, role: 'admin' }], 'svc:connections:write');
  const created = await fetch(`${bench.url}/webhook-sources`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'generic',
      slug: 'bench-generic',
      name: 'Bench generic source',
      field_map: {
        rule_title: 'kibana.alert.rule.name',
        severity: 'kibana.alert.severity',
        external_id: 'kibana.alert.uuid',
        correlation_root: 'kibana.alert.rule.uuid',
      },
    }),
  });
  if (created.status !== 201) throw new Error(`creating the generic source answered ${created.status}: ${await created.text()}`);
  const sourceToken = ((await created.json()) as { token: string }).token;

  const svc: LoadResult[] = [];
  const base: LoadResult[] = [];
  const generic: LoadResult[] = [];
  const sameRows: LoadResult[] = [];
  for (let round = 0; round < rounds; round++) {
    const job = { kind: 'alerts', seconds, connections, round } as const;
    base.push(await load({ ...job, url: `${baseServer.origin}/ingest`, headers: {} }));
    sameRows.push(await load({ ...job, url: `${sameRowsServer.origin}/ingest`, headers: {} }));
    svc.push(await load({ ...job, url: `${bench.url}/webhooks/detector`, headers: { 'x-svc-token': 'bench' } }));
    generic.push(await load({ ...job, kind: 'generic_alerts', url: `${bench.url}/webhooks/bench-generic`, headers: { 'x-svc-token': sourceToken } }));
  }
  printReport(`engine=${engine} connections=${connections} rounds=${rounds} seconds=${seconds}`, [
    benchLine('alert_intake_rps', median(svc.map((r) => r.rps)), median(base.map((r) => r.rps)), '>= 1.0x'),
    benchLine('alert_intake_p99_ms', median(svc.map((r) => r.p99)), median(base.map((r) => r.p99)), '<= 2.0x'),
    benchLine('generic_intake_rps_vs_detector', median(generic.map((r) => r.rps)), median(svc.map((r) => r.rps)), '>= 0.9x'),
    benchLine('alert_intake_rps_vs_same_rows', median(svc.map((r) => r.rps)), median(sameRows.map((r) => r.rps)), '- (context)'),
  ]);
  await sameRowsServer.close();
  await baseServer.close();
  await bench.close();
}

runBench(main);
