/**
 * The integration pack test against real peers on 127.0.0.1, on every engine
 * (adapters/integration-packs/pack-test-runner.ts; SPEC.md "Integration packs": "Test
 * pack runs an action only against a test-mode connection"): connections from the real
 * store with sealed secrets, an HTTP receiver reached through the guarded outbound fetch,
 * and the real OpenSSH server. A connection that is not in test mode, of another kind or
 * absent never gets a request; an effectful action without a fixture never runs.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../adapters/connections/secret-box.ts';
import { createConnectionStore, type ConnectionStore } from '../../adapters/connections/store.ts';
import { runPackTest, type PackTestDeps } from '../../adapters/integration-packs/pack-test-runner.ts';
import { createGuardedFetch, type GuardedFetch } from '../../adapters/outbound/guarded-fetch.ts';
import { EFFECTFUL_WITHOUT_FIXTURE, type PackTestRow } from '../../domain/integration-packs/pack-test.ts';
import { engines } from '../support/engines.ts';
import { startReceiver } from '../support/receiver.ts';
import { sshdAvailable, startSshd, type TestSshd } from '../support/sshd.ts';
import { parsedPack } from '../support/pack-documents.ts';

const SANDBOX_KEY = 'sandbox-key-5f2a91';

const lookup = {
  spec: {
    name: 'custom.intel.lookup',
    title: 'Host lookup',
    transport: 'http',
    inputs: [{ name: 'ip', type: 'string', required: true }],
    http: { method: 'GET', path: '/hosts/{{ inputs.ip }}' },
    outputs: [
      { name: 'org', path: '$.data.org', type: 'string' },
      { name: 'score', path: '$.score', type: 'number' },
      { name: 'token', path: '$.token', type: 'string' },
    ],
    redact: ['$.output.token'],
    effect_type: 'enrich',
    risk: 'read',
  },
  fixtures: [{ name: 'found', input: { ip: '10.0.0.1/24' }, response: { status: 200, body: { data: { org: 'ACME' }, score: 4.5, token: 't' } } }],
};
const block = {
  spec: {
    name: 'custom.intel.block',
    title: 'Block an address',
    transport: 'http',
    inputs: [{ name: 'ip', type: 'string', required: true }],
    http: { method: 'POST', path: '/blocks', body: { ip: '{{ inputs.ip }}' } },
    outputs: [{ name: 'id', path: '$.id', type: 'string' }],
    effect_type: 'block',
    risk: 'write',
    target: { type: 'ip', input: 'ip' },
  },
  fixtures: [{ name: 'blocked', input: { ip: '192.0.2.7' }, response: { status: 201, body: { id: 'b-1' } }, expect: { id: 'b-1' } }],
};
const unblock = {
  spec: {
    name: 'custom.intel.unblock',
    title: 'Unblock an address',
    transport: 'http',
    inputs: [{ name: 'ip', type: 'string', required: true }],
    http: { method: 'DELETE', path: '/blocks/{{ inputs.ip }}' },
    effect_type: 'block',
    risk: 'write',
  },
};
/** A read whose vendor answer lacks the declared output: the run succeeds, the test does not pass. */
const status = {
  spec: {
    name: 'custom.intel.status',
    title: 'Service status',
    transport: 'http',
    http: { method: 'GET', path: '/status' },
    outputs: [{ name: 'version', path: '$.version', type: 'string' }],
    effect_type: 'none',
    risk: 'read',
  },
};
// Exits 9 unless the rendered argument arrived as exactly one, so a pass proves the quoting.
const SCRIPT = `[ "$#" -eq 1 ] || exit 9; printf '{"host":"%s","argc":%d}' "$1" "$#"`;
const check = {
  spec: {
    name: 'custom.intel.check',
    title: 'Remote check',
    transport: 'ssh',
    inputs: [{ name: 'host', type: 'string', required: true }],
    ssh: { command: '/bin/sh', args: ['-c', SCRIPT, 'sh', '{{ inputs.host }}'] },
    outputs: [
      { name: 'host', path: '$.host', type: 'string' },
      { name: 'argc', path: '$.argc', type: 'integer' },
    ],
    effect_type: 'none',
    risk: 'read',
  },
  fixtures: [{ name: 'db', input: { host: "db1; echo 'x'" }, result: { exit_code: 0, stdout: '{"host":"db1","argc":1}' }, expect: { argc: 1 } }],
};

