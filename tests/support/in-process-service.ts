/**
 * Runs the real service in this test process (`startService` from runtime/boot.ts, the
 * same wiring `svc serve` uses) on one engine: a fresh data dir, and a fresh database on
 * the TEST_DATABASE_URL server when the engine is a server. Unlike service-process.ts
 * it exposes the service's database and what it logged at error level.
 *
 * Requests go to the API in process (`request`, Hono's handler: no socket, no port);
 * `listen: true` also opens the socket, for what needs one: a peer or a browser calling
 * the service, the live WebSocket, the HTTP server's own answers to broken requests.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceLogger } from '../../runtime/logger.ts';
import type { Clock } from '../../adapters/shared/clock.ts';
import { startService, type Service } from '../../runtime/boot.ts';
import { loadConfig } from '../../runtime/config.ts';
import { createServerDatabase } from './engines.ts';
import { answerChecker, type AnswerChecker } from './openapi-check.ts';
import { createTestIdentity, engineEnv, type TestIdentity } from './service-process.ts';

export type InProcessService = {
  /** The socket's base URL; reading it throws unless the service was started with `listen: true`. */
  readonly url: string;
  /** Calls the API in process: `path` below the base path, with fetch's `init`. */
  request: (path: string, init?: RequestInit) => Promise<Response>;
  service: Service;
  identity: TestIdentity & { issuer: string };
  /** The environment the service was started with (secrets included, to assert they never leak). */
  env: Record<string, string>;
  /** Lines the service logged at error level, parsed. */
  errors: () => Record<string, unknown>[];
  close: () => Promise<void>;
};

/**
 * Starts the service on `engine` with `runbooks` (file name to YAML text) in its
 * runbooks directory and `extraEnv` on top of the engine environment; listens on an
 * ephemeral port of 127.0.0.1. Outbound HTTP may reach private targets such as the
 * loopback receivers unless `extraEnv` sets `SVC_ALLOW_PRIVATE_TARGETS: 'false'`.
 */
