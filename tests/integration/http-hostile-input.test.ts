/**
 * Input an attacker or a careless client sends (issue 19), against the real service in
 * process on every engine: NUL characters and unpaired surrogates (refused on API routes,
 * repaired and recorded on intake so no detector alert is lost to a character), JSON
 * nested 10,000 deep, arrays where objects belong, paging past its bounds, a NUL in a
 * webhook slug before any credential, oversized and malformed request heads, and a port
 * already in use at start-up. Every refusal is in the spec's error shapes, nothing stored
 * changes, and nothing reaches the 500 handler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer, connect, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../runtime/boot.ts';
import { loadConfig } from '../../runtime/config.ts';
import {
  assertionAs,
  callAs,
  detectorIntake,
  startInProcessService,
  testPerson,
  type InProcessService,
  type TestAnswer,
  nativeAlert,
} from '../support/in-process-service.ts';
import { seedEmbeddedDataDir } from '../support/migrated-databases.ts';
import { e2eEngines } from '../support/service-process.ts';
import { manualNoteRunbook } from '../support/runbooks.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

const manualRunbook = manualNoteRunbook('takes-inputs', 'inputs taken');

/** `{"a":{"a":...1...}}` nested `depth` deep, as text: JSON.stringify itself overflows on such a value. */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const alert = nativeAlert;

function expectValidation(res: TestAnswer, loc: (string | number)[], type: string): void {
  expect(res.status, res.text).toBe(422);
  expect(Object.keys(res.body)).toEqual(['detail']);
  expect(res.body.detail).toContainEqual({ loc, msg: expect.any(String), type });
}

