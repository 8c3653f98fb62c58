/**
 * The outbound edge against real servers on 127.0.0.1 (SPEC.md "Authentication"):
 * private targets are refused before a byte leaves, also behind a name and behind a
 * redirect hop; peer hosts, the exchange origin and the development flag let exactly
 * what they name through; the actions turn a refusal into a final `target_refused`.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionFailure, type ActionContext } from '../../../adapters/actions/action.ts';
import { createHttpRequest } from '../../../adapters/actions/http-request.ts';
import { createNotifyWebhook } from '../../../adapters/actions/notify-webhook.ts';
import {
  createGuardedFetch,
  isHostEntry,
  OutboundRefusedError,
  type GuardedFetch,
  type GuardedFetchOptions,
} from '../../../adapters/outbound/guarded-fetch.ts';

type Peer = { server: Server; port: number; paths: string[]; respond: (path: string, res: ServerResponse) => void };

async function startPeer(): Promise<Peer> {
  const peer: Peer = { server: createServer(), port: 0, paths: [], respond: (_path, res) => res.writeHead(200).end('ok') };
  peer.server.on('request', (req, res) => {
    peer.paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => peer.respond(req.url ?? '', res));
  });
  await new Promise<void>((resolve) => peer.server.listen(0, '127.0.0.1', resolve));
  peer.port = (peer.server.address() as AddressInfo).port;
  return peer;
}

let a: Peer;
let b: Peer;
const opened: GuardedFetch[] = [];
const guard = (options: Partial<GuardedFetchOptions> = {}) => {
  const outbound = createGuardedFetch({ allowPrivate: false, allowedHosts: [], exchangeOrigin: null, ...options });
  opened.push(outbound);
  return outbound;
};

/** The refusal a fetch rejected with, thrown as is or as the cause of fetch's TypeError. */
async function refusalOf(promise: Promise<unknown>): Promise<OutboundRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  const refusal = error instanceof OutboundRefusedError ? error : (error as Error | null)?.cause;
  expect(refusal, String(error)).toBeInstanceOf(OutboundRefusedError);
  return refusal as OutboundRefusedError;
}

beforeAll(async () => {
  a = await startPeer();
  b = await startPeer();
});
afterAll(async () => {
  for (const peer of [a, b]) {
    peer.server.closeAllConnections();
    await new Promise<void>((resolve) => peer.server.close(() => resolve()));
  }
});
beforeEach(() => {
  for (const peer of [a, b]) {
    peer.paths = [];
    peer.respond = (_path, res) => res.writeHead(200).end('ok');
  }
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((f) => f.close()));
});

