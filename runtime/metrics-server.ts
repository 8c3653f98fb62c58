/**
 * The worker's private metrics port (SPEC.md "Metrics": port 9101, the same credential
 * as the API's `GET /metrics`): a bare node:http server answering `GET /metrics` with the
 * registry's Prometheus text exposition, and `GET /healthz` (ours, for container health
 * checks, no credential): 200 `{"status":"ok"}` while `alive()` holds, else 503
 * `worker_stalled`. Refusals use the API's error shape `{detail, code, params}`: 401
 * `unauthenticated`, 404 `not_found`, 500 `internal_error`, 503 `worker_stalled`.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { metricsAuthorized } from '../adapters/metrics/bearer.ts';
import { listenError } from './listen-error.ts';

export type MetricsServer = { url: string; close: () => Promise<void> };

/** Listens on `host`:`port` (0: a free port); resolves with the scrape URL, rejects when the port cannot be bound. */
export async function startMetricsServer(options: {
  registry: Registry;
  token: string | null;
  host: string;
  port: number;
  /** Whether the worker's loop polled recently enough to call it alive. */
  alive: () => boolean;
}): Promise<MetricsServer> {
  const refuse = (res: ServerResponse, status: number, code: string, detail: string, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ detail, code, params: {} }));
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && path === '/healthz') {
      if (!options.alive()) return refuse(res, 503, 'worker_stalled', 'the worker loop has not polled within SVC_WORKER_LEASE_MS');
      return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    }
    if (req.method !== 'GET' || path !== '/metrics') return refuse(res, 404, 'not_found', 'only GET /metrics and GET /healthz are served here');
    if (!metricsAuthorized(req.headers.authorization, options.token))
      return refuse(res, 401, 'unauthenticated', 'metrics token required', { 'www-authenticate': 'Bearer' });
    options.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
      () => refuse(res, 500, 'internal_error', 'internal error'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, { host: options.host, port: options.port, variable: 'SVC_WORKER_METRICS_PORT' })));
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
