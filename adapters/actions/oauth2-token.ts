/**
 * OAuth 2.0 client-credentials tokens for `http` connections with
 * `auth: oauth2_client_credentials` (SPEC.md "Connection", "Generic actions" http.request,
 * "Defaults" oauth2 token cache). The grant itself is oauth4webapi's (RFC 6749 section
 * 4.4); this module adds the cache and the error wording.
 *
 * - A token is cached per connection, credential and scope until 60 s before its
 *   `expires_in`; a token without `expires_in`, or with 60 s or less, is not cached.
 * - Concurrent callers needing the same token share one request to `token_url`.
 * - A token refused by the API (401) is dropped with `invalidate`, and the caller asks
 *   for a fresh one once.
 * - Errors name the token host, the HTTP status and the OAuth `error` code: never the
 *   client secret, the token or the response body.
 */
import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { ActionFailure, type ResolvedConnection } from './action.ts';
import { readCappedText, refusalIn, retryableStatus, type OutboundFetch } from './outbound-http.ts';
import { systemClock } from '../shared/clock.ts';

/** Seconds before `expires_in` runs out at which a cached token is no longer used. */
export const TOKEN_EXPIRY_MARGIN_S = 60;

/** The oauth2 settings of an `http` connection's config (checked by config-rules.ts). */
export type OAuth2Settings = { tokenUrl: string; clientId: string; scope: string | null; audience: string | null; clientAuth: 'basic' | 'post' };

export type TokenSource = {
  /** A bearer token for the connection: cached, or minted when none is usable or `fresh` is set. Throws ActionFailure 'oauth2_token_error'. */
  token: (action: string, connection: ResolvedConnection, signal: AbortSignal, fresh?: boolean) => Promise<MintedToken>;
  /** Drops `token` from the cache if it is still the cached one (the API refused it). */
  invalidate: (connection: Pick<ResolvedConnection, 'id'>, token: string) => void;
};

/** A token and what the token endpoint said of it; `expires_in` in seconds, null when not given. */
export type MintedToken = { access_token: string; expires_in: number | null; cached: boolean };

type Entry = { token: MintedToken; until: number };

/** Reads the oauth2 settings of `connection`; throws a final ActionFailure 'connection_invalid' when they are incomplete. */
export function oauth2Settings(action: string, connection: ResolvedConnection): OAuth2Settings {
  const { token_url: tokenUrl, client_id: clientId, scope, audience, client_auth: clientAuth } = connection.config;
  if (typeof tokenUrl !== 'string' || typeof clientId !== 'string') {
    throw new ActionFailure(
      'connection_invalid',
      `${action}: connection '${connection.name}' needs config.token_url and config.client_id for oauth2_client_credentials`,
      false,
    );
  }
  if (connection.secret === null) throw new ActionFailure('connection_invalid', `${action}: connection '${connection.name}' has no client secret`, false);
  const optional = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return { tokenUrl, clientId, scope: optional(scope), audience: optional(audience), clientAuth: clientAuth === 'post' ? 'post' : 'basic' };
}

/**
 * A token source sending token requests through `fetchImpl` (the guarded edge), with
 * `now` in epoch milliseconds. One per process: the cache lives in its memory.
 */
export function createTokenSource(fetchImpl: OutboundFetch, now: () => number = () => systemClock().getTime()): TokenSource {
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<MintedToken>>();

  const mint = async (action: string, connection: ResolvedConnection, settings: OAuth2Settings, key: string, signal: AbortSignal): Promise<MintedToken> => {
    const minted = await requestToken(action, fetchImpl, settings, connection.secret ?? '', signal);
    const lifetime = minted.expires_in;
    if (lifetime !== null && lifetime > TOKEN_EXPIRY_MARGIN_S) {
      cache.set(key, { token: { ...minted, cached: true }, until: now() + (lifetime - TOKEN_EXPIRY_MARGIN_S) * 1000 });
    } else {
      cache.delete(key);
    }
    return minted;
  };

  return {
    async token(action, connection, signal, fresh = false) {
      const settings = oauth2Settings(action, connection);
      const key = cacheKey(connection, settings);
      const cached = cache.get(key);
      if (!fresh && cached && cached.until > now()) return cached.token;
      const pending = inFlight.get(key);
      if (pending) return pending;
      const request = mint(action, connection, settings, key, signal).finally(() => inFlight.delete(key));
      inFlight.set(key, request);
      return request;
    },
    invalidate(connection, token) {
      for (const [key, entry] of cache) {
        if (key.startsWith(`${connection.id}:`) && entry.token.access_token === token) cache.delete(key);
      }
    },
  };
}

