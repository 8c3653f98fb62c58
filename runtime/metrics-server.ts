/**
 * The worker's private metrics port (SPEC.md "Metrics": port 9101, the same credential
 * as the API's `GET /metrics`): a bare node:http server answering `GET /metrics` with the
 * registry's Prometheus text exposition and 404 to everything else.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { metricsAuthorized } from '../adapters/metrics/bearer.ts';

export type MetricsServer = { url: string; close: () => Promise<void> };

/** Listens on `host`:`port` (0: a free port); resolves with the scrape URL, rejects when the port cannot be bound. */
export async function startMetricsServer(options: { registry: Registry; token: string | null; host: string; port: number }): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (!metricsAuthorized(req.headers.authorization, options.token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('metrics token required\n');
      return;
    }
    options.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
