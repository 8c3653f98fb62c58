/**
 * The alert inbox (SPEC.md "Alerts"): `GET /alerts` (filters `status`, `severity`,
 * `source`; a page with `has_more`, and `total` with `include_total=true`), `GET /alerts/<id>`
 * (one alert with its payload, observables and case; ours, docs/configuration.md "Alert inbox"),
 * `POST /alerts` (an alert entered by hand: in no case, no runbook),
 * `POST /alerts/<id>/escalate` (a new case holding it), `/link {case_id}` (into an
 * existing case, moved out of another) and `/dismiss {reason?}` (an alert in no case).
 * Changes need `manage_cases` in the alert's team and in the holding case's (and in the
 * target case's for link); an alert the caller cannot see, or one held by a case the
 * caller cannot see, is 404 `alert_not_found` like an absent one, and every alert answered
 * names its case only to who may see that case (`case_id` null otherwise).
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { alertObservables, findAlert, listAlerts, redactCaseLinks, type AlertFilters, type AlertRow } from '../../projections/alerts/alerts.queries.ts';
import { withObservables } from '../commands/intake.ts';
import type { Principal } from '../identity/principal.ts';
import { alertAccess, caseAccess } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import { observableSchema } from '../commands/detector-alert.ts';
import { requirePermission, requireTeamPermission } from './auth.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { idParam, iso, paging, queryFlag, uuid, nonEmptyText } from '../shared/shapes.ts';
import { listPageAnswer, listPageSchema } from './list-page.ts';
import { jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';
import { alertListFilters } from './list-filters.ts';
import { filtersWithView } from './saved-view-query.ts';

/** What the alert routes read of the service (adapters/http/deps.ts). */
export type AlertRouteDeps = Pick<HttpDeps, 'caseAlerts' | 'caseConfig' | 'caseListTotalCap' | 'db' | 'permissions' | 'views' | 'waitFor'>;

