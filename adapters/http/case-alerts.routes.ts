/**
 * Alerts of a case (SPEC.md "Cases"): `GET /cases/<id>/alerts`, `POST` links an alert
 * (`{alert_id}`; moving it when another case holds it), `DELETE .../alerts/<alert_id>`
 * unlinks. Both need `manage_cases` in the case's team and an alert the caller may see:
 * one held by a case the caller cannot see is 404 `alert_not_found` like an absent one
 * (adapters/http/case-access.ts `alertAccess`). Linking also needs `manage_cases` in the
 * alert's team and in the team of the case it moves out of.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { caseAlerts } from '../../projections/alerts/alerts.queries.ts';
import { alertListSchema, alertView } from './alerts.routes.ts';
import { alertAccess, caseRouteGuards } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { uuid } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

/** What the case alert routes read of the service (adapters/http/deps.ts). */
export type CaseAlertRouteDeps = Pick<HttpDeps, 'caseAlerts' | 'db' | 'permissions' | 'waitFor'>;

export function caseAlertRoutes(deps: CaseAlertRouteDeps) {
  const { db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);
  const alerts = alertAccess(db, deps.permissions);

  return new Hono<AppEnv>()
    .get(
      '/cases/:id/alerts',
      describeRoute({
        summary: 'Alerts a case holds',
        tags: ['cases'],
        responses: { 200: jsonAnswer(alertListSchema, 'The alerts of the case, newest first') },
      }),
      read,
      validate('param', v.object({ id: uuid })),
      async (c) => {
        const { id } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        return c.json({ items: (await caseAlerts(db, id)).map(alertView) } satisfies v.InferOutput<typeof alertListSchema>);
      },
    )
    .post(
      '/cases/:id/alerts',
      describeRoute({
        summary: 'Link an alert to the case (moving it from another case)',
        tags: ['cases'],
        responses: { 200: jsonAnswer(alertListSchema, 'The alerts of the case with the linked one, newest first') },
      }),
      manage,
      validate('param', v.object({ id: uuid })),
      requireJson,
      validate('json', v.object({ alert_id: uuid })),
      async (c) => {
        const { id } = c.req.valid('param');
        const { alert_id: alertId } = c.req.valid('json');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const alert = await alerts.actOn(principal, alertId);
        const position = await deps.caseAlerts.link(id, alertId, alert.case_id, actorOf(principal));
        await deps.waitFor(position);
        return c.json({ items: (await caseAlerts(db, id)).map(alertView) } satisfies v.InferOutput<typeof alertListSchema>);
      },
    )
    .delete(
      '/cases/:id/alerts/:alert_id',
      describeRoute({ summary: 'Unlink an alert from the case', tags: ['cases'], responses: { 204: { description: 'Unlinked' } } }),
      manage,
      validate('param', v.object({ id: uuid, alert_id: uuid })),
      async (c) => {
        const { id, alert_id: alertId } = c.req.valid('param');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        // Before the unlink decides: held by a case the caller cannot see, the alert must answer as absent, not `alert_not_in_case`.
        await alerts.visible(principal, alertId);
        const position = await deps.caseAlerts.unlink(id, alertId, actorOf(principal));
        await deps.waitFor(position);
        return c.body(null, 204);
      },
    );
}
