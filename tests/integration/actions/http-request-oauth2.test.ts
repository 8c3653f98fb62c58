/**
 * `http.request` with `auth: oauth2_client_credentials` against a real HTTPS token
 * endpoint and API (SPEC.md "Generic actions", "Connection", "Defaults"), through the
 * guarded edge trusting the test CA: tokens are cached until 60 s before `expires_in`,
 * concurrent calls share one mint, a 401 gets exactly one retry with a fresh token,
 * previews never mint, and token errors name host, status and OAuth code but never the
 * secret.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionFailure, type ActionContext, type ResolvedConnection } from '../../../adapters/actions/action.ts';
import { createHttpRequest } from '../../../adapters/actions/http-request.ts';
import { createTokenSource, type TokenSource } from '../../../adapters/actions/oauth2-token.ts';
import { createGuardedFetch, type GuardedFetch } from '../../../adapters/outbound/guarded-fetch.ts';
import { startOAuth2Server, type OAuth2Server } from '../../support/oauth2-server.ts';

const CLIENT_ID = 'svc-client';
const SECRET = 'cs_9f8e7d6c5b4a-very-secret';

let server: OAuth2Server;
let outbound: GuardedFetch;
let clock = 0;
let tokens: TokenSource;
let action: ReturnType<typeof createHttpRequest>;

const connection = (config: Record<string, unknown> = {}, secret: string | null = SECRET): ResolvedConnection => ({
  id: '6d0f0b7c-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  kind: 'http',
  name: 'edr',
  base_url: `${server.origin}/api`,
  config: { auth: 'oauth2_client_credentials', token_url: server.tokenUrl, client_id: CLIENT_ID, scope: 'hosts.write', ...config },
  secret,
  previous_secret: null,
  bot_token: null,
});
const context = (conn: ResolvedConnection): ActionContext => ({
  runId: 'r1',
  stepId: 's1',
  attempt: 1,
  deliveryId: 'delivery-1',
  caseId: null,
  connection: conn,
  signal: new AbortController().signal,
  cases: null,
  approval: null,
  resume: null,
  now: () => new Date(clock),
});
const failureOf = async (promise: Promise<unknown>): Promise<ActionFailure> => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ActionFailure);
  return error as ActionFailure;
};
const get = (conn = connection()) => action.execute({ method: 'GET', path: 'hosts' }, context(conn));

beforeAll(async () => {
  server = await startOAuth2Server(CLIENT_ID, SECRET);
  outbound = createGuardedFetch({ allowPrivate: true, allowedHosts: [], exchangeOrigin: null, extraCa: server.ca });
});
afterAll(async () => {
  await outbound?.close();
  await server?.close();
});
beforeEach(() => {
  clock = Date.parse('2026-11-23T10:00:00Z');
  server.mints.length = 0;
  server.tokenRequests = 0;
  server.api.length = 0;
  server.expiresIn = 3600;
  server.tokenFailure = null;
  tokens = createTokenSource(outbound, () => clock);
  action = createHttpRequest(outbound, tokens);
});
afterEach(() => server.revokeAll());

describe('http.request with oauth2 client credentials', () => {
  it('mints once with client_secret_basic and the scope, then reuses the token until 60 s before expires_in', async () => {
    expect(await get()).toMatchObject({ status: 200, body: { ok: true, path: '/api/hosts' } });
    expect(await get()).toMatchObject({ status: 200 });
    expect(server.mints).toEqual([{ clientAuth: 'basic', clientId: CLIENT_ID, scope: 'hosts.write', audience: null }]);
    const [first, second] = server.api.map((r) => r.authorization);
    expect(first).toMatch(/^Bearer tok-1-/);
    expect(second).toBe(first);

    clock += (3600 - 60) * 1000 - 1;
    await get();
    expect(server.mints).toHaveLength(1);
    clock += 1;
    await get();
    expect(server.mints).toHaveLength(2);
    expect(server.api[3]?.authorization).toMatch(/^Bearer tok-2-/);
  });

  it('does not cache a token without expires_in, or one that expires within the 60 s margin', async () => {
    server.expiresIn = null;
    await get();
    await get();
    expect(server.mints).toHaveLength(2);
    server.expiresIn = 60;
    await get();
    await get();
    expect(server.mints).toHaveLength(4);
  });

  it('shares one mint between concurrent calls', async () => {
    await Promise.all([get(), get(), get(), get()]);
    expect(server.mints).toHaveLength(1);
    expect(new Set(server.api.map((r) => r.authorization)).size).toBe(1);
  });

  it('retries once after a 401 with a freshly minted token, and no more than once', async () => {
    await get();
    server.revokeAll();
    expect(await get()).toMatchObject({ status: 200 });
    expect(server.mints).toHaveLength(2);
    expect(server.api.map((r) => r.authorization?.slice(0, 12))).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);

    // A token the API refuses even when fresh: one retry, then the 401 is the step's error.
    server.api.length = 0;
    const refusing = createHttpRequest(async (url, init) => {
      const response = await outbound(url, init);
      if (url.includes('/api/')) {
        await response.body?.cancel();
        return new Response('{"error":"invalid_token"}', { status: 401, headers: { 'content-type': 'application/json' } });
      }
      return response;
    }, tokens);
    const failure = await failureOf(refusing.execute({ method: 'POST', path: 'hosts/h1/isolate', json_body: { comment: 'x' } }, context(connection())));
    expect(failure).toMatchObject({ type: 'http_status', retryable: false });
    expect(server.api).toHaveLength(2);
    expect(server.api.every((r) => r.body === '{"comment":"x"}')).toBe(true);
  });

  it('sends the secret in the form with client_auth post, and the audience when the config names one', async () => {
    await get(connection({ client_auth: 'post', scope: undefined, audience: 'https://edr.example/api' }));
    expect(server.mints).toEqual([{ clientAuth: 'post', clientId: CLIENT_ID, scope: null, audience: 'https://edr.example/api' }]);
  });

  it('mints anew after the secret changes: the cache is keyed on the credential', async () => {
    await get();
    await failureOf(get(connection({}, 'cs_rotated-but-not-at-the-server')));
    expect(server.tokenRequests).toBe(2);
    await get();
    expect(server.mints).toHaveLength(1);
  });

  it('previews a redacted Authorization and never mints', async () => {
    const preview = await action.preview({ method: 'POST', path: 'hosts/h1/isolate', json_body: { a: 1 } }, context(connection()));
    expect(preview).toEqual({
      method: 'POST',
      url: `${server.origin}/api/hosts/h1/isolate`,
      headers: { 'content-type': 'application/json', Authorization: '[redacted]' },
      json_body: { a: 1 },
    });
    expect(server.tokenRequests).toBe(0);
    expect(server.api).toHaveLength(0);
  });

  it('names host, status and OAuth error code in token errors, never the secret or a token', async () => {
    const host = new URL(server.origin).host;
    const wrong = await failureOf(get(connection({}, 'cs_wrong-secret-value')));
    expect(wrong).toMatchObject({ type: 'oauth2_token_error', retryable: false });
    expect(wrong.message).toBe(`http.request: token request to ${host} failed with status 401, OAuth error invalid_client`);

    server.tokenFailure = { status: 400, body: { error: 'invalid_scope', error_description: `scope refused for ${SECRET}` } };
    const scope = await failureOf(get());
    expect(scope.message).toBe(`http.request: token request to ${host} failed with status 400, OAuth error invalid_scope`);

    server.tokenFailure = { status: 503, body: { message: 'down' } };
    expect(await failureOf(get())).toMatchObject({
      type: 'oauth2_token_error',
      retryable: true,
      message: `http.request: token request to ${host} failed with status 503`,
    });

    server.tokenFailure = { status: 200, body: { token_type: 'Bearer' } };
    expect((await failureOf(get())).message).toBe(`http.request: token request to ${host} answered without a usable bearer token`);

    for (const failure of [wrong, scope]) {
      expect(JSON.stringify({ message: failure.message, cause: String(failure.cause) })).not.toContain(SECRET);
    }
    expect(server.api).toHaveLength(0);
  });

  it('refuses a token endpoint on a private address when the guard is on, before any request', async () => {
    const guarded = createGuardedFetch({ allowPrivate: false, allowedHosts: [], exchangeOrigin: null, extraCa: server.ca });
    try {
      const strict = createHttpRequest(
        guarded,
        createTokenSource(guarded, () => clock),
      );
      const failure = await failureOf(strict.execute({ method: 'GET' }, context(connection())));
      expect(failure).toMatchObject({
        type: 'target_refused',
        retryable: false,
        message: 'http.request: token request refused: 127.0.0.1 is a non-public address (loopback)',
      });
      expect(server.tokenRequests).toBe(0);
    } finally {
      await guarded.close();
    }
  });
});
