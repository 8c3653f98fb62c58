import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authMeRoutes } from '../../adapters/http/auth-me.routes.ts';
import { authenticate, pathBelow, requirePermission } from '../../adapters/http/auth.ts';
import type { AppEnv } from '../../adapters/http/context.ts';
import { devIssuer, ensureDevIdentity } from '../../adapters/identity/dev-identity.ts';
import { createJtiStore } from '../../adapters/identity/jti-store.ts';
import { defaultPermissionMatrix } from '../../adapters/identity/permissions.ts';
import { scopes } from '../../adapters/identity/scopes.ts';
import { createUserDirectory } from '../../adapters/identity/users.ts';
import { createTokenVerifier } from '../../adapters/identity/verifier.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { startDevGateway } from '../../runtime/cli/dev-gateway.ts';
import { loadDevIdentity } from '../../runtime/cli/dev-token.ts';
import { svc } from '../support/cli.ts';
import { engines } from '../support/engines.ts';

const issuer = 'https://identity.example.test';
const audience = 'svc';
const subject = 'b1c7a0f4-2d4e-4f7b-8c21-5a6e9d3f0a11';
let key: { privateKey: CryptoKey; jwk: JWK };

beforeAll(async () => {
  const pair = await generateKeyPair('EdDSA', { extractable: true });
  key = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'EdDSA' } };
});

async function sign(claims: Record<string, unknown>): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: issuer, aud: audience, iat, exp: iat + 60, jti: randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
    .sign(key.privateKey);
}

function assertionFor(htm: string, htu: string, extra: Record<string, unknown> = {}): Promise<string> {
  return sign({ token_use: 'assertion', sub: subject, email: 'ana@example.com', name: 'Ana', grants: [{ team: null, role: 'viewer' }], htm, htu, ...extra });
}

