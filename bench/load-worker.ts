/**
 * The load generator of `make bench`, run as a child process so it does not share
 * the service's event loop (autocannon refuses to run in a worker thread). Sends
 * requests for `seconds` over `connections` and posts back `{rps, p95, p99}`
 * (latencies in ms, nearest-rank over every response of the round).
 *
 * Three kinds of load:
 * - `alerts`: POSTs detector alerts, 20 rules; every tenth alert repeats an earlier one
 *   with the same rule (a detector resending), so de-duplication and correlation are
 *   both on the path;
 * - `generic_alerts`: the same mix (ids, rules, source IPs) as Elastic Security-style
 *   documents for a `generic` webhook source, whose `field_map` reads title, severity,
 *   id and correlation root from dotted paths (see bench/alert-intake.ts);
 * - `timed_alerts`: the `alerts` mix, each alert carrying `sent_at_ms` (this process's
 *   clock as the request is set up, just before it is sent) so a run it triggers can be
 *   timed from the moment its alert was sent; 429 answers (intake back-pressure) are
 *   counted as `refused`, not failures;
 * - `get`: GETs `paths` in turn.
 */
import autocannon from 'autocannon';

export type LoadJob = {
  /** Origin and base path; `paths` (kind `get`) or the intake path (kind `alerts`) follow. */
  url: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
  round: number;
} & ({ kind: 'alerts' | 'generic_alerts' | 'timed_alerts' } | { kind: 'get'; paths: string[] });
/** Answers per second (all of them), latency percentiles (ms), 2xx answers per second, and how many were 429. */
export type LoadResult = { rps: number; p95: number; p99: number; acceptedRps: number; refused: number };

function alertBody(round: number, i: number): string {
  const n = i % 10 === 9 ? i - 9 : i;
  return JSON.stringify({
    alert_id: `bench-${round}-${n}`,
    rule: { id: `rule-${n % 20}`, title: `Bench rule ${n % 20}`, severity: 'medium' },
    matched_log: { source: { ip: `198.51.100.${n % 250}` } },
  });
}

function timedAlertBody(round: number, i: number): string {
  const n = i % 10 === 9 ? i - 9 : i;
  return JSON.stringify({
    alert_id: `timed-${round}-${n}`,
    rule: { id: `timed-rule-${n % 20}`, title: `Timed rule ${n % 20}`, severity: 'medium' },
    matched_log: { source: { ip: `198.51.100.${n % 250}` } },
    sent_at_ms: Date.now(),
  });
}

function genericAlertBody(round: number, i: number): string {
  const n = i % 10 === 9 ? i - 9 : i;
  return JSON.stringify({
    '@timestamp': '2026-11-23T10:00:00.000Z',
    kibana: { alert: { uuid: `gen-${round}-${n}`, severity: 'medium', rule: { name: `Bench generic rule ${n % 20}`, uuid: `gen-rule-${n % 20}` } } },
    source: { ip: `198.51.100.${n % 250}` },
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

function run(job: LoadJob): Promise<LoadResult> {
  let i = 0;
  const latencies: number[] = [];
  let accepted = 0;
  let refused = 0;
  const body = job.kind === 'alerts' ? alertBody : job.kind === 'timed_alerts' ? timedAlertBody : genericAlertBody;
  const request: autocannon.Request =
    job.kind === 'get'
      ? { method: 'GET', setupRequest: (req) => ({ ...req, path: job.paths[i++ % job.paths.length] ?? '/' }) }
      : { method: 'POST', setupRequest: (req) => ({ ...req, body: body(job.round, i++) }) };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: job.seconds,
        headers: { 'content-type': 'application/json', ...job.headers },
        requests: [request],
      },
      (error, result) => {
        if (error) return reject(error);
        const failed = result.non2xx - (job.kind === 'timed_alerts' ? refused : 0);
        if (failed > 0 || result.errors > 0) return reject(new Error(`${job.url}: ${failed} non-2xx, ${result.errors} errors`));
        latencies.sort((a, b) => a - b);
        resolve({ rps: result.requests.average, p95: percentile(latencies, 95), p99: percentile(latencies, 99), acceptedRps: accepted / job.seconds, refused });
      },
    );
    instance.on('response', (_client, status: number, _bytes, responseTime: number) => {
      latencies.push(responseTime);
      if (status >= 200 && status < 300) accepted += 1;
      else if (status === 429) refused += 1;
    });
  });
}

process.once('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send?.({ result }),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
  );
});
