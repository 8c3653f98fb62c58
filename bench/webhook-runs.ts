/**
 * `make bench`: webhook-triggered one-step runs under sustained load (../shared/BENCH.md
 * rows "webhook-triggered runs vs a peer" and "runs keep pace with intake").
 *
 * Each round sends detector alerts for BENCH_SUSTAINED_SECONDS (10) over 20 connections,
 * the `alerts` mix of bench/load-worker.ts (20 rules, every tenth alert a repeat), each
 * stamped with the moment it was sent. Every alert that is not a repeat triggers a run of a
 * one-step autonomous runbook (`case.update` adding a tag, a real write to its case). After
 * the load the bench waits for every run to finish, then reads, per run, when its alert
 * was sent and when the run finished (`runs.finished_at`); both clocks are this machine's.
 *
 * - `webhook_runs_completed_per_s`: runs finished while alerts were still arriving, per
 *   second of that window (first to last alert sent). The baseline is not measured here: it
 *   is n8n 2.8.4's 83 webhook -> one-step workflow executions per second with 20 connections,
 *   measured on this kind of machine in 2026-11 (issue 23); the target is 3x it.
 * - `runs_completed_over_accepted`: those completed runs per second over the runs the
 *   accepted alerts queued per second; >= 0.9 means the worker keeps pace with intake.
 * - `alert_to_run_finished_p50_ms` / `_p95_ms`: from sending an alert to its run's end, over
 *   every run of the round (those finishing after the load included); baseline 5000 ms,
 *   the target p95.
 * - `alerts_refused`: 429 answers (SVC_INTAKE_MAX_RUN_LAG_S back-pressure) in the round.
 *
 * Prints medians of BENCH_ROUNDS rounds as `name value baseline ratio target`.
 *
 * Where the time goes (PGlite, 2026-11-28; `node --cpu-prof`, and each statement timed on
 * the embedded client). The load's alerts correlate into 20 cases, so each case collects
 * hundreds of alerts over the rounds, as in a storm. Every step of every run and every
 * intake conflict read its case stream whole: at about 100 alerts a case one read cost
 * 2.2 ms in PGlite plus the fold, and each one more than the last, so the later rounds
 * slowed down. Loads now read only what was appended since this process last folded the
 * stream (adapters/commands/stream-states.ts): 104 -> 166 runs/s, 3 rounds of 10 s. The
 * runs projection then wrote up to seven statements per run (its row, step rows and job
 * on queueing, the row at start and at end, the job's delete); a projector batch now writes
 * each kind once for all its runs: 166 -> 185 runs/s. What is left is PGlite's fixed cost
 * per statement (a `begin` alone takes about 0.1 ms; about 70 % of the service's thread is
 * inside PGlite) and about 10 statements per alert and run. PGlite's own `query()` makes six
 * calls into the engine per statement; node-postgres over an in-process stream into
 * `execProtocolRaw` makes one, and measured 0.7x the time per statement alone but within
 * noise here, so it is not used. Moving PGlite to a worker thread doubled the time per
 * statement (a message round trip each way), and its one session runs statements one at
 * a time, so it was not kept either.
 */
import { sql } from 'kysely';
import { benchLine, expectStatus, load, median, percentile, printReport, runBench, sleep, startBenchService, tagOnAlertRunbook } from './bench-service.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 10);
const connections = 20;
const n8nExecutionsPerS = 83;
const settleMs = 120_000;
const runbookId = 'bench-webhook-run';

const runbookYaml = tagOnAlertRunbook(runbookId, 'Bench webhook-triggered run', ['source: detector'], 'bench-run');

type RoundFigures = { completedPerS: number; pace: number; p50: number; p95: number; refused: number };

async function main() {
  const bench = await startBenchService({ SVC_DETECTOR_BOOTSTRAP_SECRET: 'bench' });
  const { db, engine } = bench.service.opened;
  const token = await bench.exchangeToken([{ team: null, role: 'admin' }], 'svc:runbooks:write');
  await expectStatus(
    fetch(`${bench.url}/runbooks/${runbookId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ yaml_text: runbookYaml }),
    }).then(async (r) => ({ status: r.status, body: await r.json() })),
    201,
    'save the runbook',
  );

  const figures: RoundFigures[] = [];
  for (let round = 0; round < rounds; round++) {
    const loaded = await load({
      kind: 'timed_alerts',
      url: `${bench.url}/webhooks/detector`,
      headers: { 'x-svc-token': 'bench' },
      seconds,
      connections,
      round,
    });
    const deadline = Date.now() + settleMs;
    for (;;) {
      const { rows } = await sql<{ open: number }>`
        select count(*)::int as open from runs where runbook_id = ${runbookId} and finished_at is null`.execute(db);
      if (rows[0]?.open === 0) break;
      if (Date.now() > deadline) throw new Error(`${rows[0]?.open} runs still open ${settleMs} ms after the load`);
      await sleep(100);
    }
    const { rows } = await sql<{ sent: string; finished: Date; status: string }>`
      select e.data->'trigger'->>'sent_at_ms' as sent, r.finished_at as finished, r.status
      from events e join runs r on r.id = (e.data->>'run_id')::uuid
      where e.type = 'run.queued' and r.runbook_id = ${runbookId} and e.data->'trigger'->>'external_id' like ${`timed-${round}-%`}`.execute(db);
    const failed = rows.filter((r) => r.status !== 'succeeded');
    if (rows.length === 0 || failed.length > 0) throw new Error(`round ${round}: ${rows.length} runs, ${failed.length} not succeeded`);
    const runs = rows.map((r) => ({ sent: Number(r.sent), finished: new Date(r.finished).getTime() }));
    const firstSent = Math.min(...runs.map((r) => r.sent));
    const lastSent = Math.max(...runs.map((r) => r.sent));
    const windowS = (lastSent - firstSent) / 1000;
    const completedPerS = runs.filter((r) => r.finished <= lastSent).length / windowS;
    const latencies = runs.map((r) => r.finished - r.sent);
    if (latencies.some((l) => l < 0)) throw new Error(`round ${round}: a run finished before its alert was sent: the bench's clocks are wrong`);
    figures.push({
      completedPerS,
      pace: completedPerS / (runs.length / windowS),
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      refused: loaded.refused,
    });
  }
  printReport(
    `engine=${engine} connections=${connections} rounds=${rounds} seconds=${seconds} runbook_steps=1 intake_max_run_lag_s=${bench.config.intakeMaxRunLagMs / 1000}`,
    [
      benchLine('webhook_runs_completed_per_s', median(figures.map((f) => f.completedPerS)), n8nExecutionsPerS, '>= 3.0x (baseline: n8n 2.8.4, 2026-11)'),
      benchLine('runs_completed_over_accepted', median(figures.map((f) => f.pace)), 1, '>= 0.9x'),
      benchLine('alert_to_run_finished_p50_ms', median(figures.map((f) => f.p50)), 5000, '-'),
      benchLine('alert_to_run_finished_p95_ms', median(figures.map((f) => f.p95)), 5000, '<= 1.0x'),
      benchLine('alerts_refused', median(figures.map((f) => f.refused)), 1, '-'),
    ],
  );
  await bench.close();
}

runBench(main);
