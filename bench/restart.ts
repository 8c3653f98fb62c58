/**
 * `make bench`: how fast the compiled service (`node bin/svc.js serve`, one process, both
 * roles) answers again after a SIGKILL, how much memory it holds, and how many alerts a
 * crash loop refuses (issue 48).
 *
 * - `restart_ready_ms`: from spawning the process to the first 200 of `GET /healthz`, after
 *   a SIGKILL of the previous one on a small data directory (BENCH_RESTART_ALERTS alerts, 50),
 *   median of BENCH_ROUNDS (5). Baseline: bench/restart-baseline.mjs, a process that opens
 *   the same database (PGlite's data directory, or a connection to the server) and listens,
 *   measured the same way in turns with the service. Target <= 2x.
 * - `idle_rss_mb`: the resident set of the process BENCH_IDLE_SECONDS (10) after it is ready;
 *   `load_rss_mb`: its peak resident set (VmHWM) after BENCH_LOAD_ALERTS (2,000) alerts sent
 *   16 at a time. Baseline for both: the baseline process's resident set. Target for the
 *   idle one: at most n8n's idle process, about 350 MB; the loaded one is reported.
 * - `crash_loop_refused_pct`: alerts sent at BENCH_CRASH_RATE a second (20) for
 *   BENCH_CRASH_SECONDS (60) while the process is SIGKILLed and started again at the start
 *   of every BENCH_CRASH_EVERY_SECONDS (20); the share refused (no answer: connection
 *   refused or reset). Baseline: the share the baseline process's start would refuse at the same rate
 *   (its ready time over the kill interval). Target < 10%.
 *
 * - `cli_help_ms`: `node bin/svc.js --help` from spawn to exit, median of BENCH_ROUNDS.
 *   Baseline: `node -e 0`, Node's own start. Target < 300 ms.
 *
 * Engine: PGlite in a temp data dir, or a fresh database on the server of DATABASE_URL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair } from 'jose';
import { loadConfig } from '../runtime/config.ts';
import { benchLine, freshServerDatabase, median, printReport, runBench, sleep } from './bench-service.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const smallDataAlerts = Number(process.env.BENCH_RESTART_ALERTS ?? 50);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const loadAlerts = Number(process.env.BENCH_LOAD_ALERTS ?? 2000);
const crashRate = Number(process.env.BENCH_CRASH_RATE ?? 20);
const crashSeconds = Number(process.env.BENCH_CRASH_SECONDS ?? 60);
const crashEverySeconds = Number(process.env.BENCH_CRASH_EVERY_SECONDS ?? 20);
const N8N_IDLE_RSS_MB = 350;
const DETECTOR_TOKEN = 'bench-restart';

const repo = fileURLToPath(new URL('..', import.meta.url));

type Started = { child: ChildProcess; readyMs: number; output: () => string };

/** Spawns `args` and resolves once `GET <url>/healthz` answers 200, with the time that took (ms). */
async function startUntilReady(args: string[], env: NodeJS.ProcessEnv, url: string): Promise<Started> {
  let output = '';
  const began = performance.now();
  const child = spawn(process.execPath, args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}:\n${output}`);
    if (performance.now() - began > 60_000) throw new Error(`${args.join(' ')} not ready after 60 s:\n${output}`);
    const ok = await fetch(`${url}/healthz`).then(
      (res) => res.body?.cancel().then(() => res.ok) ?? res.ok,
      () => false,
    );
    if (ok) return { child, readyMs: performance.now() - began, output: () => output };
    await sleep(5);
  }
}

/** Wall time of `node <args>` from spawn to exit, ms; rejects when it exits non-zero. */
async function runToExit(args: string[]): Promise<number> {
  const began = performance.now();
  const child = spawn(process.execPath, args, { cwd: repo, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}`);
  return performance.now() - began;
}

async function sigkill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  await exited;
}

/** A line of /proc/<pid>/status in MB (VmRSS: resident now; VmHWM: the peak). */
function statusMb(child: ChildProcess, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  if (!line?.[1]) throw new Error(`no ${field} for process ${child.pid}`);
  return Number(line[1]) / 1024;
}

