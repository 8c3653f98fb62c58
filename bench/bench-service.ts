/**
 * What every `make bench` measurement shares: the real service (runtime/boot.ts) on a
 * fresh database, PGlite in a temp dir or a new database on the server of
 * DATABASE_URL (dropped on close), with an identity whose exchange tokens the bench
 * signs itself; load rounds run by bench/load-worker.ts in a child process; and the
 * `name value baseline ratio target` lines of ../shared/BENCH.md.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { openDatabase, type OpenedDatabase } from '../adapters/db/connect.ts';
import { startService, type Service } from '../runtime/boot.ts';
import { migrateToLatest } from '../runtime/migrate.ts';
import { loadConfig, type Config } from '../runtime/config.ts';
import type { Database } from '../projections/database.ts';
import type { LoadJob, LoadResult } from './load-worker.ts';

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The nearest-rank `p`th percentile of `xs` (0 when empty). */
export const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

/** A runbook whose one autonomous step tags the case of every detector alert matching `conditions` (YAML lines under `conditions:`). */
export function tagOnAlertRunbook(id: string, name: string, conditions: string[], tag: string): string {
  return [
    `id: ${id}`,
    `name: ${name}`,
    'version: 1',
    'enabled: true',
    'trigger:',
    '  type: alert',
    '  conditions:',
    ...conditions.map((c) => `    ${c}`),
    'steps:',
    '  - id: tag',
    '    action: case.update',
    '    autonomous: true',
    '    with:',
    `      tags_add: [${tag}]`,
    '',
  ].join('\n');
}

/** One load round in a child process, so the generator never shares the service's event loop. */
export function load(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-worker.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
    child.once('message', (m: { result?: LoadResult; error?: string }) => {
      child.disconnect();
      if (m.result) resolve(m.result);
      else reject(new Error(m.error));
    });
    child.once('error', reject);
    child.send(job);
  });
}

