/**
 * `http.request`: one call to the connection's HTTP API with header auth from the
 * connection config (SPEC.md "Generic actions" and "Connection").
 */
import * as v from 'valibot';
import { jsonRecord } from '../shared/shapes.ts';
import { ActionFailure, type ActionContext, type ActionDefinition, type ResolvedConnection } from './action.ts';
import { createTokenSource, oauth2Settings, type TokenSource } from './oauth2-token.ts';
import { joinUrl, readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from './outbound-http.ts';

const NAME = 'http.request';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** RFC 9110 token: the characters a header field name may use (also config-rules.ts `auth_header`). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Field value characters fetch can send (RFC 9110 section 5.5): no CR, LF, NUL, nothing beyond Latin-1.
const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;

export type HttpRequestInput = {
  method: string;
  path?: string;
  json_body?: unknown;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
};
export type HttpRequestOutput = { status: number; headers: Record<string, string>; body: unknown };

const input = v.pipe(
  v.object({
    method: v.pipe(v.string(), v.toUpperCase(), v.picklist(METHODS)),
    path: v.optional(v.string()),
    json_body: v.optional(v.unknown()),
    query: v.optional(jsonRecord(v.union([v.string(), v.number(), v.boolean()]))),
    headers: v.optional(jsonRecord(v.pipe(v.string(), v.regex(HEADER_VALUE)), v.pipe(v.string(), v.regex(HEADER_NAME)))),
  }),
  v.check((step) => step.json_body === undefined || (step.method !== 'GET' && step.method !== 'HEAD'), 'json_body is not allowed with GET or HEAD'),
);

/**
 * Builds the action around `fetchImpl` (the guarded edge) and `tokens` (default: a token
 * source of its own over `fetchImpl`).
 *
 * Auth by the connection's config (SPEC.md "Connection"):
 * - `auth: header` (default): header `auth_header` (default Authorization) =
 *   `auth_prefix` + secret, where an absent prefix means 'Bearer ' on Authorization and
 *   '' on any other header; a connection without a secret sends no auth header.
 * - `auth: oauth2_client_credentials`: `Authorization: Bearer <token>` from `tokens`
 *   (cached until 60 s before expiry); after a 401 the token is dropped and the request
 *   sent once more with a freshly minted one. Previews never mint.
 * Step headers may not set the auth header, Host or Content-Length. The body is JSON when
 * the response says so, else text, at most 1 MiB ('response_too_large'). Status >= 400 is
 * an ActionFailure 'http_status', retryable for 5xx and 429; an aborted signal is
 * 'timeout' (retryable); a failed token request 'oauth2_token_error'.
 */
export function createHttpRequest(
  fetchImpl: OutboundFetch,
  tokens: TokenSource = createTokenSource(fetchImpl),
): ActionDefinition<HttpRequestInput, HttpRequestOutput> {
  return {
    name: NAME,
    connectionKind: 'http',
    risk: 'arbitrary',
    input,
    output: v.object({ status: v.pipe(v.number(), v.integer()), headers: v.record(v.string(), v.string()), body: v.unknown() }),
    async execute(step, context) {
      const request = buildRequest(step, context);
      const send = (authorization: string | null) =>
        sendOutbound(
          NAME,
          fetchImpl,
          request.url,
          {
            method: request.method,
            headers: authorization === null ? request.headers : { ...request.headers, [request.auth.header]: authorization },
            ...(request.body === undefined ? {} : { body: request.body }),
          },
          context.signal,
        );
      let response: Response;
      if (request.auth.kind === 'oauth2') {
        const connection = request.connection;
        const first = await tokens.token(NAME, connection, context.signal);
        response = await send(`Bearer ${first.access_token}`);
        if (response.status === 401) {
          await response.body?.cancel();
          tokens.invalidate(connection, first.access_token);
          const fresh = await tokens.token(NAME, connection, context.signal, true);
          response = await send(`Bearer ${fresh.access_token}`);
        }
      } else {
        response = await send(request.auth.value);
      }
      const text = await readCappedText(NAME, response, request.url, context.signal);
      if (response.status >= 400) throw statusFailure(NAME, request.url, response.status);
      return { status: response.status, headers: Object.fromEntries(response.headers), body: parseBody(response, text) };
    },
    async preview(step, context) {
      const request = buildRequest(step, context);
      const headers = { ...request.headers };
      if (request.auth.kind === 'oauth2' || request.auth.value !== null) headers[request.auth.header] = REDACTED;
      return { method: request.method, url: request.url.toString(), headers, json_body: step.json_body ?? null };
    },
  };
}

function buildRequest(step: HttpRequestInput, context: ActionContext) {
  const connection = requireConnection(NAME, context, 'http');
  const auth = httpAuth(connection);
  const reserved = new Set(['host', 'content-length', auth.header.toLowerCase()]);
  const headers: Record<string, string> = {};
  if (step.json_body !== undefined) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(step.headers ?? {})) {
    if (reserved.has(name.toLowerCase())) {
      throw new ActionFailure('header_refused', `${NAME}: the step may not set the ${name} header`, false);
    }
    headers[name.toLowerCase()] = value;
  }
  return {
    connection,
    method: step.method.toUpperCase(),
    url: joinUrl(NAME, connection.base_url, step.path, step.query),
    headers,
    auth,
    body: step.json_body === undefined ? undefined : JSON.stringify(step.json_body),
  };
}

/** How an `http` connection authenticates: oauth2 bearer tokens, or one header carrying the secret (value null: no secret). */
export type HttpAuth = { kind: 'oauth2'; header: 'Authorization' } | { kind: 'header'; header: string; value: string | null };

/** The auth of `connection` per its config (see createHttpRequest); throws a final ActionFailure 'connection_invalid' naming `action`. */
export function httpAuth(connection: ResolvedConnection, action: string = NAME): HttpAuth {
  const { name: connectionName, config, secret } = connection;
  const mode = config.auth ?? 'header';
  if (mode === 'oauth2_client_credentials') {
    oauth2Settings(action, connection);
    return { kind: 'oauth2', header: 'Authorization' };
  }
  if (mode !== 'header') {
    throw new ActionFailure('connection_invalid', `${action}: connection '${connectionName}' has an unknown auth mode`, false);
  }
  const header = typeof config.auth_header === 'string' ? config.auth_header : 'Authorization';
  if (!HEADER_NAME.test(header)) throw new ActionFailure('connection_invalid', `${action}: connection '${connectionName}' has an invalid auth_header`, false);
  if (secret === null) return { kind: 'header', header, value: null };
  const prefix = typeof config.auth_prefix === 'string' ? config.auth_prefix : header.toLowerCase() === 'authorization' ? 'Bearer ' : '';
  const value = `${prefix}${secret}`;
  // Checked here because fetch's own error would quote the offending value: the secret.
  if (!HEADER_VALUE.test(value))
    throw new ActionFailure('connection_invalid', `${action}: connection '${connectionName}' has a secret that cannot be sent in a header`, false);
  return { kind: 'header', header, value };
}

function parseBody(response: Response, text: string): unknown {
  if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return text;
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A server that labels non-JSON as JSON: keep what it sent rather than fail the step.
    return text;
  }
}
