/**
 * `make bench`: alert intake throughput over HTTP (dedup, correlation, case open or
 * append, projections caught up before the 202) next to a baseline measured in the
 * same run on the same database: a bare Hono handler doing one single-row INSERT per
 * request (../shared/BENCH.md). Prints medians of BENCH_ROUNDS rounds as
 * `name value baseline ratio target`. Engine: PGlite in a temp dir, or DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { sql } from 'kysely';
import { pino } from 'pino';
import { startService } from '../runtime/boot.ts';
import { loadConfig } from '../runtime/config.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = 50;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function load(url: string, headers: Record<string, string>, body: (i: number) => string) {
  let i = 0;
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...headers },
    requests: [{ setupRequest: (req) => ({ ...req, body: body(i++) }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

async function main() {
  const env = {
    ...process.env,
    SVC_DATA_DIR: process.env.SVC_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'svc-bench-')),
    SVC_DETECTOR_BOOTSTRAP_SECRET: 'bench',
    SVC_SECRET_KEY: process.env.SVC_SECRET_KEY ?? randomBytes(32).toString('base64'),
    SVC_RUNBOOKS_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-runbooks-')),
    PORT: '0',
    LOG_LEVEL: 'error',
  };
  const service = await startService(loadConfig(env), env, pino({ level: 'error' }));
  const { db, engine } = service.opened;
  await sql`create table if not exists bench_baseline (id bigserial primary key, body jsonb not null, at timestamptz not null default now())`.execute(db);
  const baseline = new Hono().post('/ingest', async (c) => {
    const body = await c.req.text();
    await sql`insert into bench_baseline (body) values (${body}::jsonb)`.execute(db);
    return c.json({ ok: true }, 202);
  });
  const baseServer = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: baseline.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const basePort = (baseServer.address() as AddressInfo).port;

  const svc: { rps: number; p99: number }[] = [];
  const base: { rps: number; p99: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    const alert = (i: number) =>
      JSON.stringify({
        alert_id: `bench-${round}-${i}-${i % 10 === 9 ? 'dup' : randomBytes(4).toString('hex')}`,
        rule: { id: `rule-${i % 20}`, title: `Bench rule ${i % 20}`, severity: 'medium' },
        matched_log: { source: { ip: `198.51.100.${i % 250}` } },
      });
    base.push(await load(`http://127.0.0.1:${basePort}/ingest`, {}, alert));
    svc.push(await load(`${service.url}/webhooks/detector`, { 'x-svc-token': 'bench' }, alert));
  }
  const line = (name: string, value: number, baselineValue: number, target: string) =>
    `${name}\t${value.toFixed(1)}\t${baselineValue.toFixed(1)}\t${(value / baselineValue).toFixed(2)}x\t${target}`;
  process.stdout.write(`engine=${engine} connections=${connections} rounds=${rounds} seconds=${seconds}\n`);
  process.stdout.write('metric\tvalue\tbaseline\tratio\ttarget\n');
  process.stdout.write(`${line('alert_intake_rps', median(svc.map((r) => r.rps)), median(base.map((r) => r.rps)), '>= 1.0x')}\n`);
  process.stdout.write(`${line('alert_intake_p99_ms', median(svc.map((r) => r.p99)), median(base.map((r) => r.p99)), '<= 2.0x')}\n`);
  await new Promise<void>((r) => baseServer.close(() => r()));
  await service.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