export async function startInProcessService(
  engine: { server: boolean },
  options: { runbooks?: Record<string, string>; extraEnv?: Record<string, string>; clock?: Clock; listen?: boolean } = {},
): Promise<InProcessService> {
  const identity = await createTestIdentity(undefined, options.clock);
  const runbooksDir = mkdtempSync(join(tmpdir(), 'svc-it-runbooks-'));
  for (const [file, yaml] of Object.entries(options.runbooks ?? {})) writeFileSync(join(runbooksDir, file), yaml);
  const env: Record<string, string> = {
    ...engineEnv(identity, engine.server ? await createServerDatabase() : null),
    SVC_RUNBOOKS_DIR: runbooksDir,
    PORT: '0',
    HOST: '127.0.0.1',
    SVC_POLL_INTERVAL_MS: '20',
    SVC_ALLOW_PRIVATE_TARGETS: 'true',
    ...options.extraEnv,
  };
  const logged: string[] = [];
  const log = serviceLogger('error', { write: (line: string) => void logged.push(line) });
  const config = loadConfig(env);
  const listen = options.listen ?? false;
  const service = await startService(config, env, log, { listen, ...(options.clock ? { clock: options.clock } : {}) });
  const handler = service.request;
  if (handler === null) throw new Error('service started without an API');
  const socketUrl = service.url;
  const dataDir = env.SVC_DATA_DIR;
  return {
    get url() {
      if (socketUrl === null) throw new Error('this service has no socket: start it with { listen: true }');
      return socketUrl;
    },
    request: (path, init) => handler(new Request(`http://127.0.0.1${config.basePath}${path}`, init)),
    service,
    identity,
    env,
    errors: () => logged.map((line) => JSON.parse(line) as Record<string, unknown>),
    close: async () => {
      await service.close();
      for (const dir of [runbooksDir, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A person as the identity service knows it: subject, email and grants. */
export type TestPerson = { sub: string; email: string; grants: { team: string | null; role: string }[] };
export type TestAnswer = { status: number; body: any; text: string };

/** A person with a fresh subject. */
export const testPerson = (email: string, grants: TestPerson['grants']): TestPerson => ({ sub: randomUUID(), email, grants });

const checkers = new WeakMap<InProcessService, Promise<AnswerChecker>>();

/**
 * Holds an answer to what `/openapi.json` declares for its operation and status; throws
 * naming the mismatch. Every answer of callAs and detectorIntake passes through it, so
 * the whole suite checks the document against what is served.
 */
export async function expectDeclared(svc: InProcessService, method: string, path: string, res: Response, text: string): Promise<void> {
  let checker = checkers.get(svc);
  if (!checker) {
    checker = svc.request('/openapi.json').then(async (r) => answerChecker((await r.json()) as Parameters<typeof answerChecker>[0]));
    checkers.set(svc, checker);
  }
  const contentType = res.headers.get('content-type');
  const body = text !== '' && (contentType ?? '').includes('json') ? JSON.parse(text) : text;
  const problem = (await checker).mismatch(method, path, res.status, contentType, body);
  if (problem !== null) throw new Error(`answer does not match /openapi.json: ${problem}`);
}

/** A request-bound assertion for `who` as the gateway mints it (CONTRACTS.md section 2), for `method` on `path` (its query ignored). */
export function assertionAs(svc: InProcessService, who: TestPerson, method: string, path: string): Promise<string> {
  return svc.identity.sign({
    token_use: 'assertion',
    sub: who.sub,
    email: who.email,
    name: who.email,
    grants: who.grants,
    htm: method,
    htu: path.split('?')[0],
  });
}

/** Calls the service as `who`, with a request-bound assertion as the gateway mints it (CONTRACTS.md section 2). */
export async function callAs(svc: InProcessService, who: TestPerson, method: string, path: string, body?: unknown): Promise<TestAnswer> {
  const token = await assertionAs(svc, who, method, path);
  const res = await svc.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  await expectDeclared(svc, method, path, res, text);
  return { status: res.status, body: text === '' ? null : JSON.parse(text), text };
}

/** A native detector alert (CONTRACTS.md section 5) of the SSH brute-force rule, with `extra` fields on top. */
export const nativeAlert = (alertId: string, extra: Record<string, unknown> = {}) => ({
  alert_id: alertId,
  rule: { id: 'ssh-bf', title: 'SSH brute force', severity: 'high' },
  detected_at: '2026-11-22T10:00:00Z',
  matched_log: { source: { ip: '203.0.113.9' } },
  ...extra,
});

/** POSTs `body` (one native alert or an array) to `/webhooks/detector` with the service's bootstrap secret. */
export async function detectorIntake(svc: InProcessService, body: unknown): Promise<TestAnswer> {
  const res = await svc.request('/webhooks/detector', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-token': svc.env.SVC_DETECTOR_BOOTSTRAP_SECRET ?? '' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  await expectDeclared(svc, 'POST', '/webhooks/detector', res, text);
  return { status: res.status, body: text === '' ? null : JSON.parse(text), text };
}

/** Queues `slug` on case `caseId` as `who` and polls (bounded, 15 s) until the run succeeded or failed; answers `GET /runs/<id>`. */
export async function runOnCase(svc: InProcessService, who: TestPerson, caseId: string, slug: string): Promise<any> {
  const queued = await callAs(svc, who, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, {});
  if (queued.status !== 202) throw new Error(`run of ${slug} not queued: ${queued.text}`);
  return runWhen(svc, who, queued.body.run_id ?? queued.body.id, /^(succeeded|failed)$/);
}

/** Polls `GET /runs/<id>` as `who` until its status matches `status` (at most 20 s); the run view, `id` included. */
export async function runWhen(svc: InProcessService, who: TestPerson, id: string, status: RegExp): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const run = await callAs(svc, who, 'GET', `/runs/${id}`);
    if (status.test(run.body.status)) return { ...run.body, id };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${id} never reached ${status}`);
}

/** Waits until `GET /actions` lists `name` (or no longer does, `present` false): the registry refreshes when the projector applies a custom action event. */
export async function actionListed(svc: InProcessService, who: TestPerson, name: string, present = true): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const items: { name: string }[] = (await callAs(svc, who, 'GET', '/actions')).body;
    if (items.some((a) => a.name === name) === present) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`GET /actions did not ${present ? 'list' : 'drop'} ${name}`);
}
