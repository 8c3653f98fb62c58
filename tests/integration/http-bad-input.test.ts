/**
 * Bad input against the real service, in process, on every engine: wrong content type,
 * oversized and malformed bodies, unknown fields, invalid runbooks, a tampered action
 * log, an unhandled failure, and the OpenAPI document generated from the validating
 * schemas. Every refusal has the spec's shape (SPEC.md "Errors"; CONTRACTS.md section 3)
 * and leaves what is stored as it was.
 */
import { gunzipSync } from 'node:zlib';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../projections/database.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { replayVerifyChains } from '../../projections/chains/replay-verify.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService, nativeAlert } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { recordedEvents } from '../support/events.ts';

const maxBodyBytes = 2048;
const bootstrapSecret = 'e2e-bootstrap-secret';

const manualRunbook = `
id: manual-annotate
name: Manual annotation
trigger:
  type: manual
steps:
  - id: first
    action: case.update
    with:
      comment: "first note"
  - id: second
    action: case.update
    needs: [first]
    with:
      tags_add: ["annotated"]
  - id: third
    action: case.update
    needs: [second]
    with:
      comment: "third note"
`;

const alert = nativeAlert;

type Answer = { status: number; body: any; text: string };

/** A `{detail, code, params}` error body (SPEC.md "Errors" 1), with no stack or server internals. */
function expectError(res: Answer, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['code', 'detail', 'params']);
  expect(res.body.code).toBe(code);
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.params).toBeTypeOf('object');
  expectNoInternals(res.text);
}

/** A 422 in the framework shape `{detail: [{loc, msg, type}]}` without `code` (CONTRACTS.md section 3), naming `loc`. */
function expectValidation(res: Answer, loc: (string | number)[], type?: string): void {
  expect(res.status, res.text).toBe(422);
  expect(Object.keys(res.body)).toEqual(['detail']);
  expect(Array.isArray(res.body.detail)).toBe(true);
  for (const issue of res.body.detail) {
    expect(Object.keys(issue).sort()).toEqual(['loc', 'msg', 'type']);
    expect(typeof issue.msg).toBe('string');
    expect(typeof issue.type).toBe('string');
  }
  expect(res.body.detail).toContainEqual(expect.objectContaining({ loc, ...(type ? { type } : {}) }));
  expectNoInternals(res.text);
}

function expectNoInternals(text: string): void {
  expect(text).not.toMatch(/\n\s+at |\bat .+\.[cm]?[jt]s:\d+|node_modules|stack/i);
}

/**
 * Runs `request` while the alert read model is gone (renamed away and back): a database
 * fault no request can cause, so a route fails with an unhandled error for that one request.
 */
async function withAlertsTableGone<T>(db: Kysely<Database>, request: () => Promise<T>): Promise<T> {
  await sql`alter table alerts rename to alerts_unavailable`.execute(db);
  try {
    return await request();
  } finally {
    await sql`alter table alerts_unavailable rename to alerts`.execute(db);
  }
}