/** The service's shape in miniature: base path, authenticate on every route, one onError. */
function testApp(deps: Parameters<typeof authenticate>[0]): Hono {
  const api = new Hono<AppEnv>();
  api.use('*', authenticate(deps));
  api.get('/cases', requirePermission('read', 'svc:cases:read', defaultPermissionMatrix), (c) => c.json({ ok: true }));
  api.post('/cases', requirePermission('manage_cases', 'svc:cases:write', defaultPermissionMatrix), (c) => c.json({ ok: true }));
  api.route('/', authMeRoutes());
  const app = new Hono();
  app.onError((error, c) =>
    error instanceof DomainError
      ? c.json({ detail: error.detail, code: error.code, params: error.params }, error.status as ContentfulStatusCode)
      : c.json({ detail: error.message, code: 'internal_error', params: {} }, 500),
  );
  app.route('/api', api);
  return app;
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe.each(engines)('authentication on $name', (engine) => {
  let opened: Awaited<ReturnType<typeof engine.open>>;
  let app: Hono;
  let clock: Date;

  beforeAll(async () => {
    opened = await engine.open();
    clock = new Date();
    const verifier = await createTokenVerifier({ issuer, audience, jwks: { keys: [key.jwk] }, jtiStore: createJtiStore(opened.db) });
    app = testApp({ verifier, users: createUserDirectory(opened.db, () => clock), basePath: '/api' });
  });
  afterAll(() => opened.close());

  it('answers 401 without a usable bearer token', async () => {
    for (const init of [{}, { headers: { authorization: 'Basic YTpi' } }, bearer('garbage'), bearer('a.b.c')]) {
      const res = await app.request('/api/cases', init);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
    }
  });

  it('accepts an assertion once, bound to the path below the base path, query aside', async () => {
    const token = await assertionFor('GET', '/cases');
    expect((await app.request('/api/cases?status=new', bearer(token))).status).toBe(200);
    const replay = await app.request('/api/cases', bearer(token));
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ code: 'unauthenticated', detail: 'token already used' });
    const elsewhere = await app.request('/api/auth/me', bearer(await assertionFor('GET', '/cases')));
    expect(await elsewhere.json()).toMatchObject({ detail: 'token not bound to this request' });
  });

  it('answers 403 to a valid token without the permission or the scope', async () => {
    const viewerPost = await app.request('/api/cases', { method: 'POST', ...bearer(await assertionFor('POST', '/cases')) });
    expect(viewerPost.status).toBe(403);
    expect(await viewerPost.json()).toMatchObject({ code: 'forbidden', params: { permission: 'manage_cases' } });

    const act = { sub: subject, email: 'ana@example.com', grants: [{ team: 'blue', role: 'admin' }] };
    const readOnly = await sign({ token_use: 'exchange', sub: 'mcp', scope: 'svc:cases:read', act, exp: Math.floor(Date.now() / 1000) + 600 });
    expect((await app.request('/api/cases', bearer(readOnly))).status).toBe(200);
    const scoped = await app.request('/api/cases', { method: 'POST', ...bearer(readOnly) });
    expect(scoped.status).toBe(403);
    expect(await scoped.json()).toMatchObject({ code: 'forbidden', params: { scope: 'svc:cases:write' } });

    const workload = await sign({ token_use: 'exchange', sub: 'batch', scope: scopes.join(' ') });
    expect((await app.request('/api/cases', bearer(workload))).status).toBe(403);
    expect((await app.request('/api/auth/me', bearer(workload))).status).toBe(403);

    const service = await sign({ token_use: 'service', sub: 'identity', scope: scopes.join(' ') });
    expect((await app.request('/api/cases', bearer(service))).status).toBe(403);
  });

  it('creates the user row, refreshes it on change, and answers /auth/me', async () => {
    const me = async (extra: Record<string, unknown>) => {
      const res = await app.request('/api/auth/me', bearer(await assertionFor('GET', '/auth/me', extra)));
      expect(res.status).toBe(200);
      return res.json();
    };
    const rowOf = () => opened.db.selectFrom('users').selectAll().where('subject', '=', subject).executeTakeFirstOrThrow();

    const grants = [
      { team: 'blue', role: 'approver' },
      { team: null, role: 'viewer' },
    ];
    const first = await me({ grants });
    const created = await rowOf();
    expect(first).toEqual({ id: created.id, email: 'ana@example.com', full_name: 'Ana', role: 'approver' });
    expect(created).toMatchObject({ email: 'ana@example.com', name: 'Ana', active: true, grants });

    clock = new Date(clock.getTime() + 1000);
    await me({ grants: [...grants].reverse() });
    expect((await rowOf()).updated_at).toEqual(created.updated_at);

    // New grants are kept: they decide whom a mention may notify.
    await me({});
    expect((await rowOf()).grants).toEqual([{ team: null, role: 'viewer' }]);

    clock = new Date(clock.getTime() + 1000);
    const moved = await me({ email: 'ana@new.example.com', name: 'Ana B' });
    const refreshed = await rowOf();
    expect(moved).toMatchObject({ id: created.id, email: 'ana@new.example.com', full_name: 'Ana B' });
    expect(refreshed).toMatchObject({ id: created.id, email: 'ana@new.example.com', name: 'Ana B' });
    expect(refreshed.updated_at.getTime()).toBeGreaterThan(created.updated_at.getTime());

    // An exchange actor carries no name: the row keeps the assertion's.
    const act = { sub: subject, email: 'ana@new.example.com', grants: [] };
    const viaMcp = await app.request('/api/auth/me', bearer(await sign({ token_use: 'exchange', sub: 'mcp', scope: '', act })));
    expect(await viaMcp.json()).toEqual({ id: created.id, email: 'ana@new.example.com', full_name: 'Ana B', role: null });
    expect(await opened.db.selectFrom('users').select('id').where('subject', '=', subject).execute()).toHaveLength(1);
  });

  it('gives concurrent first sightings of a person one row', async () => {
    const principal = {
      tokenUse: 'assertion' as const,
      subject: randomUUID(),
      userId: null,
      email: 'x@example.com',
      name: 'X',
      grants: [],
      scopes: null,
      workload: null,
    };
    const resolved = await Promise.all([1, 2, 3].map(() => createUserDirectory(opened.db).resolve(principal)));
    expect(new Set(resolved.map((p) => p.userId)).size).toBe(1);
  });

  it('stores each jti once and sweeps expired ones', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const store = createJtiStore(opened.db, { now: () => now, sweepIntervalMs: 1000 });
    const jti = randomUUID();
    expect(await store.claim(jti, new Date('2030-01-01T00:01:00Z'))).toBe(true);
    expect(await store.claim(jti, new Date('2030-01-01T00:01:00Z'))).toBe(false);
    now = new Date('2030-01-01T00:02:00Z');
    expect(await store.claim(randomUUID(), new Date('2030-01-01T00:03:00Z'))).toBe(true);
    expect(await opened.db.selectFrom('used_token_ids').select('jti').where('jti', '=', jti).execute()).toEqual([]);
  });
});

