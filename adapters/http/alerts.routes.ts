/**
 * `GET /alerts` (SPEC.md "Alerts"): the inbox, filters `status`, `severity`, `source`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { listAlerts } from '../../projections/alerts/alerts.queries.ts';
import { requirePermission } from './auth.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { iso, paging } from './shapes.ts';
import { validate } from './validation.ts';

export function alertRoutes(deps: HttpDeps) {
  return new Hono<AppEnv>().get(
    '/alerts',
    describeRoute({ summary: 'Alert inbox', tags: ['alerts'] }),
    requirePermission('read', 'svc:alerts:read', deps.permissions),
    validate(
      'query',
      v.object({
        status: v.optional(v.picklist(['new', 'linked'])),
        severity: v.optional(v.string()),
        source: v.optional(v.string()),
        ...paging,
      }),
    ),
    async (c) => {
      const rows = await listAlerts(deps.db, c.req.valid('query'), caseScopeOf(c.get('principal'), deps.permissions));
      return c.json({
        items: rows.map(alertView),
      });
    },
  );
}

/** The alert document of the API (SPEC.md "Alert"). */
export function alertView(r: Awaited<ReturnType<typeof listAlerts>>[number]) {
  return {
    id: r.id,
    source: r.source,
    external_id: r.external_id,
    rule_id: r.rule_id,
    title: r.title,
    severity: r.severity,
    status: r.status,
    case_id: r.case_id,
    detected_at: iso(r.detected_at),
    url: r.url,
    correlation_key: r.correlation_key,
    suite_correlation_id: r.suite_correlation_id,
    team: r.team,
    repeat_count: r.repeat_count,
    received_at: iso(r.received_at),
    last_seen_at: iso(r.last_seen_at),
  };
}
