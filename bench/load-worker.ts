/**
 * The load generator of the intake bench, run as a child process so it does not
 * share the service's event loop (autocannon refuses to run in a worker thread): autocannon POSTs detector alerts for `seconds`
 * over `connections` and posts back `{rps, p99}` (p99 in ms).
 *
 * Alerts: 20 rules; every tenth alert repeats an earlier one with the same rule (a
 * detector resending), so de-duplication and correlation are both on the path.
 */
import autocannon from 'autocannon';

export type LoadJob = { url: string; headers: Record<string, string>; seconds: number; connections: number; round: number };
export type LoadResult = { rps: number; p99: number };

function alertBody(round: number, i: number): string {
  const n = i % 10 === 9 ? i - 9 : i;
  return JSON.stringify({
    alert_id: `bench-${round}-${n}`,
    rule: { id: `rule-${n % 20}`, title: `Bench rule ${n % 20}`, severity: 'medium' },
    matched_log: { source: { ip: `198.51.100.${n % 250}` } },
  });
}

async function run(job: LoadJob): Promise<LoadResult> {
  let i = 0;
  const result = await autocannon({
    url: job.url,
    method: 'POST',
    connections: job.connections,
    duration: job.seconds,
    headers: { 'content-type': 'application/json', ...job.headers },
    requests: [{ setupRequest: (req) => ({ ...req, body: alertBody(job.round, i++) }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${job.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

process.once('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send?.({ result }),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
  );
});