export function alertRoutes(deps: AlertRouteDeps) {
  const { db, caseConfig: cfg } = deps;
  const read = requirePermission('read', 'svc:alerts:read', deps.permissions);
  const manage = requirePermission('manage_cases', 'svc:alerts:write', deps.permissions);
  const access = caseAccess(db, deps.permissions);
  const alerts = alertAccess(db, deps.permissions);
  const severity = v.picklist(cfg.severities as string[], `must be one of ${cfg.severities.join(', ')}`);

  const url = v.optional(v.nullable(v.pipe(v.string(), v.url('must be a URL'), v.maxLength(4096))));
  /**
   * A hand-entered alert, in the fields SPEC.md names for alerts (`rule_title`,
   * `external_id`, `external_url`, `correlation_root`) or this API's own (`title`, `url`),
   * normalized like intake: severity trimmed and lower-cased, observables normalized and
   * extracted (withObservables).
   */
  const manualAlert = v.pipe(
    v.object({
      title: v.optional(nonEmptyText(500)),
      rule_title: v.optional(nonEmptyText(500)),
      rule_id: v.optional(v.nullable(nonEmptyText(256))),
      severity: v.pipe(v.string(), v.trim(), v.toLowerCase(), severity),
      description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(20_000)))),
      source: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'must be 1-64 chars of a-z, 0-9, _, . or -'))),
      external_id: v.optional(nonEmptyText(256)),
      url,
      external_url: url,
      detected_at: v.optional(v.nullable(v.pipe(v.string(), v.isoTimestamp('must be an RFC 3339 timestamp')))),
      correlation_root: v.optional(v.nullable(nonEmptyText(512))),
      team: v.optional(v.nullable(nonEmptyText(200))),
      observables: v.optional(v.array(observableSchema), []),
    }),
    v.forward(
      v.check((b) => b.title !== undefined || b.rule_title !== undefined, 'a title is required (title or rule_title)'),
      ['title'],
    ),
    v.transform(({ rule_title: ruleTitle, external_url: externalUrl, ...b }) => ({
      ...b,
      title: (b.title ?? ruleTitle) as string,
      url: b.url ?? externalUrl ?? null,
    })),
  );

  /** The page of alerts `principal` may see under `filters`, each naming its case only when `principal` may see that case. */
  const visiblePage = async (principal: Principal, filters: AlertFilters, totalCap: number | null) => {
    const scope = caseScopeOf(principal, deps.permissions);
    const page = await listAlerts(db, filters, scope, totalCap);
    return { ...page, items: await redactCaseLinks(db, page.items, scope) };
  };
  const reread = async (principal: Principal, id: string) => {
    const scope = caseScopeOf(principal, deps.permissions);
    const alert = await findAlert(db, id, scope);
    if (!alert) throw new Error(`alert ${id} missing from the read model after projection`);
    const [redacted] = await redactCaseLinks(db, [alert], scope);
    return alertView(redacted ?? alert);
  };

  return new Hono<AppEnv>()
    .get(
      '/alerts',
      describeRoute({
        summary: 'Alert inbox (filters, or a saved view with `view`)',
        tags: ['alerts'],
        responses: { 200: jsonAnswer(alertPageSchema, 'A page of the alerts the caller may see, newest first') },
      }),
      read,
      validate('query', v.object({ ...alertListFilters, view: v.optional(uuid), include_total: queryFlag, ...paging })),
      async (c) => {
        const q = await filtersWithView(deps.views, c.get('principal'), 'alerts', alertListFilters, c.req.valid('query'));
        const page = await visiblePage(c.get('principal'), q, q.include_total ? deps.caseListTotalCap : null);
        return c.json(listPageAnswer(page, page.items.map(alertView), q) satisfies v.InferOutput<typeof alertPageSchema>);
      },
    )
    .get(
      '/alerts/:id',
      describeRoute({
        summary: 'One alert: its fields, the payload it arrived with, its observables and the case holding it',
        tags: ['alerts'],
        responses: { 200: jsonAnswer(alertDetailSchema, 'The alert; 404 alert_not_found when absent or not visible to the caller') },
      }),
      read,
      validate('param', idParam),
      async (c) => {
        const { alert, holder } = await alerts.held(c.get('principal'), c.req.valid('param').id);
        const observables = await alertObservables(db, alert.id);
        return c.json({
          ...alertView(alert),
          payload: alert.payload,
          observables,
          case: holder && { id: holder.id, key: holder.key, title: holder.title, status: holder.status, severity: holder.severity },
        } satisfies v.InferOutput<typeof alertDetailSchema>);
      },
    )
    .post(
      '/alerts',
      describeRoute({
        summary: 'Enter an alert by hand (into the inbox, no case)',
        tags: ['alerts'],
        responses: { 201: jsonAnswer(alertSchema, 'The alert, in no case') },
      }),
      manage,
      requireJson,
      validate('json', manualAlert),
      async (c) => {
        const body = c.req.valid('json');
        const principal = c.get('principal');
        const team = body.team ?? null;
        requireTeamPermission(principal, 'manage_cases', team, deps.permissions);
        const alert = withObservables({
          source: body.source ?? 'manual',
          external_id: body.external_id ?? randomUUID(),
          rule_id: body.rule_id ?? null,
          title: body.title,
          severity: body.severity,
          detected_at: body.detected_at ?? null,
          url: body.url,
          correlation_root: body.correlation_root ?? null,
          suite_correlation_id: null,
          team,
          matched_log: {},
          observables: body.observables,
          payload: { description: body.description ?? null, entered_by: principal.email },
        });
        const r = await deps.caseAlerts.createManual(alert, actorOf(principal));
        await deps.waitFor(r.position);
        return c.json(await reread(principal, r.alertId), 201);
      },
    )
    .post(
      '/alerts/:id/escalate',
      describeRoute({
        summary: 'Open a new case holding the alert',
        tags: ['alerts'],
        responses: { 201: jsonAnswer(escalatedSchema, 'The alert and the id of the case opened for it') },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.object({ title: v.optional(nonEmptyText(500)), severity: v.optional(severity), private: v.optional(v.boolean(), false) })),
      async (c) => {
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        const alert = await alerts.actOn(principal, id);
        const r = await deps.caseAlerts.escalate(
          id,
          alert.case_id,
          { title: body.title ?? null, severity: body.severity ?? null, private: body.private },
          actorOf(principal),
        );
        await deps.waitFor(r.position);
        return c.json({ alert: await reread(principal, id), case_id: r.caseId } satisfies v.InferOutput<typeof escalatedSchema>, 201);
      },
    )
    .post(
      '/alerts/:id/link',
      describeRoute({
        summary: 'Put the alert into a case (moving it out of another)',
        tags: ['alerts'],
        responses: { 200: jsonAnswer(alertSchema, 'The alert, now in the case') },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.object({ case_id: uuid })),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        const alert = await alerts.actOn(principal, id);
        const caseId = c.req.valid('json').case_id;
        await access.actOn(principal, caseId, 'manage_cases');
        await deps.waitFor(await deps.caseAlerts.link(caseId, id, alert.case_id, actorOf(principal)));
        return c.json(await reread(principal, id));
      },
    )
    .post(
      '/alerts/:id/dismiss',
      describeRoute({ summary: 'Dismiss an alert that is in no case', tags: ['alerts'], responses: { 200: jsonAnswer(alertSchema, 'The dismissed alert') } }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.object({ reason: dismissReason })),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        const alert = await alerts.actOn(principal, id);
        await deps.waitFor(await deps.caseAlerts.dismiss(id, alert.case_id, c.req.valid('json').reason || null, actorOf(principal)));
        return c.json(await reread(principal, id));
      },
    );
}