describe('remote JWKS', () => {
  it('fetches the keys from a URL', async () => {
    const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.jwk] })));
    const url = await listen(server);
    try {
      const verifier = await createTokenVerifier({ issuer, audience, jwks: `${url}/jwks.json`, jtiStore: { claim: async () => true } });
      await expect(verifier.verify(await assertionFor('GET', '/x'), { method: 'GET', path: '/x' })).resolves.toMatchObject({ subject });
    } finally {
      server.close();
    }
  });
});

describe('svc dev token', () => {
  it('prints an exchange token with an actor that the dev identity verifies and the service accepts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-dev-token-'));
    const { out } = await svc(['dev', 'token', '--email', 'dev@example.com', '--grant', 'admin', '--grant', 'viewer:blue', '--ttl', '600'], {
      SVC_DATA_DIR: dir,
    });
    expect(out.endsWith('\n')).toBe(true);
    const token = out.trim();
    const claims = decodeJwt(token);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(600);
    expect(claims).toMatchObject({ iss: devIssuer, aud: 'svc', token_use: 'exchange', act: { email: 'dev@example.com' } });

    const identity = await ensureDevIdentity(dir);
    const verifier = await createTokenVerifier({ issuer: identity.issuer, audience: 'svc', jwks: identity.jwks, jtiStore: { claim: async () => true } });
    expect(await verifier.verify(token, { method: 'GET', path: '/cases' })).toMatchObject({
      tokenUse: 'exchange',
      email: 'dev@example.com',
      grants: [
        { team: null, role: 'admin' },
        { team: 'blue', role: 'viewer' },
      ],
      scopes: [...scopes],
    });
  });

  it('defaults to a 12 h token and takes scopes', async () => {
    const env = { SVC_DATA_DIR: await mkdtemp(join(tmpdir(), 'svc-dev-token-')), SVC_AUDIENCE: 'svc-test' };
    const { out } = await svc(['dev', 'token', '--email', 'd@example.com', '--grant', 'analyst', '--scope', 'svc:cases:read svc:runs:read'], env);
    const claims = decodeJwt(out.trim());
    expect(claims).toMatchObject({ aud: 'svc-test', scope: 'svc:cases:read svc:runs:read' });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(12 * 3600);
  });

  it('prints the identity service’s own token with --identity-service, for the peer routes it owns', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-dev-token-'));
    const { out } = await svc(['dev', 'token', '--identity-service', '--scope', 'svc:peer:ai:write'], { SVC_DATA_DIR: dir });
    const token = out.trim();
    expect(decodeJwt(token)).not.toHaveProperty('act');
    const identity = await ensureDevIdentity(dir);
    const verifier = await createTokenVerifier({ issuer: identity.issuer, audience: 'svc', jwks: identity.jwks, jtiStore: { claim: async () => true } });
    expect(await verifier.verify(token, { method: 'PUT', path: '/peer/v1/settings/ai' })).toMatchObject({
      tokenUse: 'service',
      subject: 'identity',
      grants: [],
      scopes: ['svc:peer:ai:write'],
    });
    const env = { SVC_DATA_DIR: dir };
    expect(await svc(['dev', 'token', '--identity-service'], env)).toMatchObject({ code: 1, err: expect.stringMatching(/--identity-service needs --scope/) });
    expect(await svc(['dev', 'token', '--identity-service', '--scope', 'svc:peer:ai:write', '--email', 'a@b.c'], env)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/no person/),
    });
  });

  it('refuses bad arguments (exit 2 for an unknown option, 1 for a bad value) and environments where dev identity is refused', async () => {
    const env = { SVC_DATA_DIR: await mkdtemp(join(tmpdir(), 'svc-dev-token-')) };
    expect(await svc(['dev', 'token', '--grant', 'admin'], env)).toMatchObject({ code: 1, err: expect.stringMatching(/--email/) });
    expect(await svc(['dev', 'token', '--email', 'a@b.c'], env)).toMatchObject({ code: 1, err: expect.stringMatching(/--grant/) });
    expect(await svc(['dev', 'token', '--email', 'a@b.c', '--grant', 'root'], env)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/role must be one of/),
    });
    expect(await svc(['dev', 'token', '--email', 'a@b.c', '--grant', 'admin', '--ttl', '-5'], env)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/--ttl/),
    });
    expect(await svc(['dev', 'token', '--email', 'a@b.c', '--grant', 'admin', '--bogus'], env)).toMatchObject({ code: 2, err: expect.stringMatching(/bogus/) });
    const args = ['--email', 'a@b.c', '--grant', 'admin'];
    expect(await svc(['dev', 'token', ...args], { ...env, DATABASE_URL: 'postgres://x/y' })).toMatchObject({
      code: 1,
      err: expect.stringMatching(/DATABASE_URL/),
    });
    expect(await svc(['dev', 'token', ...args], { ...env, NODE_ENV: 'production' })).toMatchObject({ code: 1, err: expect.stringMatching(/production/) });
    expect(await svc(['dev', 'token', ...args], { ...env, SVC_IDENTITY_JWKS: 'https://id.example/jwks' })).toMatchObject({
      code: 1,
      err: expect.stringMatching(/SVC_IDENTITY_JWKS/),
    });
  });
});

