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
} & ({ kind: 'alerts' | 'generic_alerts' } | { kind: 'get'; paths: string[] });
export type LoadResult = { rps: number; p95: number; p99: number };

function alertBody(round: number, i: number): string {
  const n = i % 10 === 9 ? i - 9 : i;
  return JSON.stringify({
    alert_id: `bench-${round}-${n}`,
    rule: { id: `rule-${n % 20}`, title: `Bench rule ${n % 20}`, severity: 'medium' },
    matched_log: { source: { ip: `198.51.100.${n % 250}` } },
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
  const body = job.kind === 'alerts' ? alertBody : genericAlertBody;
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
        if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${job.url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
        latencies.sort((a, b) => a - b);
        resolve({ rps: result.requests.average, p95: percentile(latencies, 95), p99: percentile(latencies, 99) });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime: number) => latencies.push(responseTime));
  });
}

process.once('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send?.({ result }),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
  );
});