/** Why an alert is dismissed: optional, trimmed, at most 2000 characters (`POST /alerts/<id>/dismiss`, `POST /alerts/bulk`). */
export const dismissReason = v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(2000))));

/** An alert as the API shows it (SPEC.md "Alert"); timestamps are RFC 3339 strings. */
export const alertSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    source: v.string(),
    external_id: v.string(),
    rule_id: v.nullable(v.string()),
    title: v.string(),
    severity: v.string(),
    status: v.string(),
    case_id: v.nullable(v.string()),
    detected_at: v.nullable(v.string()),
    url: v.nullable(v.string()),
    correlation_key: v.nullable(v.string()),
    suite_correlation_id: v.nullable(v.string()),
    team: v.nullable(v.string()),
    repeat_count: v.number(),
    received_at: v.string(),
    last_seen_at: v.string(),
  }),
  v.metadata({ ref: 'Alert' }),
);

/** A list of alerts, as the case's alerts answer it. */
export const alertListSchema = v.strictObject({ items: v.array(alertSchema) });

/** A page of the inbox (`GET /alerts`): `total` and `total_relation` only with `include_total=true`. */
const alertPageSchema = listPageSchema(alertSchema);

/**
 * `GET /alerts/<id>`: the alert, `payload` as it arrived (the detector's document, or the
 * webhook source's body), the observables extracted from it (normalized), and the case
 * holding it (null when none). `repeat_count` is how many repeats de-duplication folded into it.
 */
const alertDetailSchema = v.pipe(
  v.strictObject({
    ...alertSchema.entries,
    payload: v.record(v.string(), v.unknown()),
    observables: v.array(v.strictObject({ type: v.string(), value: v.string(), normalized: v.string() })),
    case: v.nullable(v.strictObject({ id: v.string(), key: v.string(), title: v.string(), status: v.string(), severity: v.string() })),
  }),
  v.metadata({ ref: 'AlertDetail' }),
);

/** The 201 of escalating an alert: the alert, now in the new case, and that case's id. */
const escalatedSchema = v.strictObject({ alert: alertSchema, case_id: v.string() });

/** The alert document of the API (SPEC.md "Alert"). */
export function alertView(r: AlertRow): v.InferOutput<typeof alertSchema> {
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
    received_at: new Date(r.received_at).toISOString(),
    last_seen_at: new Date(r.last_seen_at).toISOString(),
  };
}