const packOf = (actions: unknown[]) => parsedPack(actions);

const table = (rows: PackTestRow[]) => rows.map((r) => `${r.action.slice('custom.intel.'.length)} ${r.check}${r.fixture ? `/${r.fixture}` : ''}: ${r.status}`);
const row = (rows: PackTestRow[], action: string, check: string) => rows.find((r) => r.action === `custom.intel.${action}` && r.check === check);

describe.each(engines)('integration pack test on $name', (engine) => {
  let opened: Awaited<ReturnType<typeof engine.open>>;
  let store: ConnectionStore;
  let outbound: GuardedFetch;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sshd: TestSshd | null = null;
  let deps: PackTestDeps;

  beforeAll(async () => {
    receiver = await startReceiver((req, res) => {
      const answer = (code: number, body: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && req.path.startsWith('/api/hosts/')) return answer(200, { data: { org: 'ACME' }, score: 4.5, token: 'tok-from-sandbox' });
      if (req.method === 'POST' && req.path === '/api/blocks') return answer(201, { id: 'b-42' });
      if (req.method === 'GET' && req.path === '/api/status') return answer(200, { healthy: true });
      answer(404, { message: 'no such route' });
    });
    if (sshdAvailable) sshd = await startSshd();
    opened = await engine.open();
    store = createConnectionStore(opened.db, createSecretBox(randomBytes(32)), randomUUID, () => new Date(), 24 * 3600 * 1000);
    // The guard stays on: the receiver is reachable only as a configured peer host, as a sandbox on a private network would be.
    outbound = createGuardedFetch({ allowPrivate: false, allowedHosts: [new URL(receiver.url).host], exchangeOrigin: null });
    deps = { resolveConnection: store.resolveByName, actionDeps: { fetch: outbound }, mayRunArbitrary: true, newId: randomUUID, now: () => new Date() };

    await store.create({ kind: 'http', name: 'sandbox', base_url: `${receiver.url}/api`, config: { test_mode: true }, secret: SANDBOX_KEY });
    await store.create({ kind: 'http', name: 'production', base_url: `${receiver.url}/api`, secret: SANDBOX_KEY });
    if (sshd) {
      await store.create({
        kind: 'ssh',
        name: 'sandbox-ssh',
        secret: sshd.clientKey,
        config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, known_hosts: sshd.knownHosts, test_mode: true },
      });
    }
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
    await outbound?.close();
    await receiver?.close();
    await sshd?.close();
  });

  it('runs each action with a fixture once against the test-mode http connection, and never one that is effectful without a fixture', async () => {
    receiver.received.length = 0;
    const rows = await runPackTest(packOf([lookup, block, unblock, status]), { http: 'sandbox' }, deps);
    expect(table(rows)).toEqual([
      'lookup compiles: pass',
      'lookup fixtures/found: pass',
      'lookup template/found: pass',
      'lookup connection: pass',
      'lookup execution/found: pass',
      'block compiles: pass',
      'block fixtures/blocked: pass',
      'block template/blocked: pass',
      'block connection: pass',
      'block execution/blocked: pass',
      'unblock compiles: pass',
      'unblock fixtures: skipped',
      'unblock template: skipped',
      'unblock connection: pass',
      'unblock execution: skipped',
      'status compiles: pass',
      'status fixtures: skipped',
      'status template: skipped',
      'status connection: pass',
      'status execution: fail',
    ]);
    expect(row(rows, 'lookup', 'execution')?.detail).toBe("ran on connection 'sandbox': outputs org, score, token have their declared types");
    expect(row(rows, 'unblock', 'execution')?.detail).toBe(EFFECTFUL_WITHOUT_FIXTURE);
    expect(row(rows, 'status', 'execution')?.detail).toBe("ran on connection 'sandbox', but these outputs are missing or not of their type: version (string)");
    // Output values never reach a row, the redacted token included.
    expect(JSON.stringify(rows)).not.toContain('tok-from-sandbox');
    expect(JSON.stringify(rows)).not.toContain(SANDBOX_KEY);

    expect(receiver.received.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/hosts/10.0.0.1%2F24', 'POST /api/blocks', 'GET /api/status']);
    const [get, post] = receiver.received;
    expect(get?.headers.authorization).toBe(`Bearer ${SANDBOX_KEY}`);
    expect(JSON.parse(post?.body ?? '')).toEqual({ ip: '192.0.2.7' });
    const keys = receiver.received.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(3);

    // A second test is a new test: its derived idempotency keys are fresh.
    await runPackTest(packOf([lookup]), { http: 'sandbox' }, deps);
    expect(receiver.received).toHaveLength(4);
    expect(receiver.received[3]?.headers['idempotency-key']).toMatch(/^msg_/);
    expect(keys).not.toContain(receiver.received[3]?.headers['idempotency-key']);
  });

  it('fails the connection check of a connection not in test mode, absent or of another kind, and sends nothing', async () => {
    receiver.received.length = 0;
    const production = await runPackTest(packOf([lookup]), { http: 'production' }, deps);
    expect(row(production, 'lookup', 'connection')).toMatchObject({
      status: 'fail',
      detail: "connection 'production' is not in test mode (config.test_mode): a pack test never runs against it",
    });
    expect(row(production, 'lookup', 'execution')).toMatchObject({
      status: 'skipped',
      fixture: 'found',
      detail: 'not run: no test-mode http connection passed',
    });

    const absent = await runPackTest(packOf([lookup]), { http: 'nowhere' }, deps);
    expect(row(absent, 'lookup', 'connection')).toMatchObject({ status: 'fail', detail: "connection 'nowhere' does not exist" });

    const unnamed = await runPackTest(packOf([lookup, check]), {}, deps);
    expect(row(unnamed, 'lookup', 'connection')).toMatchObject({ status: 'skipped', detail: 'no test-mode connection named for http' });
    expect(row(unnamed, 'check', 'connection')).toMatchObject({ status: 'skipped', detail: 'no test-mode connection named for ssh' });
    expect(unnamed.filter((r) => r.check === 'execution').map((r) => r.status)).toEqual(['skipped', 'skipped']);

    // The ssh action, pointed at the http sandbox by mistake, does not run there.
    const crossed = await runPackTest(packOf([check]), { ssh: 'sandbox' }, deps);
    expect(row(crossed, 'check', 'connection')).toMatchObject({ status: 'fail', detail: "connection 'sandbox' is http, the action needs ssh" });
    expect(row(crossed, 'check', 'execution')?.status).toBe('skipped');

    expect(receiver.received).toHaveLength(0);
  });

  it('fails the execution of an action the sandbox refuses, with the run error', async () => {
    const missing = { ...lookup, spec: { ...lookup.spec, name: 'custom.intel.missing', http: { method: 'GET', path: '/nothing/{{ inputs.ip }}' } } };
    const rows = await runPackTest(packOf([missing]), { http: 'sandbox' }, deps);
    expect(row(rows, 'missing', 'execution')).toMatchObject({
      status: 'fail',
      fixture: 'found',
      detail: `failed on connection 'sandbox': http_status: custom.intel.missing: ${new URL(receiver.url).host} answered HTTP 404`,
    });
  });

  it.skipIf(!sshdAvailable)('runs an ssh action against the test-mode ssh connection, its argument arriving as one', async () => {
    const rows = await runPackTest(packOf([check]), { ssh: 'sandbox-ssh' }, deps);
    expect(table(rows)).toEqual([
      'check compiles: pass',
      'check fixtures/db: pass',
      'check template/db: pass',
      'check connection: pass',
      'check execution/db: pass',
    ]);
    expect(row(rows, 'check', 'execution')?.detail).toBe("ran on connection 'sandbox-ssh': outputs host, argc have their declared types");
  });
});
