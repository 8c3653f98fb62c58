/**
 * Connection probes of the suite products (SPEC.md "Actions and connections"; the wire
 * contracts are docs/suite-contracts.md "Detector" and "Pipeline"), each the read its
 * adapter already makes:
 *
 * - detector: a fresh workload-exchange token for audience `detector`, scope
 *   `detector:alerts:read` (so a refused exchange client shows, not a cached token), then
 *   one page of the alerts list, `GET <base_url><alerts_path>?since=<now>&limit=1`,
 *   through the detector client.
 * - pipeline: `GET <base_url><deploy_requests_path>?limit=1` with the API key as bearer
 *   token, answered `{items: [...]}` (or a bare list).
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import type { OutboundFetch } from '../actions/outbound-http.ts';
import { pipelineEndpoint } from '../actions/pipeline.ts';
import { DETECTOR_AUDIENCE, DETECTOR_LIST_DEFAULTS, detectorPath, type DetectorClient } from '../detector/client.ts';
import type { ExchangeClient } from '../exchange/client.ts';
import { probeRead } from './probe-http.ts';

/** The one scope the detector probe asks the exchange for (declared in exchange/declared.ts). */
const ALERTS_READ = ['detector:alerts:read'] as const;

/** detector: a fresh exchange token, then the first alert since now. Failures are the exchange's and the detector client's. */
export async function probeDetector(
  exchange: ExchangeClient,
  detector: DetectorClient,
  connection: ResolvedConnection,
  now: number,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const action = 'detector connection test';
  const url = detector.urlOf(action, connection, detectorPath(connection, 'alerts_path', DETECTOR_LIST_DEFAULTS.alertsPath));
  await exchange.token(action, DETECTOR_AUDIENCE, ALERTS_READ, signal, true);
  await detector.listAlerts(action, connection, { since: new Date(now).toISOString(), limit: 1, cursor: null }, signal);
  return { host: url.host, alerts_path: url.pathname, exchange_token: 'minted', alerts_readable: true };
}

/** pipeline: one deploy request of the list, read with the API key. */
export async function probePipeline(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Record<string, unknown>> {
  const action = 'pipeline connection test';
  const { url, key } = pipelineEndpoint(action, { connection }, { limit: '1' });
  const { body } = await probeRead(action, outbound, url, { method: 'GET', headers: { authorization: `Bearer ${key}`, accept: 'application/json' } }, signal);
  const items = Array.isArray(body) ? body : (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) throw new ActionFailure('pipeline_bad_response', `${action}: ${url.host} answered no deploy request list`, false);
  return { host: url.host, deploy_requests_path: url.pathname, readable: true };
}
