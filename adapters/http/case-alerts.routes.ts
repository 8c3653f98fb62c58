/**
 * Alerts of a case (SPEC.md "Cases"): `GET /cases/<id>/alerts`, `POST` links an alert
 * (`{alert_id}`; moving it when another case holds it), `DELETE .../alerts/<alert_id>`
 * unlinks. Linking needs `manage_cases` in the case's team and an alert the caller may see.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { notFound } from '../../domain/shared/errors.ts';
import { caseAlerts, listAlerts } from '../../projections/alerts/alerts.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { alertListSchema, alertView } from './alerts.routes.ts';
import { caseRouteGuards } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { uuid } from './shapes.ts';
import { requireJson, validate } from './validation.ts';

/** What the case alert routes read of the service (adapters/http/deps.ts). */
export type CaseAlertRouteDeps = Pick<HttpDeps, 'caseAlerts' | 'db' | 'permissions' | 'waitFor'>;

export function caseAlertRoutes(deps: CaseAlertRouteDeps) {
  const { db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);

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
        const visible = await listAlerts(db, { limit: 1, offset: 0, id: alertId }, caseScopeOf(principal, deps.permissions));
        if (visible.length === 0) throw notFound('alert_not_found', 'alert not found', { alert_id: alertId });
        const position = await deps.caseAlerts.link(id, alertId, actorOf(principal));
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
        const position = await deps.caseAlerts.unlink(id, alertId, actorOf(principal));
        await deps.waitFor(position);
        return c.body(null, 204);
      },
    );
}
