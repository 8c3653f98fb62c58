/**
 * SOC metrics for people (SPEC.md "Metrics, audit, retention, diagnostics"):
 * `GET /metrics/overview` and `GET /metrics/gate`, each over an optional `days` window
 * (default SVC_METRICS_WINDOW_DAYS) and always within the caller's case scope
 * (projections/metrics/metrics.queries.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { queryInt } from '../shared/shapes.ts';
import { socMetrics, socMetricsSchema, ZERO_AI_SPEND } from '../../domain/metrics/soc.ts';
import { metricsGate, metricsGateSchema, metricsOverview, metricsOverviewSchema } from '../../projections/metrics/metrics.queries.ts';
import {
  socAiSpend,
  socAlertGroups,
  socCaseGroups,
  socGateGroups,
  socRunGroups,
  socTopRules,
  socTriageAgreement,
} from '../../projections/metrics/soc.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { hasPermission } from '../identity/permissions.ts';
import type { Principal } from '../identity/principal.ts';
import { scopeCovers } from '../identity/scopes.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { validate } from './validation.ts';

/** Longest window a metrics query accepts, days. */
const MAX_WINDOW_DAYS = 365;

/** Rules listed in `top_rules`, and features and models in `ai_spend`. */
const TOP_RULES = 10;
const TOP_AI = 5;

const days = v.optional(queryInt(1, MAX_WINDOW_DAYS));
const windowQuery = v.object({ days });
const socQuery = v.object({ days, team: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(128))) });

/**
 * Whether `principal` sees AI spend: a global administrator (a realm admin grant), acting
 * in a browser or through a workload token with `svc:admin:read`, as a scheduled
 * operator report does.
 */
const seesAiSpend = (principal: Principal, deps: Pick<HttpDeps, 'permissions'>) =>
  hasPermission(principal, 'admin', deps.permissions, null) && scopeCovers(principal.scopes, 'svc:admin:read');

/** What the SOC metrics routes read of the service (adapters/http/deps.ts). */
export type MetricsRouteDeps = Pick<HttpDeps, 'ackSla' | 'caseConfig' | 'db' | 'metrics' | 'now' | 'permissions'>;

/** `GET /metrics/overview`, `/metrics/soc` and `/metrics/gate`; 422 when `days` is not an integer in 1..365. */
export function metricsRoutes(deps: MetricsRouteDeps) {
  const read = requirePermission('read', 'svc:cases:read', deps.permissions);
  const { windowDays, atRiskMinutes } = deps.metrics;
  return new Hono<AppEnv>()
    .get(
      '/metrics/overview',
      describeRoute({
        summary: 'Open cases by severity, MTTA and MTTR in seconds, SLA at risk (within my case scope)',
        tags: ['metrics'],
        responses: { 200: jsonAnswer(metricsOverviewSchema, 'The overview') },
      }),
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
            now: deps.now(),
          }),
        ),
    )
    .get(
      '/metrics/soc',
      describeRoute({
        summary:
          'Weekly SOC metrics: MTTA/MTTR by severity and team, opened/closed, alerts received, runs by outcome, top rules, automation rate, approval turnaround, AI triage agreement and AI spend',
        tags: ['metrics'],
        responses: { 200: jsonAnswer(socMetricsSchema, 'The weekly SOC metrics') },
      }),
      read,
      validate('query', socQuery),
      async (c) => {
        const q = c.req.valid('query');
        const principal = c.get('principal');
        const until = deps.now();
        const window = q.days ?? windowDays;
        const filter = { scope: caseScopeOf(principal, deps.permissions), team: q.team ?? null, since: new Date(until.getTime() - window * 86_400_000), until };
        const [cases, gates, alerts, runs, topRules, aiTriageAgreement, aiSpend] = await Promise.all([
          socCaseGroups(deps.db, filter),
          socGateGroups(deps.db, filter),
          socAlertGroups(deps.db, filter),
          socRunGroups(deps.db, filter),
          socTopRules(deps.db, filter, TOP_RULES),
          socTriageAgreement(deps.db, filter),
          seesAiSpend(principal, deps) ? socAiSpend(deps.db, filter, TOP_AI) : ZERO_AI_SPEND,
        ]);
        return c.json(
          socMetrics({
            windowDays: window,
            team: filter.team,
            from: filter.since,
            to: until,
            severities: deps.caseConfig.severities,
            cases,
            gates,
            alerts,
            runs,
            topRules,
            aiTriageAgreement,
            aiSpend,
          }),
        );
      },
    )
    .get(
      '/metrics/gate',
      describeRoute({
        summary: 'Approval gates approved and denied, and dry runs, in the window (within my case scope)',
        tags: ['metrics'],
        responses: { 200: jsonAnswer(metricsGateSchema, 'Gate decisions and dry runs') },
      }),
      read,
      validate('query', windowQuery),
      async (c) => c.json(await metricsGate(deps.db, caseScopeOf(c.get('principal'), deps.permissions), c.req.valid('query').days ?? windowDays, deps.now())),
    );
}