/** Sends one detector alert; 'answered' for any HTTP answer, 'refused' when no process answered. */
async function sendAlert(url: string, n: number): Promise<'answered' | 'refused'> {
  try {
    const res = await fetch(`${url}/webhooks/detector`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-token': DETECTOR_TOKEN },
      body: JSON.stringify({
        alert_id: `restart-${n}-${randomBytes(4).toString('hex')}`,
        rule: { id: `restart-rule-${n % 40}`, title: `restart rule ${n % 40}`, severity: 'medium' },
        matched_log: { source: { ip: `203.0.113.${n % 250}` } },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`alert ${n} answered ${res.status}`);
    return 'answered';
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('alert ')) throw error;
    return 'refused';
  }
}

async function sendAlerts(url: string, count: number, concurrency: number): Promise<void> {
  let next = 0;
  const sender = async () => {
    for (let n = next++; n < count; n = next++) if ((await sendAlert(url, n)) === 'refused') throw new Error(`alert ${n} was refused`);
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
}

async function main(): Promise<void> {
  const server = await freshServerDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-restart-'));
  const { publicKey } = await generateKeyPair('EdDSA');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(server ? { DATABASE_URL: server.url } : {}),
    SVC_DATA_DIR: dataDir,
    SVC_EMBEDDED_SHARED_BUFFERS: process.env.SVC_EMBEDDED_SHARED_BUFFERS ?? loadConfig({}).embeddedSharedBuffers,
    SVC_IDENTITY_ISSUER: 'https://bench.invalid',
    SVC_IDENTITY_JWKS: JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'EdDSA' }] }),
    SVC_SECRET_KEY: randomBytes(32).toString('base64'),
    SVC_DETECTOR_BOOTSTRAP_SECRET: DETECTOR_TOKEN,
    SVC_RUNBOOKS_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-runbooks-')),
    SVC_WORKER_METRICS_PORT: '0',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
  };
  const service = ['bin/svc.js', 'serve'];
  const baseline = ['bench/restart-baseline.mjs', dataDir, String(port)];
  try {
    // The first start migrates; the small data directory is what every restart opens.
    const first = await startUntilReady(service, env, url);
    await sendAlerts(url, smallDataAlerts, 8);
    await sigkill(first.child);

    const serviceMs: number[] = [];
    const baselineMs: number[] = [];
    let baselineRssMb = 0;
    for (let round = 0; round < rounds; round++) {
      const base = await startUntilReady(baseline, env, url);
      baselineMs.push(base.readyMs);
      baselineRssMb = statusMb(base.child, 'VmRSS');
      await sigkill(base.child);
      const started = await startUntilReady(service, env, url);
      serviceMs.push(started.readyMs);
      await sigkill(started.child);
    }

    const running = await startUntilReady(service, env, url);
    await sleep(idleSeconds * 1000);
    const idleRssMb = statusMb(running.child, 'VmRSS');
    await sendAlerts(url, loadAlerts, 16);
    const loadRssMb = statusMb(running.child, 'VmHWM');
    await sigkill(running.child);

    const refusedPct = await crashLoop(service, env, url);

    const helpMs: number[] = [];
    const nodeMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      nodeMs.push(await runToExit(['-e', '0']));
      helpMs.push(await runToExit(['bin/svc.js', '--help']));
    }
    const baselineRefusedPct = (100 * median(baselineMs)) / (crashEverySeconds * 1000);

    printReport(
      `restart: ${rounds} rounds on ${server ? 'PostgreSQL' : 'PGlite'} after ${smallDataAlerts} alerts, node ${process.versions.node}; idle ${idleSeconds} s, load ${loadAlerts} alerts; crash loop ${crashSeconds} s at ${crashRate}/s, SIGKILL every ${crashEverySeconds} s`,
      [
        benchLine('restart_ready_ms', median(serviceMs), median(baselineMs), '<= 2x'),
        benchLine('idle_rss_mb', idleRssMb, baselineRssMb, `<= ${N8N_IDLE_RSS_MB} MB`),
        benchLine('load_rss_mb', loadRssMb, baselineRssMb, 'reported'),
        benchLine('crash_loop_refused_pct', refusedPct, baselineRefusedPct, '< 10%'),
        benchLine('cli_help_ms', median(helpMs), median(nodeMs), '< 300 ms'),
      ],
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (env.SVC_RUNBOOKS_DIR) rmSync(env.SVC_RUNBOOKS_DIR, { recursive: true, force: true });
    await server?.drop();
  }
}

/**
 * Sends alerts at crashRate a second for crashSeconds while the service is SIGKILLed and
 * started again every crashEverySeconds; resolves with the percentage no process answered.
 */
async function crashLoop(service: string[], env: NodeJS.ProcessEnv, url: string): Promise<number> {
  let current = (await startUntilReady(service, env, url)).child;
  let answered = 0;
  let refused = 0;
  const began = performance.now();
  const sends: Promise<void>[] = [];
  let n = 0;
  const sender = (async () => {
    while (performance.now() - began < crashSeconds * 1000) {
      sends.push(sendAlert(url, n++).then((outcome) => void (outcome === 'answered' ? answered++ : refused++)));
      await sleep(1000 / crashRate);
    }
  })();
  // A kill at the start of every period, so each period holds exactly one restart.
  const killer = (async () => {
    for (let at = 0; at < crashSeconds; at += crashEverySeconds) {
      await sleep(began + at * 1000 - performance.now());
      await sigkill(current);
      current = spawn(process.execPath, service, { cwd: repo, env, stdio: 'ignore' });
    }
  })();
  await Promise.all([sender, killer]);
  await Promise.all(sends);
  await sigkill(current);
  return (100 * refused) / (answered + refused);
}

runBench(main);
