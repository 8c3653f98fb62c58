/**
 * `GET /metrics` (SPEC.md "Metrics, audit, retention, diagnostics"): the API process's
 * Prometheus text exposition (adapters/metrics/api-metrics.ts). Outside caller-token
 * authentication: a scraper sends `Authorization: Bearer <METRICS_TOKEN>` when that is
 * set, and nothing when it is not.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { DomainError } from '../../domain/shared/errors.ts';
import { metricsAuthorized } from '../metrics/bearer.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';

/** What the exposition route reads of the service (adapters/http/deps.ts). */
export type MetricsExpositionRouteDeps = Pick<HttpDeps, 'metrics'>;

/** `GET /metrics` as Prometheus text (`text/plain; version=0.0.4`); 401 `unauthenticated` without the configured token. */
export function metricsExpositionRoute(deps: MetricsExpositionRouteDeps) {
  const { api, token } = deps.metrics;
  return new Hono<AppEnv>().get(
    '/metrics',
    describeRoute({
      summary: 'Prometheus text exposition of the API process (bearer METRICS_TOKEN when set)',
      tags: ['metrics'],
      security: [{ metricsToken: [] }, {}],
      responses: { 200: { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
    }),
    async (c) => {
      if (!metricsAuthorized(c.req.header('authorization'), token)) {
        c.header('www-authenticate', 'Bearer');
        throw new DomainError('unauthenticated', 401, 'metrics token required');
      }
      return c.body(await api.registry.metrics(), 200, { 'content-type': api.registry.contentType });
    },
  );
}