describe.each(e2eEngines)('HTTP bad input on $name', ({ server }) => {
  let svc: InProcessService;
  let token: string;
  let caseId: string;

  const call = async (method: string, path: string, init: { body?: RequestInit['body']; headers?: Record<string, string> } = {}): Promise<Answer> => {
    const res = await svc.request(path, { method, body: init.body ?? null, headers: init.headers ?? {}, duplex: 'half' } as RequestInit);
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body, text };
  };
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(method, path, {
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const detector = (body: NonNullable<RequestInit['body']>, contentType = 'application/json') =>
    call('POST', '/webhooks/detector', { body, headers: { 'x-svc-token': bootstrapSecret, 'content-type': contentType } });

  /** What is stored and visible: case count, alert inbox, the seeded case's timeline, and the event count. */
  const snapshot = async () => {
    const cases = await api('GET', '/cases?limit=200&include_total=true');
    const alerts = await api('GET', '/alerts?limit=200');
    const timeline = await api('GET', `/cases/${caseId}/timeline`);
    const events = { n: (await recordedEvents(svc.service.opened.db)).length };
    return {
      cases: cases.body.total,
      caseIds: cases.body.items.map((c: { id: string }) => c.id),
      alerts: alerts.body.items,
      timeline: timeline.body.items,
      events: Number(events.n),
    };
  };

  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      {
        runbooks: { 'manual-annotate.yml': manualRunbook },
        extraEnv: { SVC_MAX_BODY_BYTES: String(maxBodyBytes), SVC_DETECTOR_BOOTSTRAP_SECRET: bootstrapSecret },
      },
    );
    token = await svc.identity.mint([{ team: null, role: 'admin' }]);
    const intake = await detector(JSON.stringify(alert('seed-1')));
    expect(intake.status, intake.text).toBe(202);
    caseId = intake.body.case_id;
    const opened = await api('POST', '/cases', { title: 'Seeded case', severity: 'low' });
    expect(opened.status, opened.text).toBe(201);
  });
  afterAll(async () => svc?.close());

  describe('content type', () => {
    it('answers 415 to a detector alert that is not JSON and stores nothing', async () => {
      const before = await snapshot();
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        expectError(await detector(JSON.stringify(alert('ct-1')), type), 415, 'unsupported_media_type');
      }
      const none = await call('POST', '/webhooks/detector', { body: new Blob([JSON.stringify(alert('ct-2'))]), headers: { 'x-svc-token': bootstrapSecret } });
      expectError(none, 415, 'unsupported_media_type');
      expect(await snapshot()).toEqual(before);
    });

    it('answers 415 to a case that is not JSON and opens none', async () => {
      const before = await snapshot();
      const res = await call('POST', '/cases', {
        body: 'title=x&severity=low',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectError(res, 415, 'unsupported_media_type');
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('body size', () => {
    const big = (n: number) => JSON.stringify(alert('big-1', { matched_log: { message: 'x'.repeat(n) } }));

    it('answers 413 to a detector alert over SVC_MAX_BODY_BYTES, with or without a content length', async () => {
      const before = await snapshot();
      expectError(await detector(big(maxBodyBytes)), 413, 'payload_too_large');
      const chunks = new TextEncoder().encode(big(maxBodyBytes * 4));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < chunks.length; i += 512) controller.enqueue(chunks.slice(i, i + 512));
          controller.close();
        },
      });
      expectError(await detector(stream), 413, 'payload_too_large');
      expect(await snapshot()).toEqual(before);
    });

    it('answers 413 to a case over the limit and takes one just under it', async () => {
      const before = await snapshot();
      expectError(await api('POST', '/cases', { title: 'Too big', severity: 'low', description: 'd'.repeat(maxBodyBytes) }), 413, 'payload_too_large');
      expect(await snapshot()).toEqual(before);
      const fits = await api('POST', '/cases', { title: 'Fits', severity: 'low', description: 'd'.repeat(maxBodyBytes - 100) });
      expect(fits.status, fits.text).toBe(201);
    });
  });

  describe('malformed JSON', () => {
    it('answers 422 json_invalid at the body to a detector alert and a case, storing nothing', async () => {
      const before = await snapshot();
      for (const body of ['{"alert_id": "m-1",', '', 'not json', '{"a":1}}']) {
        expectValidation(await detector(body), ['body'], 'json_invalid');
      }
      const res = await call('POST', '/cases', {
        body: '{"title": "x", "severity": ',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      expectValidation(res, ['body'], 'json_invalid');
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('unknown and invalid fields', () => {
    it('takes a detector alert with fields the shape does not name, as the original interface does (no alert lost to an extra key)', async () => {
      const res = await detector(
        JSON.stringify(alert('u-1', { priority: 'p1', rule: { id: 'ssh-bf', title: 'SSH brute force', severity: 'high', owner: 'x' } })),
      );
      expect(res.status, res.text).toBe(202);
      const batch = await detector(JSON.stringify([alert('b-1'), alert('b-2', { extra: true })]));
      expect(batch.status, batch.text).toBe(202);
      expect(batch.body.results).toHaveLength(2);
    });

    it('refuses a batch that is empty or not alerts', async () => {
      const before = await snapshot();
      expectValidation(await detector('[]'), ['body']);
      expectValidation(await detector('"one alert, please"'), ['body']);
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a detector alert with a severity outside the configured list', async () => {
      const before = await snapshot();
      expectValidation(await detector(JSON.stringify(alert('s-1', { severity: 'urgent' }))), ['body', 'severity']);
      expect(await snapshot()).toEqual(before);
    });

    it('ignores an unknown field and refuses a missing or bad one on POST /cases', async () => {
      const ignored = await api('POST', '/cases', { title: 'extra key', severity: 'low', priority: 1 });
      expect(ignored.status, ignored.text).toBe(201);
      expect(ignored.body).not.toHaveProperty('priority');
      const before = await snapshot();
      expectValidation(await api('POST', '/cases', { severity: 'low' }), ['body', 'title']);
      expectValidation(await api('POST', '/cases', { title: 'x', severity: 'urgent' }), ['body', 'severity']);
      expectValidation(await api('POST', '/cases', { title: '   ', severity: 'low' }), ['body', 'title']);
      const array = await api('POST', '/cases', [{ title: 'x', severity: 'low' }]);
      expectValidation(array, ['body'], 'type_error');
      expect(array.body.detail).toEqual([{ loc: ['body'], msg: 'body must be a JSON object, not an array', type: 'type_error' }]);
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a JSON array where a body object is due, even when every field is optional, and changes nothing', async () => {
      const connection = await api('POST', '/connections', { kind: 'http', name: 'array-target', base_url: 'https://api.example', secret: 'k' });
      expect(connection.status, connection.text).toBe(201);
      const source = await api('POST', '/webhook-sources', { type: 'generic', slug: 'array-target', name: 'Array target', field_map: { rule_title: 'title' } });
      expect(source.status, source.text).toBe(201);
      const alertId = (await api('GET', '/alerts?limit=1')).body.items[0].id as string;
      // Someone else mentions the caller, so there is something a mark-read would change.
      const mention = await callAs(svc, testPerson('array-mentioner@example.com', [{ team: null, role: 'admin' }]), 'POST', `/cases/${caseId}/comments`, {
        body: 'look @e2e-analyst@example.com',
      });
      expect(mention.status, mention.text).toBe(201);
      const stored = async () => ({
        ...(await snapshot()),
        connection: (await api('GET', `/connections/${connection.body.id}`)).body,
        source: (await api('GET', `/webhook-sources/${source.body.id}`)).body,
        notifications: (await api('GET', '/notifications')).body.items,
        runs: (await api('GET', `/cases/${caseId}/runs`)).body.items,
      });
      const before = await stored();
      expect(before.notifications).toContainEqual(expect.objectContaining({ kind: 'mention', read: false }));
      const routes = [
        ['POST', `/cases/${caseId}/runbooks/manual-annotate/run`],
        ['PUT', `/connections/${connection.body.id}`],
        ['PATCH', `/webhook-sources/${source.body.id}`],
        ['POST', `/alerts/${alertId}/escalate`],
        ['POST', '/notifications/read'],
      ] as const;
      for (const [method, path] of routes) {
        for (const body of [[], [{}], ['x']]) {
          const res = await api(method, path, body);
          expectValidation(res, ['body'], 'type_error');
          expect(res.body.detail, `${method} ${path} ${JSON.stringify(body)}`).toEqual([
            { loc: ['body'], msg: 'body must be a JSON object, not an array', type: 'type_error' },
          ]);
        }
      }
      expect(await stored()).toEqual(before);
    });

    it('refuses a bad path and query value with their locations', async () => {
      expectValidation(await api('GET', '/cases/not-a-uuid'), ['path', 'id']);
      expectValidation(await api('GET', '/cases?limit=0'), ['query', 'limit']);
      expectError(await api('GET', '/cases/00000000-0000-4000-8000-000000000000'), 404, 'case_not_found');
    });
  });

  describe('POST /runbooks/validate', () => {
    it('answers an empty error list for a valid runbook', async () => {
      const res = await api('POST', '/runbooks/validate', { yaml_text: manualRunbook });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ errors: [] });
    });

    it('answers invalid YAML with one error at the document, naming the line', async () => {
      const res = await api('POST', '/runbooks/validate', { yaml_text: 'id: broken\nsteps: [\n  - id: a\n' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0]).toEqual({ loc: [], msg: expect.stringMatching(/^invalid YAML: .*line \d+/) });
    });

    it('answers a structurally invalid runbook with per-field errors', async () => {
      const yaml = `
id: X
trigger:
  type: sometimes
owner: me
steps:
  - id: a
    action: no.such_action
    needs: [b]
  - id: b
    action: case.update
    needs: [a]
`;
      const res = await api('POST', '/runbooks/validate', { yaml_text: yaml });
      expect(res.status, res.text).toBe(200);
      const errors = res.body.errors as { loc: (string | number)[]; msg: string }[];
      for (const error of errors) expect(Object.keys(error).sort()).toEqual(['loc', 'msg']);
      const locs = errors.map((e) => JSON.stringify(e.loc));
      expect(locs).toEqual(
        expect.arrayContaining([
          JSON.stringify(['owner']),
          JSON.stringify(['id']),
          JSON.stringify(['name']),
          JSON.stringify(['trigger', 'type']),
          JSON.stringify(['steps', 0, 'action']),
          JSON.stringify(['steps']),
        ]),
      );
      expect(errors.find((e) => e.loc.join('.') === 'steps')?.msg).toMatch(/cycle/);
    });

    it('answers 422 in the framework shape when yaml_text is missing or the body is not JSON, and ignores unknown fields', async () => {
      expectValidation(await api('POST', '/runbooks/validate', {}), ['body', 'yaml_text']);
      expect((await api('POST', '/runbooks/validate', { yaml_text: manualRunbook, lint: true })).body).toEqual({ errors: [] });
      const res = await call('POST', '/runbooks/validate', {
        body: 'id: x',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml' },
      });
      expectError(res, 415, 'unsupported_media_type');
    });
  });

  describe('GET /openapi.json', () => {
    it('is an OpenAPI 3.1 document generated from the validating schemas', async () => {
      const res = await call('GET', '/openapi.json');
      expect(res.status).toBe(200);
      const doc = res.body as { openapi: string; paths: Record<string, Record<string, any>> };
      expect(doc.openapi).toMatch(/^3\.1/);
      for (const path of ['/webhooks/detector', '/cases', '/cases/{id}', '/runs/chain/verify', '/runbooks/validate', '/runs/{id}']) {
        expect(Object.keys(doc.paths)).toContain(path);
      }
      const schema = doc.paths['/cases']?.post?.requestBody?.content?.['application/json']?.schema;
      expect(schema).toMatchObject({ type: 'object', required: expect.arrayContaining(['title', 'severity']) });
      // Keys a body does not declare are ignored, as in the original interface: the document must not say they are refused.
      expect(schema.additionalProperties).not.toBe(false);
      expect(schema.properties.severity).toMatchObject({ enum: ['low', 'medium', 'high', 'critical'] });
      const idParam = (doc.paths['/cases/{id}']?.get?.parameters as { name: string; in: string }[] | undefined)?.find((p) => p.name === 'id');
      expect(idParam).toMatchObject({ in: 'path', required: true });
    });

    it('declares the error answers of every operation from the error body schemas', async () => {
      const doc = (await call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
      expect(doc.components.schemas.ErrorBody).toMatchObject({ type: 'object', required: ['detail', 'code', 'params'] });
      expect(doc.components.schemas.ValidationError.properties.detail.items).toMatchObject({ required: ['loc', 'msg', 'type'] });
      const errorRef = { $ref: '#/components/schemas/ErrorBody' };
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const json = (status: string) => op.responses?.[status]?.content?.['application/json']?.schema;
          expect(json('4XX'), `${method} ${path}`).toEqual(errorRef);
          // Every source type and connection kind of SPEC.md is built: nothing answers "not implemented".
          expect(op.responses?.['501'], `${method} ${path}`).toBeUndefined();
          expect(json('500'), `${method} ${path}`).toEqual(errorRef);
          if ((op.parameters?.length ?? 0) > 0 || op.requestBody)
            expect(json('422'), `${method} ${path}`).toEqual({ oneOf: [{ $ref: '#/components/schemas/ValidationError' }, errorRef] });
          // And what it answers on success: a schema for a body, or a bodyless 204.
          const success = Object.entries(op.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
          // GET /peer/v1/mcp: SPEC.md lists it, and a stateless MCP server answers it 405 (no SSE stream), declared as such.
          const neverSucceeds = path === '/peer/v1/mcp' && method === 'get' && op.responses?.['405'] !== undefined;
          if (!neverSucceeds) expect(success.length, `${method} ${path} declares no success answer`).toBeGreaterThan(0);
          for (const [status, answer] of success) {
            const media = Object.values((answer as { content?: Record<string, { schema?: unknown }> }).content ?? {});
            // MCP's Streamable HTTP answers a POST of notifications only with a bodyless 202, by protocol.
            const bodyless = status === '204' || (path === '/peer/v1/mcp' && status === '202');
            if (!bodyless) expect(media.length > 0 && media.every((m) => m.schema !== undefined), `${method} ${path} ${status}`).toBe(true);
          }
        }
      }
    });
  });

  describe('request ids and compression', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

    it("names every answer with X-Request-Id: the caller's when it is safe, else a new UUID", async () => {
      const mine = await svc.request('/healthz', { headers: { 'x-request-id': 'detector-7f3a_retry=2' } });
      expect(mine.headers.get('x-request-id')).toBe('detector-7f3a_retry=2');
      const fresh = [await svc.request('/healthz'), await svc.request('/healthz')].map((r) => r.headers.get('x-request-id'));
      for (const id of fresh) expect(id).toMatch(uuid);
      expect(fresh[0]).not.toBe(fresh[1]);
      // Characters that could forge a log field or a header, and an id past 255, are replaced.
      for (const unsafe of ['a b', 'x"}{"admin":true', 'id;drop', 'x'.repeat(256)]) {
        expect((await svc.request('/healthz', { headers: { 'x-request-id': unsafe } })).headers.get('x-request-id')).toMatch(uuid);
      }
      // Refusals carry it too: unauthenticated, unknown path, bad body.
      for (const res of [
        await svc.request('/cases'),
        await svc.request('/no-such-path', { headers: { authorization: `Bearer ${token}` } }),
        await svc.request('/webhooks/detector', { method: 'POST', headers: { 'x-svc-token': bootstrapSecret, 'content-type': 'application/json' }, body: '{' }),
      ]) {
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.headers.get('x-request-id')).toMatch(uuid);
      }
    });

    it('puts the request id on the log lines of the request', async () => {
      const { db } = svc.service.opened;
      const loggedBefore = svc.errors().length;
      const res = await withAlertsTableGone(db, () =>
        svc.request('/alerts', { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-alerts-500' } }),
      );
      expect(res.status).toBe(500);
      expect(res.headers.get('x-request-id')).toBe('trace-alerts-500');
      expect(svc.errors().slice(loggedBefore)).toContainEqual(
        expect.objectContaining({ msg: 'unhandled error', path: '/alerts', request_id: 'trace-alerts-500' }),
      );
    });

    it('compresses an answer for a caller that accepts gzip, and only for it', async () => {
      const plain = await svc.request('/openapi.json');
      expect(plain.headers.get('content-encoding')).toBeNull();
      const document = await plain.text();
      const zipped = await svc.request('/openapi.json', { headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      const bytes = Buffer.from(await zipped.arrayBuffer());
      expect(bytes.length).toBeLessThan(document.length / 4);
      expect(gunzipSync(bytes).toString('utf8')).toBe(document);
    });
  });

  describe('unhandled failure', () => {
    it('answers 500 internal_error without stack, message or secrets, and logs the error server-side', async () => {
      const { db } = svc.service.opened;
      const loggedBefore = svc.errors().length;
      const res = await withAlertsTableGone(db, () => api('GET', '/alerts'));
      expectError(res, 500, 'internal_error');
      expect(res.body).toEqual({ detail: 'internal error', code: 'internal_error', params: {} });
      for (const secret of [svc.env.SVC_SECRET_KEY, bootstrapSecret, token, 'alerts_unavailable', 'relation']) {
        expect(res.text).not.toContain(secret);
      }
      const logged = svc.errors().slice(loggedBefore);
      expect(logged).toContainEqual(expect.objectContaining({ msg: 'unhandled error', method: 'GET', path: '/alerts' }));
      expect((await api('GET', '/alerts')).status).toBe(200);
    });

    it('answers 500 internal_error, logged, for a stored source type or connection kind outside SPEC.md, which no request can store', async () => {
      const { db } = svc.service.opened;
      const source = await api('POST', '/webhook-sources', { type: 'generic', slug: 'odd-type', name: 'Odd type', field_map: { rule_title: 'title' } });
      expect(source.status, source.text).toBe(201);
      const connection = await api('POST', '/connections', { kind: 'http', name: 'odd-kind', base_url: 'https://api.example', secret: 'k' });
      expect(connection.status, connection.text).toBe(201);
      // Rows only a hand-made write could leave.
      await db.updateTable('webhook_sources').set({ type: 'smoke_signal' }).where('id', '=', source.body.id).execute();
      await db.updateTable('connections').set({ kind: 'smoke_signal' }).where('id', '=', connection.body.id).execute();
      const before = await snapshot();
      const loggedBefore = svc.errors().length;
      const intake = (token: string) =>
        call('POST', '/webhooks/odd-type', { body: JSON.stringify({ title: 'odd' }), headers: { 'x-svc-token': token, 'content-type': 'application/json' } });
      expectError(await intake('not-the-token'), 401, 'unauthenticated');
      expectError(await intake(source.body.token), 500, 'internal_error');
      expectError(await api('POST', `/connections/${connection.body.id}/test`), 500, 'internal_error');
      const logged = svc.errors().slice(loggedBefore);
      expect(logged).toEqual([
        expect.objectContaining({ msg: 'unhandled error', path: '/webhooks/odd-type' }),
        expect.objectContaining({ msg: 'unhandled error', path: `/connections/${connection.body.id}/test` }),
      ]);
      for (const line of logged) expect(JSON.stringify(line)).toContain("'smoke_signal'");
      // Not read as a generic source's alert.
      expect(await snapshot()).toEqual(before);
    });
  });

  // Last: it breaks the chain for the rest of this service's life.
  describe('tampered action log', () => {
    it('reports the first broken row in the chain check and in the run badge', async () => {
      const queued = await api('POST', `/cases/${caseId}/runbooks/manual-annotate/run`, {});
      expect(queued.status, queued.text).toBe(202);
      const runId = queued.body.id as string;
      await expect.poll(async () => (await api('GET', `/runs/${runId}`)).body.status, { timeout: 20_000 }).toBe('succeeded');

      const run = (await api('GET', `/runs/${runId}`)).body;
      expect(run.action_log).toHaveLength(3);
      expect(run.chain).toEqual({ valid: true, rows: 3, first_broken_index: null });
      const intact = (await api('GET', '/runs/chain/verify')).body;
      expect(intact).toEqual({ valid: true, checked: expect.any(Number), first_broken_index: null });
      const indexes = run.action_log.map((r: { index: number }) => r.index) as number[];
      expect(intact.checked).toBe(Math.max(...indexes) + 1);

      // Rewrite the middle row as someone with database access would: its hashes stay as they were.
      const target = indexes[1] as number;
      const { db } = svc.service.opened;
      const stored = await db.selectFrom('action_log').select('row').where('chain_index', '=', target).executeTakeFirstOrThrow();
      await db
        .updateTable('action_log')
        .set({ row: JSON.stringify({ ...stored.row, status: 'failed', tampered: true }) })
        .where('chain_index', '=', target)
        .execute();

      const verify = await api('GET', '/runs/chain/verify');
      expect(verify.status).toBe(200);
      expect(verify.body).toEqual({ valid: false, checked: target + 1, first_broken_index: target });
      const badge = (await api('GET', `/runs/${runId}`)).body.chain;
      expect(badge).toEqual({ valid: false, rows: 3, first_broken_index: target });
      // Replaying the run events recomputes the row the table lost.
      const store = new PostgresEventStore(db);
      const replayed = await replayVerifyChains(db, (after, limit) => store.readAll(after, limit), await store.headPosition());
      expect(replayed.action_log).toEqual({ valid: false, replayed: intact.checked, first_mismatch_index: target });
    });
  });
});
