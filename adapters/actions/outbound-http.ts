/**
 * Outbound HTTP shared by the generic actions (SPEC.md "Generic actions"): URLs that
 * cannot leave the connection's origin, requests that never follow redirects, capped
 * response bodies, and failures sorted into retryable and final ActionFailures.
 * Messages name the action, host and status only: never a header, secret or body.
 */
import { OutboundRefusedError } from '../outbound/address-policy.ts';
import type { OutboundFetch } from '../outbound/guarded-fetch.ts';

export type { OutboundFetch };
import { ActionFailure, type ActionContext, type ResolvedConnection } from './action.ts';

/** Largest response body an action reads: 1 MiB. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** The value previews show instead of a credential. */
export const REDACTED = '[redacted]';

/** A non-blank string `config[key]` of a connection's config, trimmed, else null. */
export const configText = (config: Record<string, unknown>, key: string): string | null =>
  typeof config[key] === 'string' && (config[key] as string).trim() !== '' ? (config[key] as string).trim() : null;

/** An HTTP Basic `authorization` header value for `user` and `secret` (RFC 7617). */
export const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

/**
 * The step's connection, which must be of `kind` and have a base URL.
 * Throws a final ActionFailure: 'connection_missing' (none bound) or 'connection_invalid'.
 */
export function requireConnection(action: string, context: Pick<ActionContext, 'connection'>, kind: string): ResolvedConnection & { base_url: string } {
  const connection = context.connection;
  if (!connection) throw new ActionFailure('connection_missing', `${action} needs a ${kind} connection`, false);
  if (connection.kind !== kind) {
    throw new ActionFailure('connection_invalid', `${action} needs a ${kind} connection, '${connection.name}' is ${connection.kind}`, false);
  }
  if (!connection.base_url) throw new ActionFailure('connection_invalid', `connection '${connection.name}' has no base_url`, false);
  return { ...connection, base_url: connection.base_url };
}

/**
 * Appends `path` (and `query`) to `baseUrl`: 'https://h/api' + 'items' gives 'https://h/api/items'.
 * A path that is itself a URL ('http://...', '//host/...') is refused ('path_refused', final)
 * so a rendered template cannot send the call, and its credential, to another host.
 */
export function joinUrl(action: string, baseUrl: string, path?: string, query?: Record<string, string | number | boolean>): URL {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new ActionFailure('connection_invalid', `${action}: the connection base_url is not a URL`, false);
  }
  if (path !== undefined && (/^[a-z][a-z0-9+.-]*:/i.test(path) || /^[\\/]{2}/.test(path))) {
    throw new ActionFailure('path_refused', `${action}: path must be relative to the connection base_url, not a URL`, false);
  }
  const url = path ? new URL(`${base.origin}${base.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`) : new URL(base);
  if (url.origin !== base.origin) {
    throw new ActionFailure('path_refused', `${action}: path must stay on the connection's host`, false);
  }
  for (const [key, value] of Object.entries(query ?? {})) url.searchParams.append(key, String(value));
  return url;
}

/**
 * Sends one request with `context.signal`, never following redirects (a redirect would
 * carry the credential elsewhere; a 3xx comes back as the answer). Throws a final
 * ActionFailure 'target_refused' when the outbound edge refused the target (SPEC.md
 * "Authentication"), else a retryable one: 'timeout' when the signal aborted, else
 * 'network_error'.
 */
export async function sendOutbound(action: string, fetchImpl: OutboundFetch, url: URL, init: RequestInit, signal: AbortSignal): Promise<Response> {
  try {
    return await fetchImpl(url.toString(), { ...init, redirect: 'manual', signal });
  } catch (error) {
    throw transportFailure(action, url, signal, error);
  }
}

/**
 * Reads the body as UTF-8 text, at most `maxBytes` bytes.
 * Throws a final ActionFailure 'response_too_large' beyond it, or a transport failure.
 */
export async function readCappedText(action: string, response: Response, url: URL, signal: AbortSignal, maxBytes = MAX_RESPONSE_BYTES): Promise<string> {
  const tooLarge = () => new ActionFailure('response_too_large', `${action}: response from ${url.host} exceeds ${maxBytes} bytes`, false);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ActionFailure) throw error;
    throw transportFailure(action, url, signal, error);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether another attempt after this HTTP status could succeed: 5xx and 429 only. */
export const retryableStatus = (status: number): boolean => status >= 500 || status === 429;

/**
 * A non-success status as an ActionFailure 'http_status': retryable for 5xx and 429 only.
 * `said` is the peer's own explanation (vendorMessage), appended when there is one.
 */
export function statusFailure(action: string, url: URL, status: number, said: string | null = null): ActionFailure {
  const retryable = retryableStatus(status);
  return new ActionFailure('http_status', `${action}: ${url.host} answered HTTP ${status}${said === null ? '' : `: ${said}`}`, retryable);
}

/**
 * A vendor's own explanation in a JSON error body, capped at 300 characters, or null: the
 * shapes the vendor APIs we call use, `message` (Events API, Alert API), `errorMessages`
 * and `errors` as a list or a field map (Events API, Jira), `error.message` (ServiceNow).
 */
export function vendorMessage(text: string): string | null {
  let body: { message?: unknown; errorMessages?: unknown; errors?: unknown; error?: { message?: unknown } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object') return null;
  const strings = (list: unknown) => (Array.isArray(list) ? list.filter((m): m is string => typeof m === 'string') : []);
  const parts = [
    ...(typeof body.message === 'string' ? [body.message] : []),
    ...strings(body.errorMessages),
    ...(Array.isArray(body.errors)
      ? strings(body.errors)
      : body.errors && typeof body.errors === 'object'
        ? Object.entries(body.errors).map(([k, m]) => `${k}: ${String(m)}`)
        : []),
    ...(typeof body.error?.message === 'string' ? [body.error.message] : []),
  ];
  return parts.length === 0 ? null : parts.join('; ').slice(0, 300);
}

function transportFailure(action: string, url: URL, signal: AbortSignal, error: unknown): ActionFailure {
  const refusal = refusalIn(error);
  if (refusal) return new ActionFailure('target_refused', `${action}: request refused: ${refusal.message}`, false, error);
  if (signal.aborted) {
    return new ActionFailure('timeout', `${action}: request to ${url.host} aborted by the step deadline or cancellation`, true, error);
  }
  return new ActionFailure('network_error', `${action}: request to ${url.host} failed`, true, error);
}

/** The edge's refusal, thrown as is or as the `cause` of fetch's TypeError; null for any other error. */
export function refusalIn(error: unknown): OutboundRefusedError | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof OutboundRefusedError) return e;
  }
  return null;
}
