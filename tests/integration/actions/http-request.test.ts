/**
 * http.request against a real receiver on 127.0.0.1 (SPEC.md "Generic actions", "Connection").
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionFailure, type ActionContext, type ResolvedConnection } from '../../../adapters/actions/action.ts';
import { createHttpRequest } from '../../../adapters/actions/http-request.ts';

type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

let server: Server;
let origin: string;
let received: Received[] = [];
let answer: (res: ServerResponse) => void;
const SECRET = 'tok_5up3r-s3cret';
// The action's own behaviour over the plain fetch; the guarded edge has its own suites (tests/unit/outbound, outbound-guard).
const httpRequest = createHttpRequest(fetch);

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  received = [];
  answer = (res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' }).end('{"ok":true,"n":[1,2]}');
});

function connection(config: Record<string, unknown> = {}, secret: string | null = SECRET): ResolvedConnection {
  return { id: 'c1', kind: 'http', name: 'intel-api', base_url: `${origin}/api/v2/`, config, secret, previous_secret: null, bot_token: null };
}

function context(conn: ResolvedConnection | null, signal = AbortSignal.timeout(5000)): ActionContext {
  return {
    runId: 'run-1',
    stepId: 'call',
    attempt: 1,
    deliveryId: 'delivery-1',
    caseId: null,
    connection: conn,
    signal,
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
  };
}

async function failureOf(promise: Promise<unknown>): Promise<ActionFailure> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ActionFailure);
  return error as ActionFailure;
}

describe('http.request', () => {
  it('sends method, joined path, query, JSON body, step headers and Bearer auth; parses the JSON answer', async () => {
    const step = v.parse(httpRequest.input, {
      method: 'post',
      path: '/indicators/lookup',
      query: { ip: '203.0.113.9', limit: 5, fresh: true },
      json_body: { values: ['203.0.113.9'], note: 'ünïcode' },
      headers: { 'X-Trace': 'abc' },
    });
    const output = await httpRequest.execute(step, context(connection()));
    const request = received[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/v2/indicators/lookup?ip=203.0.113.9&limit=5&fresh=true');
    expect(JSON.parse(request.body)).toEqual({ values: ['203.0.113.9'], note: 'ünïcode' });
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-trace']).toBe('abc');
    expect(request.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(output).toMatchObject({ status: 200, body: { ok: true, n: [1, 2] }, headers: { 'x-request-id': 'r-1' } });
  });

  it('uses auth_header and auth_prefix from the connection config', async () => {
    await httpRequest.execute({ method: 'GET' }, context(connection({ auth: 'header', auth_header: 'X-Api-Key' })));
    await httpRequest.execute({ method: 'GET' }, context(connection({ auth_prefix: 'Token ' })));
    await httpRequest.execute({ method: 'GET' }, context(connection({ auth_header: 'X-Key', auth_prefix: 'k=' })));
    await httpRequest.execute({ method: 'GET' }, context(connection({}, null)));
    expect(received[0]!.headers['x-api-key']).toBe(SECRET);
    expect(received[0]!.headers.authorization).toBeUndefined();
    expect(received[1]!.headers.authorization).toBe(`Token ${SECRET}`);
    expect(received[2]!.headers['x-key']).toBe(`k=${SECRET}`);
    expect(received[3]!.headers.authorization).toBeUndefined();
    expect(received[0]!.url).toBe('/api/v2/');
  });

  it('returns a text body as text', async () => {
    answer = (res) => res.writeHead(201, { 'content-type': 'text/plain' }).end('created');
    expect(await httpRequest.execute({ method: 'PUT', json_body: [] }, context(connection()))).toMatchObject({ status: 201, body: 'created' });
  });

  it('refuses a path that is a URL, before calling anyone', async () => {
    for (const path of ['http://127.0.0.2/steal', 'https://example.com', '//127.0.0.2/steal', 'javascript:alert(1)']) {
      expect(await failureOf(httpRequest.execute({ method: 'GET', path }, context(connection())))).toMatchObject({ type: 'path_refused', retryable: false });
    }
    expect(received).toHaveLength(0);
  });

  it('refuses step headers that would override the auth header', async () => {
    for (const [config, header] of [
      [{}, 'authorization'],
      [{ auth_header: 'X-Api-Key' }, 'x-api-key'],
    ] as const) {
      const failure = await failureOf(httpRequest.execute({ method: 'GET', headers: { [header]: 'Bearer other' } }, context(connection(config))));
      expect(failure).toMatchObject({ type: 'header_refused', retryable: false });
    }
    expect(received).toHaveLength(0);
  });

  it('refuses an unknown auth mode, and oauth2 without token_url and client_id, finally and before any request', async () => {
    for (const config of [
      { auth: 'digest' },
      { auth: 'oauth2_client_credentials', client_id: 'svc' },
      { auth: 'oauth2_client_credentials', token_url: 'https://id.example/token' },
    ]) {
      expect(await failureOf(httpRequest.execute({ method: 'GET' }, context(connection(config))))).toMatchObject({
        type: 'connection_invalid',
        retryable: false,
      });
    }
    expect(received).toHaveLength(0);
  });

  it('maps statuses: 5xx and 429 retryable, other 4xx final, the status in the message and no secret', async () => {
    for (const [status, retryable] of [
      [500, true],
      [503, true],
      [429, true],
      [400, false],
      [401, false],
      [404, false],
    ] as const) {
      answer = (res) => res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":"nope"}');
      const failure = await failureOf(httpRequest.execute({ method: 'DELETE', path: 'x' }, context(connection())));
      expect(failure).toMatchObject({ type: 'http_status', retryable });
      expect(failure.message).toContain(String(status));
      expect(`${failure.message} ${JSON.stringify(failure)}`).not.toContain(SECRET);
    }
  });

  it('does not follow a redirect to another host', async () => {
    answer = (res) => res.writeHead(302, { location: 'http://127.0.0.2:1/elsewhere' }).end();
    expect(await httpRequest.execute({ method: 'GET' }, context(connection()))).toMatchObject({ status: 302 });
    expect(received).toHaveLength(1);
  });

  it('refuses a response over 1 MiB, finally', async () => {
    const big = 'x'.repeat(1024 * 1024 + 10);
    answer = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(big);
    expect(await failureOf(httpRequest.execute({ method: 'GET' }, context(connection())))).toMatchObject({ type: 'response_too_large', retryable: false });
    // Chunked, without content-length: the cap holds while streaming.
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 40; i++) res.write('y'.repeat(32 * 1024));
      res.end();
    };
    expect(await failureOf(httpRequest.execute({ method: 'GET' }, context(connection())))).toMatchObject({ type: 'response_too_large', retryable: false });
  });

  it('honours the abort signal as a retryable timeout', async () => {
    answer = () => undefined;
    const started = Date.now();
    const failure = await failureOf(httpRequest.execute({ method: 'GET' }, context(connection(), AbortSignal.timeout(200))));
    expect(failure).toMatchObject({ type: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(3000);
    server.closeAllConnections();
  });

  it('validates input: method, header syntax, no body on GET', () => {
    expect(v.safeParse(httpRequest.input, { method: 'get' }).output).toEqual({ method: 'GET' });
    expect(v.safeParse(httpRequest.input, { method: 'BREW' }).success).toBe(false);
    expect(v.safeParse(httpRequest.input, { method: 'GET', json_body: {} }).success).toBe(false);
    expect(v.safeParse(httpRequest.input, { method: 'POST', headers: { 'x-a': 'a\r\nx-b: b' } }).success).toBe(false);
    expect(v.safeParse(httpRequest.input, { method: 'POST', headers: { 'bad header': 'a' } }).success).toBe(false);
  });

  it('previews with the auth header redacted and calls nobody', async () => {
    const preview = await httpRequest.preview(
      { method: 'POST', path: 'items', query: { q: 'a b' }, json_body: { a: 1 } },
      context(connection({ auth_header: 'X-Api-Key' })),
    );
    expect(preview).toEqual({
      method: 'POST',
      url: `${origin}/api/v2/items?q=a+b`,
      headers: { 'content-type': 'application/json', 'X-Api-Key': '[redacted]' },
      json_body: { a: 1 },
    });
    expect(JSON.stringify(preview)).not.toContain(SECRET);
    expect(received).toHaveLength(0);
  });
});
