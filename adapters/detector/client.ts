/**
 * HTTP client of the suite's detection product (SPEC.md "Actions and connections": the
 * detector is called with short-lived exchange tokens, never a stored secret). Its wire
 * contract is not shown in SPEC.md; the one assumed here is written down in
 * docs/suite-contracts.md "Detector" and held by tests/support/detector-server.ts.
 *
 * `listAlerts` reads one page of the external alerts list:
 * `GET <base_url><alerts_path>?since=<RFC 3339>&limit=<n>[&cursor=<c>]` with
 * `Authorization: Bearer <exchange token for audience detector, scope detector:alerts:read>`,
 * answered `{items: [native alert], next_cursor: string | null}`. `request` is any other
 * call (the `detector.*` actions, adapters/actions/detector.ts).
 *
 * A 401 drops the token and the request is sent once more with a fresh one
 * (exchange/send.ts). Failures are
 * ActionFailures: `detector_error` (non-2xx, with the detector's own `detail`; retryable
 * on 5xx and 429), `detector_bad_response` (final), and the transport and exchange
 * failures of outbound-http.ts and exchange/client.ts.
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { joinUrl, readCappedText, requireConnection, retryableStatus, type OutboundFetch } from '../actions/outbound-http.ts';
import type { ExchangeClient } from '../exchange/client.ts';
import { sendWithExchangeToken } from '../exchange/send.ts';

/** The audience of detector tokens at the workload exchange. */
export const DETECTOR_AUDIENCE = 'detector';

/** Connection config defaults (config-rules.ts fills them in on create). */
export const DETECTOR_LIST_DEFAULTS = { alertsPath: '/api/v1/alerts', rulesPath: '/api/v1/rules', pageSize: 100, maxPageSize: 500 } as const;

/** Largest body read from the detector: 16 MiB (a page of 500 alerts with their matched logs). */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;

/** Longest `detail` of the detector's error body repeated in our message. */
const MAX_DETAIL_CHARS = 500;

export type AlertPage = { items: unknown[]; next_cursor: string | null };

export type AlertListQuery = { since: string; limit: number; cursor: string | null };

/** One call: `path` below the connection's `base_url`, a JSON `body` for POST, and the scopes its token needs. */
export type DetectorRequest = {
  method: 'GET' | 'POST';
  path: string;
  scopes: readonly string[];
  query?: Record<string, string | number>;
  body?: unknown;
  /** Sent as `Idempotency-Key`, so a retried step changes the detector once. */
  idempotencyKey?: string;
};

export type DetectorClient = {
  /** One page of the detector's external alerts list, oldest first as the detector orders them. */
  listAlerts: (action: string, connection: ResolvedConnection, query: AlertListQuery, signal: AbortSignal) => Promise<AlertPage>;
  /** Sends `request` and answers the 2xx status and JSON body (null for an empty one); see the module comment for failures. */
  request: (action: string, connection: ResolvedConnection, request: DetectorRequest, signal: AbortSignal) => Promise<{ status: number; body: unknown }>;
  /** The URL `request` would call, for previews: no token is minted. */
  urlOf: (action: string, connection: ResolvedConnection, path: string) => URL;
};

/** `config.<key>` of a detector connection when it is a path, else `fallback`. */
export const detectorPath = (connection: ResolvedConnection, key: 'alerts_path' | 'rules_path', fallback: string) =>
  typeof connection.config[key] === 'string' ? (connection.config[key] as string) : fallback;

/** A client sending through `outbound` (the guarded edge) with tokens from `exchange` for audience `detector`. */
export function createDetectorClient(outbound: OutboundFetch, exchange: ExchangeClient): DetectorClient {
  const urlOf = (action: string, connection: ResolvedConnection, path: string, query?: Record<string, string | number>) =>
    joinUrl(action, requireConnection(action, { connection }, 'detector').base_url, path, query);

  const request = async (action: string, connection: ResolvedConnection, call: DetectorRequest, signal: AbortSignal) => {
    const url = urlOf(action, connection, call.path, call.query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(call.idempotencyKey === undefined ? {} : { 'idempotency-key': call.idempotencyKey }),
    };
    const init = { method: call.method, headers, ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }) };
    const response = await sendWithExchangeToken(action, exchange, outbound, { audience: DETECTOR_AUDIENCE, scopes: call.scopes, url, init }, signal);
    const text = await readCappedText(action, response, url, signal, MAX_PAGE_BYTES);
    if (!response.ok) throw detectorError(action, url, response.status, text);
    if (text.trim() === '') return { status: response.status, body: null };
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      throw new ActionFailure('detector_bad_response', `${action}: detector ${url.host} answered HTTP ${response.status} with a body that is not JSON`, false);
    }
  };

  return {
    request,
    urlOf: (action, connection, path) => urlOf(action, connection, path),
    async listAlerts(action, connection, query, signal) {
      const path = detectorPath(connection, 'alerts_path', DETECTOR_LIST_DEFAULTS.alertsPath);
      const { body } = await request(
        action,
        connection,
        {
          method: 'GET',
          path,
          scopes: ['detector:alerts:read'],
          query: { since: query.since, limit: query.limit, ...(query.cursor === null ? {} : { cursor: query.cursor }) },
        },
        signal,
      );
      return parsePage(action, connection, body);
    },
  };
}

/** A non-2xx answer, carrying the detector's `detail` when its body has one. */
function detectorError(action: string, url: URL, status: number, body: string): ActionFailure {
  const detail = detailOf(body);
  const retryable = retryableStatus(status);
  return new ActionFailure('detector_error', `${action}: detector ${url.host} answered HTTP ${status}${detail === null ? '' : `: ${detail}`}`, retryable);
}

function detailOf(body: string): string | null {
  try {
    const detail = (JSON.parse(body) as { detail?: unknown }).detail;
    if (typeof detail !== 'string' || detail.trim() === '') return null;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips.
    const oneLine = detail.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
    return oneLine.length > MAX_DETAIL_CHARS ? `${oneLine.slice(0, MAX_DETAIL_CHARS)}…` : oneLine;
  } catch {
    return null;
  }
}

function parsePage(action: string, connection: ResolvedConnection, body: unknown): AlertPage {
  const host = connection.base_url ? new URL(connection.base_url).host : connection.name;
  const bad = (why: string) => new ActionFailure('detector_bad_response', `${action}: detector ${host} answered an alerts page that ${why}`, false);
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { items?: unknown }).items)) throw bad('has no items array');
  const { items, next_cursor: next } = body as { items: unknown[]; next_cursor?: unknown };
  if (next !== undefined && next !== null && (typeof next !== 'string' || next === '')) throw bad('has a next_cursor that is not a non-empty string');
  return { items, next_cursor: typeof next === 'string' ? next : null };
}
