/**
 * `make bench`: custom-action steps next to the built-in `http.request` (issue 21 "Done
 * when"), both measured in the same run, on the same database, against the same local
 * HTTP peer.
 *
 * `custom_action_steps_per_s`: BENCH_RUNS (30) live manual runs of a 10-step runbook whose
 * steps call `custom.bench.echo`, a constrained HTTP action (POST `/echo/{{ inputs.n }}`
 * with a JSON body field, one declared output read from the answer, one redacted
 * output), queued at once over HTTP on one case; each step `needs` the one before.
 * Completed steps (action-log rows with status `ok`) per second, from just before the
 * first run is queued to the last run's `finished_at`.
 * Baseline: the same runs of a runbook whose steps call `http.request` with the same
 * method, path and body on the same `http` connection.
 *
 * The peer is a bare node:http server answering a fixed JSON body, so the figure is the
 * engine's cost per step (render, validate, send through the guarded edge, extract, log),
 * not the peer's. Rounds alternate the two runbooks; the report prints medians.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../projections/database.ts';
import { systemClock } from '../adapters/shared/clock.ts';
import { apiOf, benchLine, expectStatus, median, printReport, runBench, runsFinished, startBenchService, sleep, type Api } from './bench-service.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const runCount = Number(process.env.BENCH_RUNS ?? 30);
const stepCount = 10;
const CUSTOM = 'custom.bench.echo';

/** A 10-step chain of `step` lines (YAML, indented under `steps:`). */
function chainYaml(slug: string, step: string[]): string {
  const steps = Array.from({ length: stepCount }, (_, i) => [`  - id: s${i + 1}`, ...step, ...(i > 0 ? [`    needs: [s${i}]`] : [])].join('\n'));
  return [`id: ${slug}`, `name: ${slug}`, 'version: 1', 'enabled: true', 'trigger:', '  type: manual', 'steps:', ...steps, ''].join('\n');
}

const customYaml = chainYaml('bench-custom-steps', [`    action: ${CUSTOM}`, '    with:', '      n: "7"']);
const builtinYaml = chainYaml('bench-http-steps', [
  '    action: http.request',
  '    with:',
  '      connection: bench-http',
  '      method: POST',
  '      path: /echo/7',
  '      json_body: {n: "7"}',
]);

/** A peer answering every request with the same small JSON body. */
async function startPeer(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"evt-1","token":"peer-token","ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Queues the live runs of `slug` at once and waits for all; completed steps per second. */
async function stepsPerSecond(db: Kysely<Database>, api: Api, caseId: string, slug: string): Promise<number> {
  const started = systemClock().getTime();
  const queued = await Promise.all(
    Array.from({ length: runCount }, () => expectStatus(api('POST', `/cases/${caseId}/runbooks/${slug}/run`, {}), 202, `queue ${slug}`)),
  );
  const ids = queued.map((r) => (r as { id: string }).id);
  const last = await runsFinished(db, ids, slug);
  const { rows: log } = await sql<{ ok: number }>`
    select count(*) filter (where row->>'status' = 'ok')::int as ok from action_log where run_id in (${sql.join(ids)})`.execute(db);
  const ok = log[0]?.ok ?? 0;
  if (ok !== runCount * stepCount) throw new Error(`${slug}: expected ${runCount * stepCount} ok action-log rows, found ${ok}`);
  return ok / ((last.getTime() - started) / 1000);
}

/** Saves a runbook, again while the registry has not yet taken the custom action in (it refreshes after the projector). */
async function saveRunbook(api: Api, slug: string, yaml: string): Promise<void> {
  for (let i = 0; ; i++) {
    const res = await api('POST', `/runbooks/${slug}`, { yaml_text: yaml });
    if (res.status === 201) return;
    if (i >= 100) throw new Error(`save ${slug}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
    await sleep(50);
  }
}

async function main() {
  const peer = await startPeer();
  const bench = await startBenchService({ SVC_ALLOW_PRIVATE_TARGETS: 'true' });
  const { db, engine } = bench.service.opened;
  const token = await bench.exchangeToken(
    [{ team: null, role: 'admin' }],
    'svc:cases:write svc:runbooks:write svc:runs:write svc:connections:write svc:connections:read',
  );
  const api = apiOf(bench, token);
  await expectStatus(
    api('POST', '/connections', { kind: 'http', name: 'bench-http', base_url: peer.origin, secret: 'bench-secret' }),
    201,
    'create the connection',
  );
  const spec = {
    name: CUSTOM,
    title: 'Bench echo',
    transport: 'http',
    default_connection: 'bench-http',
    inputs: [{ name: 'n', type: 'string', required: true }],
    http: { method: 'POST', path: '/echo/{{ inputs.n }}', body: { n: '{{ inputs.n }}' } },
    outputs: [
      { name: 'id', path: '$.id', type: 'string' },
      { name: 'token', path: '$.token', type: 'string' },
    ],
    redact: ['$.output.token'],
    effect_type: 'none',
    risk: 'read',
  };
  await expectStatus(api('POST', '/custom-actions', { spec }), 201, 'create the custom action');
  await saveRunbook(api, 'bench-custom-steps', customYaml);
  await saveRunbook(api, 'bench-http-steps', builtinYaml);
  const opened = await expectStatus(api('POST', '/cases', { title: 'Bench custom actions', severity: 'low' }), 201, 'open the case');
  const caseId = (opened as { id: string }).id;

  const custom: number[] = [];
  const builtin: number[] = [];
  for (let round = 0; round < rounds; round++) {
    builtin.push(await stepsPerSecond(db, api, caseId, 'bench-http-steps'));
    custom.push(await stepsPerSecond(db, api, caseId, 'bench-custom-steps'));
  }
  printReport(`engine=${engine} runs=${runCount} steps=${stepCount} rounds=${rounds} worker_concurrency=${bench.config.workerConcurrency}`, [
    benchLine('custom_action_steps_per_s_vs_http_request', median(custom), median(builtin), '>= 0.9x'),
  ]);
  await bench.close();
  await peer.close();
}

runBench(main);
