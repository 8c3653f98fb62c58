/**
 * HTTP client of the suite's detection product (SPEC.md "Actions and connections": the
 * detector is called with short-lived exchange tokens, never a stored secret). Its wire
 * contract is not shown in SPEC.md; the one assumed here is written down in
 * docs/suite-contracts.md "Detector" and held by tests/support/detector-server.ts.
 *
 * `listAlerts` reads one page of the external alerts list:
 * `GET <base_url><alerts_path>?since=<RFC 3339>&limit=<n>[&cursor=<c>]` with
 * `Authorization: Bearer <exchange token for audience detector, scope detector:alerts:read>`,
 * answered `{items: [native alert], next_cursor: string | null}`.
 *
 * A 401 drops the token and the request is sent once more with a fresh one. Failures are
 * ActionFailures: `detector_error` (non-2xx, with the detector's own `detail`; retryable
 * on 5xx and 429), `detector_bad_response` (final), and the transport and exchange
 * failures of outbound-http.ts and exchange/client.ts.
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { joinUrl, readCappedText, requireConnection, sendOutbound, type OutboundFetch } from '../actions/outbound-http.ts';
import type { ExchangeClient } from '../exchange/client.ts';

/** The audience of detector tokens at the workload exchange. */
export const DETECTOR_AUDIENCE = 'detector';

/** Connection config defaults (config-rules.ts fills them in on create). */
export const DETECTOR_LIST_DEFAULTS = { alertsPath: '/api/v1/alerts', pageSize: 100, maxPageSize: 500 } as const;

/** Largest page body read from the detector: 16 MiB (500 alerts with their matched logs). */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;

/** Longest `detail` of the detector's error body repeated in our message. */
const MAX_DETAIL_CHARS = 500;

export type AlertPage = { items: unknown[]; next_cursor: string | null };

export type AlertListQuery = { since: string; limit: number; cursor: string | null };

export type DetectorClient = {
  /** One page of the detector's external alerts list, oldest first as the detector orders them. */
  listAlerts: (action: string, connection: ResolvedConnection, query: AlertListQuery, signal: AbortSignal) => Promise<AlertPage>;
};

export function createDetectorClient(outbound: OutboundFetch, exchange: ExchangeClient): DetectorClient {
  /** GETs `url` with a detector token for `scopes`, retrying once with a fresh token after a 401. */
  const get = async (action: string, url: URL, scopes: readonly string[], signal: AbortSignal): Promise<Response> => {
    for (let fresh = false; ; fresh = true) {
      const token = await exchange.token(action, DETECTOR_AUDIENCE, scopes, signal, fresh);
      const response = await sendOutbound(action, outbound, url, { method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, signal);
      if (response.status !== 401 || fresh) return response;
      await response.body?.cancel();
      exchange.invalidate(DETECTOR_AUDIENCE, token);
    }
  };

  return {
    async listAlerts(action, connection, query, signal) {
      const detector = requireConnection(action, { connection }, 'detector');
      const path = typeof detector.config.alerts_path === 'string' ? detector.config.alerts_path : DETECTOR_LIST_DEFAULTS.alertsPath;
      const url = joinUrl(action, detector.base_url, path, { since: query.since, limit: query.limit, ...(query.cursor === null ? {} : { cursor: query.cursor }) });
      const response = await get(action, url, ['detector:alerts:read'], signal);
      const text = await readCappedText(action, response, url, signal, MAX_PAGE_BYTES);
      if (!response.ok) throw detectorError(action, url, response.status, text);
      return parsePage(action, url, text);
    },
  };
}

/** A non-2xx answer, carrying the detector's `detail` when its body has one. */
function detectorError(action: string, url: URL, status: number, body: string): ActionFailure {
  const detail = detailOf(body);
  const retryable = status >= 500 || status === 429;
  return new ActionFailure('detector_error', `${action}: detector ${url.host} answered HTTP ${status}${detail === null ? '' : `: ${detail}`}`, retryable);
}

function detailOf(body: string): string | null {
  try {
    const detail = (JSON.parse(body) as { detail?: unknown }).detail;
    if (typeof detail !== 'string' || detail.trim() === '') return null;
    const oneLine = detail.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
    return oneLine.length > MAX_DETAIL_CHARS ? `${oneLine.slice(0, MAX_DETAIL_CHARS)}…` : oneLine;
  } catch {
    return null;
  }
}

function parsePage(action: string, url: URL, text: string): AlertPage {
  const bad = (why: string) => new ActionFailure('detector_bad_response', `${action}: detector ${url.host} answered an alerts page that ${why}`, false);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw bad('is not JSON');
  }
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { items?: unknown }).items)) throw bad('has no items array');
  const { items, next_cursor: next } = body as { items: unknown[]; next_cursor?: unknown };
  if (next !== undefined && next !== null && (typeof next !== 'string' || next === '')) throw bad('has a next_cursor that is not a non-empty string');
  return { items, next_cursor: typeof next === 'string' ? next : null };
}