describe('guarded fetch with the guard on', () => {
  it('refuses an IPv4 loopback literal before dispatch', async () => {
    const refusal = await refusalOf(guard()(`http://127.0.0.1:${a.port}/x`, {}));
    expect(refusal).toMatchObject({ host: '127.0.0.1', reason: 'is a non-public address (loopback)' });
    expect(a.paths).toEqual([]);
  });

  it('refuses a name that resolves to a private address; the server sees nothing', async () => {
    const refusal = await refusalOf(guard()(`http://localhost:${a.port}/x`, { method: 'POST', body: 'secret-body' }));
    expect(refusal.host).toBe('localhost');
    expect(refusal.message).toMatch(/^localhost resolves to a non-public address \((loopback)\)$/);
    expect(refusal.message).not.toContain('secret-body');
    expect(a.paths).toEqual([]);
  });

  it.each([
    ['[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:169.254.169.254]', 'linkLocal'],
    ['169.254.169.254', 'linkLocal'],
    ['[fd00:ec2::254]', 'uniqueLocal'],
    ['10.0.0.1', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['2130706433', 'loopback'], // the URL parser reads a bare number as 127.0.0.1
  ])('refuses %s (%s)', async (host, range) => {
    const refusal = await refusalOf(guard()(`http://${host}:${a.port}/`, {}));
    expect(refusal.reason).toBe(`is a non-public address (${range})`);
  });

  it.each(['file:///etc/passwd', 'data:text/plain,hello', 'ftp://127.0.0.1/'])('refuses the scheme of %s, also with allowPrivate', async (url) => {
    await refusalOf(guard({ allowPrivate: true })(url, {}));
  });

  it('re-checks every redirect hop: an allowed host redirecting to a refused one fails and the target sees nothing', async () => {
    const outbound = guard({ allowedHosts: [`127.0.0.1:${a.port}`] });
    a.respond = (path, res) => {
      if (path === '/to-name') return void res.writeHead(302, { location: `http://localhost:${b.port}/stolen` }).end();
      if (path === '/to-literal') return void res.writeHead(302, { location: `http://127.0.0.1:${b.port}/stolen` }).end();
      if (path === '/to-self') return void res.writeHead(302, { location: '/landed' }).end();
      res.writeHead(200).end(`at ${path}`);
    };
    const same = await outbound(`http://127.0.0.1:${a.port}/to-self`, { redirect: 'follow' });
    expect(await same.text()).toBe('at /landed');
    expect((await refusalOf(outbound(`http://127.0.0.1:${a.port}/to-name`, { redirect: 'follow' }))).host).toBe('localhost');
    expect((await refusalOf(outbound(`http://127.0.0.1:${a.port}/to-literal`, { redirect: 'follow' }))).host).toBe('127.0.0.1');
    expect(b.paths).toEqual([]);
    expect(a.paths).toEqual(['/to-self', '/landed', '/to-name', '/to-literal']);

    // With redirect 'manual' (what the actions send) the 3xx comes back as the answer.
    const manual = await outbound(`http://127.0.0.1:${a.port}/to-name`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    await manual.body?.cancel();
  });

  it('lets exactly a configured peer host:port through, not another port or another name for it', async () => {
    const outbound = guard({ allowedHosts: [`127.0.0.1:${a.port}`, 'other.invalid'] });
    expect((await outbound(`http://127.0.0.1:${a.port}/peer`, {})).status).toBe(200);
    await refusalOf(outbound(`http://127.0.0.1:${b.port}/peer`, {}));
    await refusalOf(outbound(`http://localhost:${a.port}/peer`, {}));
    expect(a.paths).toEqual(['/peer']);
    expect(b.paths).toEqual([]);
  });

  it('lets a peer name through without checking what it resolves to', async () => {
    const outbound = guard({ allowedHosts: [`LocalHost:${a.port}`] });
    expect((await outbound(`http://localhost:${a.port}/by-name`, {})).status).toBe(200);
    expect(a.paths).toEqual(['/by-name']);
  });

  it('lets exactly the exchange origin through: not another port, scheme or host spelling', async () => {
    const outbound = guard({ exchangeOrigin: `http://127.0.0.1:${a.port}/oauth2/token` });
    expect((await outbound(`http://127.0.0.1:${a.port}/oauth2/token`, { method: 'POST', body: 'grant_type=x' })).status).toBe(200);
    await refusalOf(outbound(`http://127.0.0.1:${b.port}/oauth2/token`, {}));
    await refusalOf(outbound(`http://localhost:${a.port}/oauth2/token`, {}));
    await refusalOf(outbound(`https://127.0.0.1:${a.port}/oauth2/token`, {}));
    expect(a.paths).toEqual(['/oauth2/token']);
    expect(b.paths).toEqual([]);
  });

  it('refuses a malformed peer host entry', () => {
    expect(() => guard({ allowedHosts: ['http://x/'] })).toThrow(/host\[:port\]/);
  });
});

describe('guarded fetch with allowPrivate (development)', () => {
  it('lets literals, names and redirect hops to private addresses through', async () => {
    const outbound = guard({ allowPrivate: true });
    a.respond = (_path, res) => void res.writeHead(302, { location: `http://localhost:${b.port}/hop` }).end();
    expect((await outbound(`http://127.0.0.1:${b.port}/literal`, {})).status).toBe(200);
    expect((await outbound(`http://localhost:${b.port}/name`, {})).status).toBe(200);
    expect((await outbound(`http://127.0.0.1:${a.port}/start`, { redirect: 'follow' })).status).toBe(200);
    expect(b.paths).toEqual(['/literal', '/name', '/hop']);
  });
});

describe('isHostEntry', () => {
  it.each(['detector.internal', 'detector.internal:8443', '10.0.0.5:80', '[fd00::1]:443', '[::1]', 'Peer-1.Example.COM'])('accepts %s', (entry) => {
    expect(isHostEntry(entry)).toBe(true);
  });
  it.each(['', 'http://x', 'x:0', 'x:65536', 'x:port', 'user@x', 'x/y', '::1', 'a b'])('refuses %s', (entry) => {
    expect(isHostEntry(entry)).toBe(false);
  });
});

describe('actions over the guarded fetch', () => {
  const context = (baseUrl: string, kind: 'webhook' | 'http'): ActionContext => ({
    runId: 'run-1',
    stepId: 'notify',
    attempt: 1,
    deliveryId: 'delivery-1',
    caseId: null,
    connection: {
      id: 'c1',
      kind,
      name: 'hook',
      base_url: baseUrl,
      config: {},
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      previous_secret: null,
      bot_token: null,
    },
    signal: AbortSignal.timeout(5000),
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
  });

  it.each([
    ['notify.webhook', 'literal'],
    ['notify.webhook', 'name'],
    ['http.request', 'literal'],
    ['http.request', 'name'],
  ])('%s to a %s loopback target fails final with target_refused naming the host, never the secret', async (action, form) => {
    const outbound = guard();
    const host = form === 'literal' ? '127.0.0.1' : 'localhost';
    const ctx = context(`http://${host}:${a.port}/hooks`, action === 'http.request' ? 'http' : 'webhook');
    const run =
      action === 'http.request'
        ? createHttpRequest(outbound).execute({ method: 'POST', json_body: { a: 1 } }, ctx)
        : createNotifyWebhook(outbound).execute({ body: { a: 1 } }, ctx);
    const failure = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ActionFailure);
    expect(failure).toMatchObject({ type: 'target_refused', retryable: false });
    expect((failure as ActionFailure).message).toContain(`${action}: request refused: ${host} `);
    expect((failure as ActionFailure).message).not.toContain('whsec_');
    expect(a.paths).toEqual([]);
  });
});
