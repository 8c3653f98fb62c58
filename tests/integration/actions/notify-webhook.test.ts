/**
 * notify.webhook against a real receiver on 127.0.0.1 that verifies deliveries with the
 * `standardwebhooks` package (SPEC.md "Generic actions").
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionFailure, deliveryIdOf, type ActionContext, type ResolvedConnection } from '../../../adapters/actions/action.ts';
import { createNotifyWebhook, signStandardWebhook, webhookId } from '../../../adapters/actions/notify-webhook.ts';
import { readFixtureJson } from '../../support/fixtures.ts';

type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
type Vector = { secret: string; msg_id: string; timestamp: number; body: string; expected_signature: string };

let server: Server;
let baseUrl: string;
let received: Received[] = [];
let answerStatus = 200;
// The action's own behaviour over the plain fetch; the guarded edge has its own suites (tests/unit/outbound, outbound-guard).
const notifyWebhook = createNotifyWebhook(fetch);

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answerStatus, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received = [];
  answerStatus = 200;
});

function connection(secret: string | null, base = baseUrl): ResolvedConnection {
  return { id: 'c1', kind: 'webhook', name: 'ops-hook', base_url: base, config: {}, secret, previous_secret: null, bot_token: null };
}

function context(conn: ResolvedConnection | null, overrides: Partial<ActionContext> = {}): ActionContext {
  return {
    runId: 'run-1',
    stepId: 'notify',
    attempt: 1,
    deliveryId: deliveryIdOf('run-1', 'notify', 1, null),
    caseId: null,
    connection: conn,
    signal: AbortSignal.timeout(5000),
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
    ...overrides,
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

describe('signStandardWebhook', () => {
  it('matches the Standard Webhooks test vector and the reference library', () => {
    const [vector] = readFixtureJson<{ vectors: Vector[] }>('vendors', 'standard_webhooks', 'signature_vectors.json').vectors;
    if (!vector) throw new Error('fixture has no vector');
    expect(signStandardWebhook(vector.secret, vector.msg_id, vector.timestamp, vector.body)).toBe(vector.expected_signature);
    expect(new Webhook(vector.secret).sign(vector.msg_id, new Date(vector.timestamp * 1000), vector.body)).toBe(vector.expected_signature);
  });

  it('uses the raw UTF-8 bytes of a secret without the whsec_ prefix', () => {
    const secret = 'plain-sécret';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update('msg_1.1700000000.{"a":1}').digest('base64');
    expect(signStandardWebhook(secret, 'msg_1', 1700000000, '{"a":1}')).toBe(`v1,${expected}`);
  });

  it('refuses an empty secret and a whsec_ secret that is not base64, without quoting it', () => {
    expect(() => signStandardWebhook('', 'm', 1, '{}')).toThrow(/empty/);
    expect(() => signStandardWebhook('whsec_not base64!', 'm', 1, '{}')).toThrow(/base64/);
    expect(() => signStandardWebhook('whsec_not base64!', 'm', 1, '{}')).not.toThrow(/not base64!/);
  });
});

describe('notify.webhook', () => {
  it('delivers a body the receiver verifies with the standardwebhooks library (whsec_ secret)', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const step = v.parse(notifyWebhook.input, { body: { case: 'INC-7', note: 'héllo ✓' }, path: 'incidents' });
    const output = await notifyWebhook.execute(step, context(connection(secret)));
    expect(received).toHaveLength(1);
    const request = received[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks/incidents');
    expect(request.headers['content-type']).toBe('application/json');
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toEqual({ case: 'INC-7', note: 'héllo ✓' });
    expect(output).toEqual({ status: 200, webhook_id: request.headers['webhook-id'], delivered: true });
  });

  it('signs with both secrets while a rotation overlaps, so a receiver on either verifies', async () => {
    const oldSecret = `whsec_${randomBytes(24).toString('base64')}`;
    const newSecret = `whsec_${randomBytes(24).toString('base64')}`;
    await notifyWebhook.execute(
      v.parse(notifyWebhook.input, { path: 'rotating', body: { ok: true } }),
      context({ ...connection(newSecret), previous_secret: oldSecret }),
    );
    const [delivery] = received;
    const headers = {
      'webhook-id': String(delivery?.headers['webhook-id']),
      'webhook-timestamp': String(delivery?.headers['webhook-timestamp']),
      'webhook-signature': String(delivery?.headers['webhook-signature']),
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, newSecret]) expect(new Webhook(secret).verify(delivery?.body ?? '', headers)).toEqual({ ok: true });
  });

  it('signs with a raw secret as the library does in raw format', async () => {
    const secret = 'raw-shared-secret';
    await notifyWebhook.execute({ body: [1, 2, 3] }, context(connection(secret)));
    const request = received[0]!;
    expect(new Webhook(secret, { format: 'raw' }).verify(request.body, request.headers as Record<string, string>)).toEqual([1, 2, 3]);
    expect(() => new Webhook(`whsec_${Buffer.from('other').toString('base64')}`).verify(request.body, request.headers as Record<string, string>)).toThrow();
  });

  it('wraps the body as {type, timestamp, data} when event_type is given', async () => {
    const now = new Date();
    await notifyWebhook.execute({ event_type: 'case.escalated', body: { key: 'INC-1' } }, context(connection('s'), { now: () => now }));
    expect(JSON.parse(received[0]!.body)).toEqual({ type: 'case.escalated', timestamp: now.toISOString(), data: { key: 'INC-1' } });
    expect(received[0]!.headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
  });

  it('keeps webhook-id stable per delivery (run, step, pass, item), whatever the attempt', async () => {
    const conn = connection('s');
    const first = await notifyWebhook.execute({}, context(conn));
    const again = await notifyWebhook.execute({}, context(conn));
    // The re-execution after a worker crash is the next attempt of the same pass: the same message.
    const nextAttempt = await notifyWebhook.execute({}, context(conn, { attempt: 2 }));
    const nextPass = await notifyWebhook.execute({}, context(conn, { attempt: 2, deliveryId: deliveryIdOf('run-1', 'notify', 2, null) }));
    const item = await notifyWebhook.execute({}, context(conn, { deliveryId: deliveryIdOf('run-1', 'notify', 1, 0) }));
    const otherStep = await notifyWebhook.execute({}, context(conn, { stepId: 'notify-2', deliveryId: deliveryIdOf('run-1', 'notify-2', 1, null) }));
    const otherRun = await notifyWebhook.execute({}, context(conn, { runId: 'run-2', deliveryId: deliveryIdOf('run-2', 'notify', 1, null) }));
    expect(first.webhook_id).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
    expect(again.webhook_id).toBe(first.webhook_id);
    expect(nextAttempt.webhook_id).toBe(first.webhook_id);
    expect(first.webhook_id).toBe(webhookId(deliveryIdOf('run-1', 'notify', 1, null)));
    expect(new Set([first, nextPass, item, otherStep, otherRun].map((o) => o.webhook_id)).size).toBe(5);
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([first, again, nextAttempt, nextPass, item, otherStep, otherRun].map((o) => o.webhook_id));
  });

  it('fails retryably on 5xx and 429, finally on other 4xx, naming the status and never the secret', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    for (const [status, retryable] of [
      [500, true],
      [503, true],
      [429, true],
      [400, false],
      [404, false],
      [302, false],
    ] as const) {
      answerStatus = status;
      const failure = await failureOf(notifyWebhook.execute({ body: { n: 1 } }, context(connection(secret))));
      expect(failure).toMatchObject({ type: 'http_status', retryable });
      expect(failure.message).toContain(String(status));
      const signature = received.at(-1)!.headers['webhook-signature'] as string;
      for (const text of [failure.message, JSON.stringify(failure), String(failure.stack)]) {
        expect(text).not.toContain(secret.slice('whsec_'.length));
        expect(text).not.toContain(signature.slice(3));
      }
    }
  });

  it('fails retryably when the receiver is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await failureOf(notifyWebhook.execute({}, context(connection('s', `http://127.0.0.1:${port}/`))));
    expect(failure).toMatchObject({ type: 'network_error', retryable: true });
  });

  it('refuses, finally, a missing connection, a missing secret and an absolute path', async () => {
    expect(await failureOf(notifyWebhook.execute({}, context(null)))).toMatchObject({ type: 'connection_missing', retryable: false });
    expect(await failureOf(notifyWebhook.execute({}, context(connection(null))))).toMatchObject({ type: 'connection_missing', retryable: false });
    expect(await failureOf(notifyWebhook.execute({ path: 'http://127.0.0.2/x' }, context(connection('s'))))).toMatchObject({
      type: 'path_refused',
      retryable: false,
    });
    expect(received).toHaveLength(0);
  });

  it('previews the request with the signature redacted and sends nothing', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const preview = await notifyWebhook.preview({ body: { a: 1 }, path: '/x' }, context(connection(secret)));
    expect(preview).toMatchObject({
      method: 'POST',
      url: `${baseUrl}/x`,
      headers: { 'content-type': 'application/json', 'webhook-id': webhookId(deliveryIdOf('run-1', 'notify', 1, null)), 'webhook-signature': '[redacted]' },
      body: { a: 1 },
    });
    expect(JSON.stringify(preview)).not.toContain(secret.slice('whsec_'.length));
    expect(received).toHaveLength(0);
  });
});