describe('svc dev gateway', () => {
  type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
  const seen: Seen[] = [];
  const upstream = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(201, { 'content-type': 'text/plain', 'x-upstream': 'yes' });
      res.write('part one, ');
      setTimeout(() => res.end('part two'), 10);
    });
  });
  let upstreamUrl: string;

  beforeAll(async () => {
    upstreamUrl = await listen(upstream);
  });
  afterAll(() => new Promise((resolve) => upstream.close(resolve)));

  it('forwards the request with a fresh bound assertion instead of the client Authorization', async () => {
    const env = { SVC_DATA_DIR: await mkdtemp(join(tmpdir(), 'svc-dev-gateway-')) };
    const { identity, audience } = await loadDevIdentity(env);
    const gateway = await startDevGateway({
      host: '127.0.0.1',
      port: 0,
      target: new URL(upstreamUrl),
      basePath: '/api',
      audience,
      identity,
      person: { email: 'dev@example.com', name: 'Dev', grants: [{ team: null, role: 'admin' }] },
    });
    const verifier = await createTokenVerifier({ issuer: identity.issuer, audience, jwks: identity.jwks, jtiStore: { claim: async () => true } });
    try {
      const answer = await send(`${gateway.url}/api/cases/7/comments?notify=1`, {
        method: 'POST',
        headers: { authorization: 'Bearer client-token', 'content-type': 'application/json', 'x-trace': 't1', connection: 'x-hop', 'x-hop': 'drop me' },
        body: '{"body":"hello"}',
      });
      expect(answer).toMatchObject({ status: 201, body: 'part one, part two' });
      expect(answer.headers['x-upstream']).toBe('yes');
      await send(`${gateway.url}/api/auth/me`, { method: 'GET', headers: {} });

      const [post, get] = seen;
      expect(post).toMatchObject({ method: 'POST', url: '/api/cases/7/comments?notify=1', body: '{"body":"hello"}' });
      expect(post?.headers).toMatchObject({ 'content-type': 'application/json', 'x-trace': 't1' });
      expect(post?.headers).not.toHaveProperty('x-hop');
      expect(post?.headers.authorization).not.toContain('client-token');
      const token = post?.headers.authorization?.replace(/^Bearer /, '') ?? '';
      expect(await verifier.verify(token, { method: 'POST', path: '/cases/7/comments' })).toMatchObject({
        tokenUse: 'assertion',
        email: 'dev@example.com',
        name: 'Dev',
        grants: [{ team: null, role: 'admin' }],
      });
      const claims = decodeJwt(token);
      expect(Number(claims.exp) - Number(claims.iat)).toBe(60);
      const second = decodeJwt(get?.headers.authorization?.replace(/^Bearer /, '') ?? '');
      expect(second).toMatchObject({ htm: 'GET', htu: '/auth/me' });
      expect(second.jti).not.toBe(claims.jti);
    } finally {
      await gateway.close();
    }
  });

  it('answers 502 when the service is unreachable', async () => {
    const closed = createServer();
    const deadUrl = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const { identity } = await loadDevIdentity({ SVC_DATA_DIR: await mkdtemp(join(tmpdir(), 'svc-dev-gateway-')) });
    const gateway = await startDevGateway({
      host: '127.0.0.1',
      port: 0,
      target: new URL(deadUrl),
      basePath: '',
      audience: 'svc',
      identity,
      person: { email: 'dev@example.com', name: 'Dev', grants: [] },
    });
    try {
      expect((await send(`${gateway.url}/cases`, { method: 'GET', headers: {} })).status).toBe(502);
    } finally {
      await gateway.close();
    }
  });

  it('computes htu below the base path', () => {
    expect(pathBelow('/api/cases', '/api')).toBe('/cases');
    expect(pathBelow('/api', '/api/')).toBe('/');
    expect(pathBelow('/apix/cases', '/api')).toBe('/apix/cases');
    expect(pathBelow('/cases', '')).toBe('/cases');
  });
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A plain node:http client: fetch may not send hop-by-hop headers such as Connection. */
function send(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method, headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
