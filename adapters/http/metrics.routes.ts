/**
 * SOC metrics for people (SPEC.md "Metrics, audit, retention, diagnostics"):
 * `GET /metrics/overview` and `GET /metrics/gate`, each over an optional `days` window
 * (default SVC_METRICS_WINDOW_DAYS) and always within the caller's case scope
 * (projections/metrics/metrics.queries.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { metricsGate, metricsOverview } from '../../projections/metrics/metrics.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { validate } from './validation.ts';

/** Longest window a metrics query accepts, days. */
const MAX_WINDOW_DAYS = 365;

const windowQuery = v.object({ days: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(MAX_WINDOW_DAYS))) });

/** `GET /metrics/overview` and `/metrics/gate`; 422 when `days` is not an integer in 1..365. */
export function metricsRoutes(deps: HttpDeps) {
  const read = requirePermission('read', 'svc:cases:read', deps.permissions);
  const { windowDays, atRiskMinutes } = deps.metrics;
  return new Hono<AppEnv>()
    .get(
      '/metrics/overview',
      describeRoute({ summary: 'Open cases by severity, MTTA and MTTR in seconds, SLA at risk (within my case scope)', tags: ['metrics'] }),
      read,
      validate('query', windowQuery),
      async (c) =>
        c.json(
          await metricsOverview(deps.db, caseScopeOf(c.get('principal'), deps.permissions), {
            severities: deps.caseConfig.severities,
            closedStatuses: [...deps.caseConfig.closedStatuses],
            ackSla: deps.ackSla,
            windowDays: c.req.valid('query').days ?? windowDays,
            atRiskMinutes,
            now: new Date(),
          }),
        ),
    )
    .get(
      '/metrics/gate',
      describeRoute({ summary: 'Approval gates approved and denied, and dry runs, in the window (within my case scope)', tags: ['metrics'] }),
      read,
      validate('query', windowQuery),
      async (c) => c.json(await metricsGate(deps.db, caseScopeOf(c.get('principal'), deps.permissions), c.req.valid('query').days ?? windowDays, new Date())),
    );
}
