/**
 * A real OAuth 2.0 authorization server and protected API over HTTPS on 127.0.0.1
 * (self-signed, tls-cert.ts), for the oauth2 client-credentials paths of `http`
 * connections. `POST /oauth/token` runs the client-credentials grant (RFC 6749 section
 * 4.4) with client_secret_basic or client_secret_post and counts mints, recording the
 * `scope` and `audience` asked for; it also stands in for the suite's workload exchange
 * (docs/suite-contracts.md), whose tokens another test peer checks with `grantOf`. Every
 * other path is the API, which wants a live bearer token and records what it received.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from './tls-cert.ts';

export type TokenRequest = { clientAuth: 'basic' | 'post'; clientId: string; scope: string | null; audience: string | null };
export type ApiRequest = { method: string; path: string; authorization: string | null; body: string };

export type OAuth2Server = {
  origin: string;
  tokenUrl: string;
  /** PEM file of the server's certificate, for SVC_OUTBOUND_CA_FILE. */
  caFile: string;
  ca: string;
  /** Every successful mint, in order. */
  mints: TokenRequest[];
  /** How many token requests arrived, refused ones included; a test may reset it. */
  tokenRequests: number;
  api: ApiRequest[];
  /** Seconds sent as `expires_in`; null leaves it out. */
  expiresIn: number | null;
  /** When set, the token endpoint answers this instead of minting. */
  tokenFailure: { status: number; body: Record<string, unknown> } | null;
  /** Makes every token minted so far invalid at the API (it answers 401). */
  revokeAll: () => void;
  /** What a live token was minted for; null for an unknown or revoked one. */
  grantOf: (token: string) => { audience: string | null; scope: string | null } | null;
  close: () => Promise<void>;
};

/** Starts the server for client `clientId` with secret `secret`. */
export async function startOAuth2Server(clientId: string, secret: string): Promise<OAuth2Server> {
  const { key, cert, certFile } = selfSignedCertificate();
  const live = new Map<string, { audience: string | null; scope: string | null }>();
  const state: Omit<OAuth2Server, 'origin' | 'tokenUrl' | 'close'> = {
    caFile: certFile,
    ca: cert,
    mints: [],
    tokenRequests: 0,
    api: [],
    expiresIn: 3600,
    tokenFailure: null,
    revokeAll: () => live.clear(),
    grantOf: (token) => live.get(token) ?? null,
  };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));

  const token = (req: IncomingMessage, body: string, res: ServerResponse) => {
    state.tokenRequests++;
    if (state.tokenFailure) return json(res, state.tokenFailure.status, state.tokenFailure.body);
    const form = new URLSearchParams(body);
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    let presented: { id: string; secret: string; clientAuth: 'basic' | 'post' } | null = null;
    if (basic?.[1]) {
      // RFC 6749 section 2.3.1: id and secret are form-urlencoded before the Basic encoding.
      const [id = '', pass = ''] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      presented = { id: decodeURIComponent(id.replace(/\+/g, ' ')), secret: decodeURIComponent(pass.replace(/\+/g, ' ')), clientAuth: 'basic' };
    } else if (form.has('client_secret')) {
      presented = { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '', clientAuth: 'post' };
    }
    if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
    if (!presented || presented.id !== clientId || presented.secret !== secret) {
      return json(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' }, { 'www-authenticate': 'Basic realm="token"' });
    }
    const accessToken = `tok-${state.mints.length + 1}-${Math.random().toString(36).slice(2)}`;
    const grant = { audience: form.get('audience'), scope: form.get('scope') };
    live.set(accessToken, grant);
    state.mints.push({ clientAuth: presented.clientAuth, clientId: presented.id, ...grant });
    json(res, 200, { access_token: accessToken, token_type: 'Bearer', ...(state.expiresIn === null ? {} : { expires_in: state.expiresIn }) });
  };

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      if (path === '/oauth/token' && req.method === 'POST') return token(req, body, res);
      const authorization = req.headers.authorization ?? null;
      state.api.push({ method: req.method ?? '', path, authorization, body });
      const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
      if (!bearer || !live.has(bearer)) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
      json(res, 200, { ok: true, path });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    origin,
    tokenUrl: `${origin}/oauth/token`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