/** The secret enters the key only as a hash, so a rotated secret never reuses the old secret's token. */
function cacheKey(connection: ResolvedConnection, settings: OAuth2Settings): string {
  const credential = createHash('sha256')
    .update(`${settings.tokenUrl}\n${settings.clientId}\n${connection.secret ?? ''}\n${settings.clientAuth}`)
    .digest('base64url');
  return `${connection.id}:${credential}:${settings.audience ?? ''}:${settings.scope ?? ''}`;
}

async function requestToken(action: string, fetchImpl: OutboundFetch, settings: OAuth2Settings, secret: string, signal: AbortSignal): Promise<MintedToken> {
  const url = new URL(settings.tokenUrl);
  const server: oauth.AuthorizationServer = { issuer: url.origin, token_endpoint: url.href };
  const client: oauth.Client = { client_id: settings.clientId };
  const clientAuth = settings.clientAuth === 'post' ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
  const parameters = new URLSearchParams({
    ...(settings.scope === null ? {} : { scope: settings.scope }),
    ...(settings.audience === null ? {} : { audience: settings.audience }),
  });
  let response: Response;
  try {
    response = await oauth.clientCredentialsGrantRequest(server, client, clientAuth, parameters, {
      signal,
      [oauth.customFetch]: (target: string, init: RequestInit) => fetchImpl(target, { ...init, redirect: 'manual' }),
    });
  } catch (error) {
    const refusal = refusalIn(error);
    if (refusal) throw new ActionFailure('target_refused', `${action}: token request refused: ${refusal.message}`, false);
    const why = signal.aborted ? 'was aborted by the step deadline or cancellation' : 'failed to connect';
    throw new ActionFailure('oauth2_token_error', `${action}: token request to ${url.host} ${why}`, true, error);
  }
  // A 401 with a WWW-Authenticate challenge fails before oauth4webapi reads the body, where the OAuth error code is.
  const copy = response.clone();
  try {
    const result = await oauth.processClientCredentialsResponse(server, client, response);
    await copy.body?.cancel();
    return { access_token: result.access_token, expires_in: typeof result.expires_in === 'number' ? result.expires_in : null, cached: false };
  } catch (error) {
    throw tokenFailure(action, url.host, response.status, oauthErrorCode(error) ?? (await bodyErrorCode(copy, url, signal)));
  }
}

/** No `cause` is kept: oauth4webapi's errors carry the response, which is not ours to log. */
function tokenFailure(action: string, host: string, status: number, code: string | null): ActionFailure {
  const retryable = retryableStatus(status);
  if (code !== null)
    return new ActionFailure('oauth2_token_error', `${action}: token request to ${host} failed with status ${status}, OAuth error ${code}`, retryable);
  const reason = status >= 200 && status < 300 ? 'answered without a usable bearer token' : `failed with status ${status}`;
  return new ActionFailure('oauth2_token_error', `${action}: token request to ${host} ${reason}`, retryable);
}

/** RFC 6749 section 5.2 `error` from the body, or from a WWW-Authenticate challenge (RFC 6750); printable ASCII only. */
function oauthErrorCode(error: unknown): string | null {
  const code =
    error instanceof oauth.ResponseBodyError
      ? error.error
      : error instanceof oauth.WWWAuthenticateChallengeError
        ? error.cause.map((c) => c.parameters.error).find((e) => typeof e === 'string')
        : undefined;
  return code === undefined ? null : printable(code);
}

/** The `error` member of a JSON error body (read up to 16 KiB), or null. */
async function bodyErrorCode(response: Response, tokenUrl: URL, signal: AbortSignal): Promise<string | null> {
  try {
    const text = await readCappedText('oauth2', response, tokenUrl, signal, 16 * 1024);
    const error = (JSON.parse(text) as { error?: unknown }).error;
    return typeof error === 'string' ? printable(error) : null;
  } catch {
    return null;
  }
}

const printable = (code: string) => (/^[\x20-\x7E]{1,64}$/.test(code) ? code : 'unreadable');
