/**
 * A stand-in for the suite's identity service over HTTPS on 127.0.0.1 (self-signed,
 * tls-cert.ts) that follows docs/suite-contracts.md "Workload exchange" and "Identity: live
 * grants and approval settings":
 *
 * - `POST /oauth/token`: the workload exchange, a client-credentials grant with HTTP Basic
 *   client authentication, minting tokens bound to the `audience` and `scope` asked for;
 * - `GET /peer/v1/grants?user=<subject>` (a token for audience `identity` holding
 *   `identity:grants:read`): `{user, active, grants, four_eyes_exception}` of a user set
 *   with `setUser`, 404 for any other subject;
 * - `GET /peer/v1/approval-settings` (`identity:approval-settings:read`): `settings`.
 *
 * Every request to the two peer paths is recorded in `requests`. `setMode` makes them fail
 * the ways a real peer does: `slow` answers after `slowMs`, `error` is HTTP 500,
 * `malformed` a 200 whose body is not JSON, and `refused` stops listening altogether (the
 * token endpoint too) until another mode is set, so connections are refused.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from './tls-cert.ts';

export type IdentityMode = 'normal' | 'slow' | 'error' | 'malformed' | 'refused';

/** A user as identity describes them on the grants path. */
export type IdentityUser = { active: boolean; grants: { team: string | null; role: string }[]; four_eyes_exception: boolean };

export type IdentityRequest = { path: string; user: string | null };

export type IdentityServer = {
  origin: string;
  /** PEM file of the server's certificate, for SVC_OUTBOUND_CA_FILE. */
  caFile: string;
  /** The token endpoint's path, for SVC_EXCHANGE_TOKEN_PATH. */
  tokenPath: string;
  /** What the approval-settings path answers in `normal` mode. */
  settings: Record<string, unknown>;
  /** Every request to the grants and approval-settings paths, in order, refused ones included. */
  requests: IdentityRequest[];
  /** Every token minted, with the audience and scope asked for. */
  mints: { audience: string | null; scope: string | null }[];
  /** How long `slow` mode waits before answering, ms. */
  slowMs: number;
  mode: () => IdentityMode;
  setMode: (mode: IdentityMode) => Promise<void>;
  /** Sets what the grants path answers for `subject`. */
  setUser: (subject: string, user: IdentityUser) => void;
  close: () => Promise<void>;
};

export const GRANTS_PATH = '/peer/v1/grants';
export const APPROVAL_SETTINGS_PATH = '/peer/v1/approval-settings';
const TOKEN_PATH = '/oauth/token';

/**
 * The service's environment for reaching `identity` as workload `svc` with `secret`: only
 * its exact origin is let past the SSRF guard (private targets stay refused), its
 * certificate trusted, and a 1 s timeout so `slow` mode shows as unreadable.
 */
export function identityServiceEnv(identity: IdentityServer, secret: string): Record<string, string> {
  return {
    SVC_ALLOW_PRIVATE_TARGETS: 'false',
    SVC_IDENTITY_URL: identity.origin,
    SVC_EXCHANGE_TOKEN_PATH: identity.tokenPath,
    SVC_EXCHANGE_CLIENT_SECRET: secret,
    SVC_OUTBOUND_CA_FILE: identity.caFile,
    SVC_IDENTITY_TIMEOUT_MS: '1000',
  };
}

/** Starts the stand-in for workload `clientId` with secret `secret`. */
export async function startIdentityServer(clientId: string, secret: string): Promise<IdentityServer> {
  const { key, cert, certFile } = selfSignedCertificate();
  const users = new Map<string, IdentityUser>();
  const live = new Map<string, { audience: string | null; scopes: string[] }>();
  const pending = new Set<NodeJS.Timeout>();
  let mode: IdentityMode = 'normal';
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));

  const state = {
    settings: { default_deadline_hours: 24 } as Record<string, unknown>,
    requests: [] as IdentityRequest[],
    mints: [] as { audience: string | null; scope: string | null }[],
    slowMs: 3000,
  };

  const token = (req: IncomingMessage, body: string, res: ServerResponse) => {
    const form = new URLSearchParams(body);
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [id = '', pass = ''] = Buffer.from(basic ?? '', 'base64')
      .toString('utf8')
      .split(':');
    if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
    if (decodeURIComponent(id) !== clientId || decodeURIComponent(pass) !== secret) return json(res, 401, { error: 'invalid_client' });
    const accessToken = `id-${state.mints.length + 1}-${Math.random().toString(36).slice(2)}`;
    const scope = form.get('scope');
    live.set(accessToken, { audience: form.get('audience'), scopes: (scope ?? '').split(' ').filter(Boolean) });
    state.mints.push({ audience: form.get('audience'), scope });
    json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600 });
  };

  /** The grants or settings answer, as the current mode gives it. */
  const peer = (req: IncomingMessage, res: ServerResponse, scope: string, answer: () => [number, unknown]) => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = bearer === undefined ? undefined : live.get(bearer);
    if (grant?.audience !== 'identity') return json(res, 401, { error: 'invalid_token' });
    if (!grant.scopes.includes(scope)) return json(res, 403, { error: 'insufficient_scope' });
    const send = () => {
      if (mode === 'error') return json(res, 500, { detail: 'identity is having a bad day' });
      if (mode === 'malformed') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"user": "trunc');
      const [status, body] = answer();
      json(res, status, body);
    };
    if (mode !== 'slow') return send();
    const timer = setTimeout(() => {
      pending.delete(timer);
      send();
    }, state.slowMs);
    pending.add(timer);
  };

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      if (url.pathname === TOKEN_PATH && req.method === 'POST') return token(req, Buffer.concat(chunks).toString('utf8'), res);
      if (req.method === 'GET' && url.pathname === GRANTS_PATH) {
        const user = url.searchParams.get('user');
        state.requests.push({ path: url.pathname, user });
        return peer(req, res, 'identity:grants:read', () => {
          const known = user === null ? undefined : users.get(user);
          return known === undefined ? [404, { detail: 'no such user' }] : [200, { user, ...known }];
        });
      }
      if (req.method === 'GET' && url.pathname === APPROVAL_SETTINGS_PATH) {
        state.requests.push({ path: url.pathname, user: null });
        return peer(req, res, 'identity:approval-settings:read', () => [200, state.settings]);
      }
      json(res, 404, { detail: 'no such route' });
    });
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;

  return Object.assign(state, {
    origin: `https://127.0.0.1:${port}`,
    caFile: certFile,
    tokenPath: TOKEN_PATH,
    mode: () => mode,
    async setMode(next: IdentityMode) {
      if (next === mode) return;
      if (next === 'refused') await stop();
      else if (mode === 'refused') await listen(port);
      mode = next;
    },
    setUser: (subject: string, user: IdentityUser) => void users.set(subject, user),
    close: async () => {
      if (mode !== 'refused') await stop();
    },
  });
}
