/**
 * The API process's Prometheus series (SPEC.md `GET /metrics`), on a registry of its own
 * (several services can share one Node process in tests): Node's default process
 * metrics, plus per-route request counts and latencies and the projector's position.
 *
 * Series (prefix `svc_`):
 * - `svc_http_requests_total{method, route, status}`: answered requests; `route` is the
 *   pattern of the route that answered (`/cases/:id`), never a concrete path, so ids do not
 *   multiply series; `unmatched` when a middleware answered first (unknown path, refused token).
 * - `svc_http_request_duration_seconds{method, route}`: histogram of handling time.
 * - `svc_projector_position`: the last global event position projected by this process.
 */
import type { MiddlewareHandler } from 'hono';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type ApiMetrics = {
  registry: Registry;
  /** Counts and times every request; mount first. */
  middleware: MiddlewareHandler;
};

/** A fresh registry with the series above; `projectorPosition` is read at each scrape. */
export function createApiMetrics(projectorPosition: () => number): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered, by method, matched route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request handling time, seconds',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'svc_projector_position',
    help: 'Last global event position projected by this process',
    registers: [registry],
    collect() {
      this.set(projectorPosition());
    },
  });
  return {
    registry,
    middleware: async (c, next) => {
      const started = performance.now();
      try {
        await next();
      } finally {
        // After next(), routePath names the handler that answered. A wildcard means a
        // middleware answered before any route did (an unknown path, a refused token).
        const route = c.req.routePath.endsWith('*') ? 'unmatched' : c.req.routePath;
        requests.inc({ method: c.req.method, route, status: String(c.res.status) });
        duration.observe({ method: c.req.method, route }, (performance.now() - started) / 1000);
      }
    },
  };
}
