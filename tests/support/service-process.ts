/**
 * Runs the real service (`node bin/svc.js serve`) as a child process for end-to-end
 * tests, with its own identity key (so it works on a PostgreSQL server, where dev
 * identity is refused), and mints caller tokens for it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { repoRoot } from './fixtures.ts';
import { seedEmbeddedDataDir } from './migrated-databases.ts';

/** Options of {@link TestIdentity.sign}: `kid` overrides the key id in the header (to forge a token under a trusted kid). */
export type SignOptions = { kid?: string };

export type TestIdentity = {
  jwks: string;
  kid: string;
  mint: (grants: { team: string | null; role: string }[]) => Promise<string>;
  /**
   * Signs any claims with this identity's key: `iss`, `aud` (`svc`), `iat` (now), `exp`
   * (`iat + 60`) and a fresh `jti` are filled in unless `claims` sets them.
   * @example identity.sign({ token_use: 'assertion', sub, email, name, grants, htm: 'GET', htu: '/cases' })
   */
  sign: (claims: Record<string, unknown>, options?: SignOptions) => Promise<string>;
};

/** A test identity provider; its tokens are issued at `now()` (a test's manual clock, or the system time). */
export async function createTestIdentity(issuer = 'svc-e2e-identity', now: () => Date = () => new Date()): Promise<TestIdentity & { issuer: string }> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
  return {
    issuer,
    kid,
    jwks: JSON.stringify({ keys: [jwk] }),
    sign: (claims, options = {}) => {
      const iat = Math.floor(now().getTime() / 1000);
      return new SignJWT({ iss: issuer, aud: 'svc', iat, exp: iat + 60, jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg: 'EdDSA', kid: options.kid ?? kid })
        .sign(privateKey);
    },
    mint: (grants) =>
      new SignJWT({
        token_use: 'exchange',
        scope: ['cases', 'alerts', 'runbooks', 'runs', 'connections', 'admin'].flatMap((a) => [`svc:${a}:read`, `svc:${a}:write`]).join(' '),
        act: { sub: '3f6f1a52-8c1e-4c55-9a0e-1f2d3c4b5a69', email: 'e2e-analyst@example.com', grants },
      })
        .setProtectedHeader({ alg: 'EdDSA', kid })
        .setIssuer(issuer)
        .setAudience('svc')
        .setSubject('e2e-workload')
        .setJti(randomUUID())
        .setIssuedAt(Math.floor(now().getTime() / 1000))
        .setExpirationTime(Math.floor(now().getTime() / 1000) + 600)
        .sign(privateKey),
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export type ServiceProcess = { url: string; child: ChildProcess; output: () => string; stop: () => Promise<void>; kill: () => Promise<void> };

/**
 * Spawns `svc serve` with `env` (and PATH, HOME) and collects what it prints; `signal`
 * sends a signal unless the process already ended and resolves once it exited. The
 * process refuses to load any TypeScript (no-typescript.mjs): it runs the compiled build.
 */
function spawnService(env: Record<string, string>): { child: ChildProcess; output: () => string; signal: (name: NodeJS.Signals) => Promise<void> } {
  let output = '';
  const child = spawn(process.execPath, ['--import', join(repoRoot, 'tests/support/no-typescript.mjs'), join(repoRoot, 'bin/svc.js'), 'serve'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  // A failed spawn or signal is an 'error' event: unheard, it would end the test process.
  child.on('error', (error) => (output += `\n[child process error] ${error.message}\n`));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { child, output: () => output, signal };
}

/**
 * Starts the service and resolves once `/healthz` answers from this very process. The
 * port is free when chosen but not reserved: on a busy machine another test's process can
 * take it first, and its `/healthz` would answer for ours. So the listener's owner is
 * checked, and a start that lost its port (`already in use`) is tried again on another.
 */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    const started = await tryStartServiceProcess(env);
    if ('url' in started) return started;
    if (attempt === 3) throw new Error(`service lost its port three times:\n${started.output}`);
  }
}

async function tryStartServiceProcess(env: Record<string, string>): Promise<ServiceProcess | { lostPort: true; output: string }> {
  const port = await freePort();
  const { child, output, signal } = spawnService({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (output().includes(`port ${port} is already in use`)) return { lostPort: true, output: output() };
      throw new Error(`service exited early:\n${output()}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok && listensHere(port, child.pid)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await signal('SIGKILL');
      throw new Error(`service did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, child, output, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}

/**
 * Starts a worker-only process (`SVC_ROLE=worker`: no HTTP listener) on the database of
 * `env`. It has no health endpoint, so this resolves once the process is spawned; `stop`
 * and `kill` work as for the service.
 */
export function startWorkerProcess(env: Record<string, string>): ServiceProcess {
  const { child, output, signal } = spawnService({ LOG_LEVEL: 'warn', ...env, SVC_ROLE: 'worker' });
  return { url: '', child, output, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}

/**
 * Environment for one engine: a fresh data dir, and a fresh server database when given.
 * Without a server the data dir holds a copy of the migrated PGlite database, unless
 * `emptyDataDir` asks for the bare directory a first start sees.
 * Outbound HTTP may reach private targets (the test receivers listen on 127.0.0.1); a
 * test of the SSRF guard sets `SVC_ALLOW_PRIVATE_TARGETS: 'false'` on top.
 */
export function engineEnv(
  identity: { issuer: string; jwks: string },
  databaseUrl: string | null,
  options: { emptyDataDir?: boolean } = {},
): Record<string, string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  if (databaseUrl === null && !options.emptyDataDir) seedEmbeddedDataDir(dataDir);
  return {
    SVC_DATA_DIR: dataDir,
    SVC_IDENTITY_ISSUER: identity.issuer,
    SVC_IDENTITY_JWKS: identity.jwks,
    SVC_SECRET_KEY: randomBytes(32).toString('base64'),
    SVC_DETECTOR_BOOTSTRAP_SECRET: 'e2e-bootstrap-secret',
    SVC_ALLOW_PRIVATE_TARGETS: 'true',
    // Tests run many services at once: each worker serves its metrics on a port of its own.
    SVC_WORKER_METRICS_PORT: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

/** The engines the end-to-end suites run the real process on: PGlite, and a server when TEST_DATABASE_URL is set. */
export const e2eEngines = [{ name: 'pglite', server: false }, ...(process.env.TEST_DATABASE_URL ? [{ name: 'postgres', server: true }] : [])];

/**
 * The one engine of the suites whose behaviour lives at a real peer or in the HTTP layer, not
 * in the database: the shipped packs against their sshd, packet filter or vendor stand-in,
 * vendor answers and probes, the route fuzz, the runbook Git source. Embedded PGlite, the
 * engine `make run` starts. What the engines do differently (pools, locks, LISTEN/NOTIFY, a
 * second process) stays covered on both by the suites on `e2eEngines` and the event-store
 * contract suite (docs/architecture.md "Tests").
 */
export const peerEngines = [{ name: 'pglite', server: false }];

/** The inodes (`socket:[N]`) of the loopback TCP sockets in /proc/net/tcp{,6} whose columns `match` accepts. */
function socketInodes(match: (local: number, remote: number, state: string) => boolean): Set<string> {
  const port = (address: string | undefined) => parseInt(address?.split(':').pop() ?? '', 16);
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (match(port(cols[1]), port(cols[2]), cols[3] ?? '') && cols[9] && cols[9] !== '0') inodes.add(`socket:[${cols[9]}]`);
    }
  }
  return inodes;
}

/** Which of `pids` has a descriptor on one of `inodes`, or null. */
function holderOf(inodes: Set<string>, pids: number[]): number | null {
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // exited
    }
    for (const fd of fds) {
      try {
        if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return pid;
      } catch {
        // closed between listing and reading
      }
    }
  }
  return null;
}

/**
 * Which of `pids` holds the client end of the loopback TCP connection from `clientPort`
 * to `serverPort`, or null (Linux only). Lets a test tell which child process sent a
 * request it received, without the service having to say who it is.
 */
export function connectionOwner(clientPort: number, serverPort: number, pids: number[]): number | null {
  return holderOf(
    socketInodes((local, remote) => local === clientPort && remote === serverPort),
    pids,
  );
}

/** Whether process `pid` listens on TCP `port` (state 0A is LISTEN); true where there is no /proc to ask (not Linux). */
function listensHere(port: number, pid: number | undefined): boolean {
  if (!existsSync('/proc/net/tcp')) return true;
  const listening = socketInodes((local, _remote, state) => local === port && state === '0A');
  return pid !== undefined && holderOf(listening, [pid]) === pid;
}
