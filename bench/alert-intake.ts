/**
 * `make bench`: alert intake throughput over HTTP (dedup, correlation, case open or
 * append, projections caught up before the 202) next to a baseline measured in the
 * same run on the same database: a bare Hono handler doing one single-row INSERT per
 * request (../shared/BENCH.md). Prints medians of BENCH_ROUNDS rounds as
 * `name value baseline ratio target`. Engine: PGlite in a temp dir, or a fresh database on the
 * server of DATABASE_URL (dropped afterwards).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fork } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { exportJWK, generateKeyPair } from 'jose';
import { Hono } from 'hono';
import { sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { startService } from '../runtime/boot.ts';
import { loadConfig } from '../runtime/config.ts';
import type { LoadJob, LoadResult } from './load-worker.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = 50;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Runs one load round in a child process (bench/load-worker.ts). */
function load(job: Omit<LoadJob, 'seconds' | 'connections'>): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-worker.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
    child.once('message', (m: { result?: LoadResult; error?: string }) => {
      child.disconnect();
      if (m.result) resolve(m.result);
      else reject(new Error(m.error));
    });
    child.once('error', reject);
    child.send({ ...job, seconds, connections });
  });
}

/** A fresh database on the server of DATABASE_URL, so runs never see each other's alerts; null on PGlite. */
async function freshServerDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return null;
  const name = `svc_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database ${name}`) };
}

/** Identity for server mode, where dev identity is refused; the bench calls no authenticated route. */
async function benchIdentity(): Promise<Record<string, string>> {
  if (!process.env.DATABASE_URL || process.env.SVC_IDENTITY_JWKS) return {};
  const { publicKey } = await generateKeyPair('EdDSA', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'EdDSA' };
  return { SVC_IDENTITY_ISSUER: 'https://bench.invalid', SVC_IDENTITY_JWKS: JSON.stringify({ keys: [jwk] }) };
}

async function main() {
  const server = await freshServerDatabase();
  const env = {
    ...process.env,
    ...(server ? { DATABASE_URL: server.url } : {}),
    ...(await benchIdentity()),
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

  const svc: LoadResult[] = [];
  const base: LoadResult[] = [];
  for (let round = 0; round < rounds; round++) {
    base.push(await load({ url: `http://127.0.0.1:${basePort}/ingest`, headers: {}, round }));
    svc.push(await load({ url: `${service.url}/webhooks/detector`, headers: { 'x-svc-token': 'bench' }, round }));
  }
  const line = (name: string, value: number, baselineValue: number, target: string) =>
    `${name}\t${value.toFixed(1)}\t${baselineValue.toFixed(1)}\t${(value / baselineValue).toFixed(2)}x\t${target}`;
  process.stdout.write(`engine=${engine} connections=${connections} rounds=${rounds} seconds=${seconds}\n`);
  process.stdout.write('metric\tvalue\tbaseline\tratio\ttarget\n');
  process.stdout.write(`${line('alert_intake_rps', median(svc.map((r) => r.rps)), median(base.map((r) => r.rps)), '>= 1.0x')}\n`);
  process.stdout.write(`${line('alert_intake_p99_ms', median(svc.map((r) => r.p99)), median(base.map((r) => r.p99)), '<= 2.0x')}\n`);
  await new Promise<void>((r) => baseServer.close(() => r()));
  await service.close();
  await server?.drop();
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