/** Resolves the answer's body; throws naming `what` when its status is not `status`. */
export async function expectStatus(call: Promise<{ status: number; body: unknown }>, status: number, what: string): Promise<unknown> {
  const res = await call;
  if (res.status !== status) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Polls the `runs` read model every 20 ms until every run of `ids` has finished; resolves
 * the latest `finished_at`. Throws naming `what` as soon as one finished other than `succeeded`.
 */
export async function runsFinished(db: Kysely<Database>, ids: string[], what: string): Promise<Date> {
  for (;;) {
    const { rows } = await sql<{ open: number; failed: number; last: Date | null }>`
      select count(*) filter (where finished_at is null)::int as open,
             count(*) filter (where status <> 'succeeded' and finished_at is not null)::int as failed,
             max(finished_at) as last
      from runs where id in (${sql.join(ids)})`.execute(db);
    const row = rows[0];
    if (row && row.failed > 0) throw new Error(`${row.failed} runs of ${what} did not succeed`);
    if (row && row.open === 0 && row.last) return row.last;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A BENCH.md line: `name value baseline ratio target`. */
export function benchLine(name: string, value: number, baselineValue: number, target: string): string {
  return `${name}\t${value.toFixed(1)}\t${baselineValue.toFixed(1)}\t${(value / baselineValue).toFixed(2)}x\t${target}`;
}

/** Prints the run's parameters, the column names and the BENCH.md lines. */
export function printReport(parameters: string, lines: string[]): void {
  process.stdout.write(`${parameters}\nmetric\tvalue\tbaseline\tratio\ttarget\n${lines.map((l) => `${l}\n`).join('')}`);
}

/** The mains bench files handed to `runBench` while bench/in-one-process.ts imports them, in import order. */
export const queuedBenches: (() => Promise<void>)[] = [];

/**
 * Runs a bench's main, exiting 1 with the stack on failure; when bench/in-one-process.ts
 * imports the file (BENCH_IN_ONE_PROCESS=1), queues it for that runner instead.
 */
export function runBench(main: () => Promise<void>): void {
  if (process.env.BENCH_IN_ONE_PROCESS === '1') {
    queuedBenches.push(main);
    return;
  }
  main().catch(benchFailed);
}

/** Ends the process with exit 1 after printing `bench failed:` and the stack of `error`. */
export function benchFailed(error: unknown): never {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
}

/** Serves a baseline app on an ephemeral port of 127.0.0.1. */
export async function serveBaseline(app: Hono): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A fresh database on the server of DATABASE_URL, so runs never see each other's rows; null on PGlite. */
export async function freshServerDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
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

/**
 * A fresh, migrated database for a bench that drives a port rather than the service: a
 * new database on the server of DATABASE_URL, or PGlite in a temp dir; `close` drops or
 * removes it. No projector or worker runs on it.
 */
export async function openBenchDatabase(): Promise<OpenedDatabase & { close: () => Promise<void> }> {
  const server = await freshServerDatabase();
  const dataDir = server ? null : mkdtempSync(join(tmpdir(), 'svc-bench-db-'));
  const opened = await openDatabase(server ? { databaseUrl: server.url } : { dataDir });
  await migrateToLatest(opened.db);
  return {
    ...opened,
    close: async () => {
      await opened.close();
      await server?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type BenchService = {
  service: Service;
  /** The configuration the service runs with (its defaults unless `extraEnv` says otherwise). */
  config: Config;
  /** The fresh database's URL on the server of DATABASE_URL; null on PGlite. */
  databaseUrl: string | null;
  url: string;
  /** A reusable exchange token acting for a person with `grants` (CONTRACTS.md section 2), valid 1 h. */
  exchangeToken: (grants: { team: string | null; role: string }[], scope: string) => Promise<string>;
  /** A reusable token of the identity service itself (`token_use: service`, CONTRACTS.md section 2) with `scope`, valid 1 h: the peer routes' caller. */
  serviceToken: (scope: string) => Promise<string>;
  close: () => Promise<void>;
};

/** Starts the service for a bench with `extraEnv` on top; quiet logs, ephemeral port. */
export async function startBenchService(extraEnv: Record<string, string> = {}): Promise<BenchService> {
  const server = await freshServerDatabase();
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
  const issuer = 'https://bench.invalid';
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'EdDSA' };
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const runbooksDir = mkdtempSync(join(tmpdir(), 'svc-bench-runbooks-'));
  const env = {
    ...process.env,
    ...(server ? { DATABASE_URL: server.url } : {}),
    SVC_IDENTITY_ISSUER: issuer,
    SVC_IDENTITY_JWKS: JSON.stringify({ keys: [jwk] }),
    SVC_DATA_DIR: dataDir,
    SVC_SECRET_KEY: process.env.SVC_SECRET_KEY ?? randomBytes(32).toString('base64'),
    SVC_RUNBOOKS_DIR: runbooksDir,
    SVC_WORKER_METRICS_PORT: '0',
    PORT: '0',
    LOG_LEVEL: 'error',
    ...extraEnv,
  };
  const config = loadConfig(env);
  const service = await startService(config, env, pino({ level: 'error' }));
  if (service.url === null) throw new Error('bench service started without an API');
  return {
    service,
    config,
    databaseUrl: server?.url ?? null,
    url: service.url,
    exchangeToken: (grants, scope) =>
      new SignJWT({ token_use: 'exchange', scope, act: { sub: randomUUID(), email: 'bench-analyst@example.com', grants } })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'bench' })
        .setIssuer(issuer)
        .setAudience('svc')
        .setSubject('bench-workload')
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
    serviceToken: (scope) =>
      new SignJWT({ token_use: 'service', scope })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'bench' })
        .setIssuer(issuer)
        .setAudience('svc')
        .setSubject('identity')
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
    close: async () => {
      await service.close();
      await server?.drop();
      for (const dir of [dataDir, runbooksDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A JSON call to the bench service as `token`: method, path and optional body; the status and parsed answer. */
export type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/** `Api` over `bench`'s URL with a bearer `token`. */
export function apiOf(bench: BenchService, token: string): Api {
  return async (method, path, body) => {
    const res = await fetch(`${bench.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };
}