describe.each(e2eEngines)('hostile input on $name', ({ server }) => {
  let svc: InProcessService;
  let caseId = '';
  let sourceToken = '';
  const call = (method: string, path: string, body?: unknown) => callAs(svc, root, method, path, body);
  /** Sends `text` as the JSON body, unchanged. */
  const callRaw = async (method: string, path: string, text: string, headers: Record<string, string> = {}): Promise<TestAnswer> => {
    const token = await assertionAs(svc, root, method, path);
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: text,
    });
    const body = await res.text();
    return { status: res.status, body: body === '' ? null : JSON.parse(body), text: body };
  };
  const postWebhook = async (path: string, text: string, token: string | null): Promise<TestAnswer> => {
    const res = await fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { 'x-svc-token': token } : {}) },
      body: text,
    });
    const body = await res.text();
    return { status: res.status, body: body === '' ? null : JSON.parse(body), text: body };
  };
  const caseCount = async () => (await call('GET', '/cases?limit=200')).body.items.length;

  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      { listen: true, runbooks: { 'takes-inputs.yml': manualRunbook }, extraEnv: { SVC_DETECTOR_BOOTSTRAP_SECRET: 'hostile-bootstrap' } },
    );
    caseId = (await call('POST', '/cases', { title: 'Target', severity: 'high' })).body.id;
    const source = await call('POST', '/webhook-sources', {
      type: 'generic',
      slug: 'elastic',
      name: 'Elastic',
      field_map: { rule_title: 'rule.name', external_id: 'id' },
    });
    sourceToken = source.body.token;
  });
  afterAll(async () => {
    expect(svc.errors()).toEqual([]);
    await svc?.close();
  });

  it('takes a detector alert holding NUL and unpaired surrogates, with the characters replaced and recorded', async () => {
    const res = await detectorIntake(svc, [
      alert('nul-1'),
      alert('nul\u0000-2', { rule: { id: 'r-2', title: 'Bad \ud800 title', severity: 'high' }, matched_log: { 'k\u0000ey': 'v\udc00' } }),
    ]);
    expect(res.status, res.text).toBe(202);
    const [clean, repaired] = res.body.results;
    expect(clean.text_repairs).toBeUndefined();
    expect(repaired.text_repairs).toEqual(expect.arrayContaining([['alert_id'], ['rule', 'title'], ['matched_log', 'k\ufffdey']]));
    const theCase = await call('GET', `/cases/${repaired.case_id}`);
    expect(theCase.body.title).toBe('Bad \ufffd title');
    const stored = await call('GET', `/alerts?limit=200`);
    expect(stored.body.items.map((a: { external_id: string }) => a.external_id)).toContain('nul\ufffd-2');
    // The repaired alert de-duplicates like any other.
    const again = await detectorIntake(svc, alert('nul\u0000-2', { rule: { id: 'r-2', title: 'Bad \ud800 title', severity: 'high' } }));
    expect(again.body).toMatchObject({ deduplicated: true, alert_id: repaired.alert_id });
  });

  it('takes a generic source payload with a NUL in a key or value', async () => {
    const res = await postWebhook('/webhooks/elastic', JSON.stringify({ id: 'g-1', rule: { name: 'Odd\u0000rule' }, 'x\u0000': 1 }), sourceToken);
    expect(res.status, res.text).toBe(202);
    expect(res.body.text_repairs).toEqual(expect.arrayContaining([['rule', 'name'], ['x\ufffd']]));
  });

  it('refuses NUL and unpaired surrogates on API routes with 422 text_invalid, storing nothing', async () => {
    const before = await caseCount();
    expectValidation(await call('POST', '/cases', { title: 'a\u0000b', severity: 'high' }), ['body', 'title'], 'text_invalid');
    expectValidation(await call('POST', '/cases', { title: 'ok', severity: 'high', tags: ['\ud800'] }), ['body', 'tags', 0], 'text_invalid');
    expectValidation(await call('POST', `/cases/${caseId}/comments`, { body: 'x\udfff' }), ['body', 'body'], 'text_invalid');
    expectValidation(
      await call('POST', '/connections', { kind: 'webhook', name: 'w', base_url: 'https://hooks.example/', secret: 's', config: { 'k\u0000': 1 } }),
      ['body', 'config', 'k\u0000'],
      'text_invalid',
    );
    expectValidation(await call('GET', '/cases?search=%00'), ['query', 'search'], 'text_invalid');
    expectValidation(await call('GET', '/alerts?source=a%00b'), ['query', 'source'], 'text_invalid');
    expect(await caseCount()).toBe(before);
    expect((await call('GET', `/cases/${caseId}/comments`)).body.items).toEqual([]);
  });

  it('answers a NUL or upper case in a webhook slug with the 401 of an unknown source, before any credential', async () => {
    for (const path of ['/webhooks/x%00y', '/webhooks/ELASTIC', `/webhooks/${'a'.repeat(300)}`]) {
      const res = await postWebhook(path, '{}', null);
      expect(res.status, `${path}: ${res.text}`).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'unauthenticated', params: {} });
    }
  });

  it('refuses JSON nested 10,000 deep with 422 json_too_deep on API and intake routes', async () => {
    const deep = deepJson(10_000);
    const tooDeep = (res: TestAnswer) => {
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: expect.arrayContaining(['body']), type: 'json_too_deep' });
    };
    tooDeep(await callRaw('POST', '/connections', `{"kind":"webhook","name":"deep","base_url":"https://hooks.example/","secret":"s","config":${deep}}`));
    tooDeep(await callRaw('POST', `/cases/${caseId}/runbooks/takes-inputs/run`, `{"inputs":${deep}}`));
    tooDeep(await postWebhook('/webhooks/elastic', deep, sourceToken));
    tooDeep(await postWebhook('/webhooks/detector', `[${deep}]`, 'hostile-bootstrap'));
    // A deep document without a credential is still a 401: authentication comes first.
    expect((await postWebhook('/webhooks/elastic', deep, null)).status).toBe(401);
    // Depth within the limit is read as usual.
    const fine = await callRaw(
      'POST',
      '/connections',
      `{"kind":"webhook","name":"nested","base_url":"https://hooks.example/","secret":"s","config":{"extra":${deepJson(20)}}}`,
    );
    expect(fine.status, fine.text).toBe(201);
  });

  it('refuses an array where an object belongs', async () => {
    expectValidation(
      await call('POST', '/connections', { kind: 'webhook', name: 'arr', base_url: 'https://hooks.example/', secret: 's', config: ['x'] }),
      ['body', 'config'],
      'value_error',
    );
    expectValidation(await call('POST', `/cases/${caseId}/runbooks/takes-inputs/run`, { inputs: [1, 2] }), ['body', 'inputs'], 'value_error');
    const matched = await detectorIntake(svc, alert('arr-1', { matched_log: ['x'] }));
    expect(matched.status, matched.text).toBe(422);
    expect(matched.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'matched_log'] }));
    expect((await call('GET', '/connections')).body.items.map((c: { name: string }) => c.name)).not.toContain('arr');
  });

  it('holds paging to whole decimal numbers within its bounds', async () => {
    for (const query of ['offset=1e12', 'offset=100001', 'offset=-1', 'limit=0x10', 'limit=201', 'limit=5.0', 'offset=%205']) {
      const res = await call('GET', `/cases?${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(422);
      expect(res.body.detail[0].loc[0]).toBe('query');
    }
    expect((await call('GET', '/cases?offset=100000&limit=200')).status).toBe(200);
    expect((await call('GET', '/audit?after=1e3')).status).toBe(422);
  });

  it('answers an oversized or malformed request head in the error shape', async () => {
    const long = await fetch(`${svc.url}/cases/${'a'.repeat(20_000)}`);
    expect(long.status).toBe(431);
    expect(await long.json()).toEqual({ detail: expect.any(String), code: 'request_header_too_large', params: {} });

    const { port } = new URL(svc.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ detail: expect.any(String), code: 'bad_request', params: {} });
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });
});

describe('a port in use at start-up', () => {
  let holder: Server;
  let port = 0;
  beforeAll(async () => {
    holder = createNetServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('ends start-up with one line naming the port and the variable that moves it', async () => {
    const quiet = pino({ level: 'silent' });
    for (const [variable, env] of [
      ['PORT', { PORT: String(port), SVC_ROLE: 'api' }],
      ['SVC_WORKER_METRICS_PORT', { SVC_ROLE: 'worker', SVC_WORKER_METRICS_PORT: String(port) }],
    ] as const) {
      const dataDir = mkdtempSync(join(tmpdir(), 'svc-port-'));
      seedEmbeddedDataDir(dataDir);
      const full = { HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_RUNBOOKS_DIR: dataDir, ...env };
      try {
        await expect(startService(loadConfig(full), full, quiet)).rejects.toThrow(
          new RegExp(`^port ${port} is already in use on 127\\.0\\.0\\.1: set ${variable} to a free port$`),
        );
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  });
});
