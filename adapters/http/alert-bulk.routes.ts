/**
 * `POST /alerts/bulk` (docs/configuration.md "Bulk operations"; issue 50): one operation on
 * up to 500 alerts of the inbox: `dismiss`, `link` into a case, or `escalate` each alert into
 * a case of its own (`mode: each`) or all of them into one new case (`mode: one`). Each id is
 * checked and moved as its single request would be (`POST /alerts/<id>/dismiss`, `/link`,
 * `/escalate`), one alert a write, and fails alone; the answer lists every id in the order
 * given, an escalated one with the `case_id` it went to. `Idempotency-Key` replays the first
 * answer (idempotency-key.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import { uuid } from '../shared/shapes.ts';
import { BULK_MAX_IDS, bulkIds, bulkResultsSchema, failed, idempotencyKeyHeader, type BulkResult } from './case-bulk.routes.ts';
import { dismissReason } from './alerts.routes.ts';
import { alertAccess, caseAccess } from './case-access.ts';
import { actorOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { onceByIdempotencyKey } from './idempotency-key.ts';
import { jsonAnswer } from './openapi.ts';
import { requirePermission } from './auth.ts';
import { requireJson, validate } from './validation.ts';

export type AlertBulkDeps = Pick<HttpDeps, 'caseAlerts' | 'db' | 'mcpIdempotency' | 'permissions' | 'waitFor'>;

const body = v.variant('operation', [
  v.strictObject({
    ids: bulkIds,
    operation: v.literal('dismiss'),
    params: v.optional(v.strictObject({ reason: dismissReason })),
  }),
  v.strictObject({ ids: bulkIds, operation: v.literal('link'), params: v.strictObject({ case_id: uuid }) }),
  v.strictObject({ ids: bulkIds, operation: v.literal('escalate'), params: v.strictObject({ mode: v.picklist(['each', 'one'], 'must be each or one') }) }),
]);

export function alertBulkRoutes(deps: AlertBulkDeps) {
  const manage = requirePermission('manage_cases', 'svc:alerts:write', deps.permissions);
  const cases = caseAccess(deps.db, deps.permissions);
  const alerts = alertAccess(deps.db, deps.permissions);

  return new Hono<AppEnv>().post(
    '/alerts/bulk',
    describeRoute({
      summary: `One operation on up to ${BULK_MAX_IDS} alerts: dismiss, link into a case, or escalate (each into its own case, or all into one); each id succeeds or fails alone`,
      tags: ['alerts'],
      parameters: [idempotencyKeyHeader],
      responses: { 200: jsonAnswer(bulkResultsSchema, "Each id's outcome, in the order given; an escalated alert's with the case it went to") },
    }),
    manage,
    requireJson,
    validate('json', body),
    async (c) => {
      const request = c.req.valid('json');
      const principal = c.get('principal');
      const actor = actorOf(principal);
      // The case every alert goes to is checked once: when it cannot take them, none can, and the request is refused whole.
      if (request.operation === 'link') await cases.actOn(principal, request.params.case_id, 'manage_cases');
      return onceByIdempotencyKey(c, deps.mcpIdempotency, 'POST /alerts/bulk', request, async () => {
        const results: BulkResult[] = [];
        let last: number | null = null;
        // A move that changed nothing (a dismissed alert dismissed again) wrote nothing: the last write is still the one to wait for.
        const wrote = (position: number | null) => {
          if (position !== null) last = position;
        };
        let oneCase: string | null = null;
        for (const id of request.ids) {
          try {
            const alert = await alerts.actOn(principal, id);
            const into = request.operation === 'link' ? request.params.case_id : oneCase;
            if (request.operation === 'dismiss') {
              wrote(await deps.caseAlerts.dismiss(id, alert.case_id, request.params?.reason || null, actor));
              results.push({ id, ok: true });
            } else if (into !== null) {
              wrote(await deps.caseAlerts.link(into, id, alert.case_id, actor));
              results.push({ id, ok: true, ...(request.operation === 'escalate' && { case_id: into }) });
            } else {
              const escalated = await deps.caseAlerts.escalate(id, alert.case_id, { title: null, severity: null, private: false }, actor);
              wrote(escalated.position);
              if (request.operation === 'escalate' && request.params.mode === 'one') oneCase = escalated.caseId;
              results.push({ id, ok: true, case_id: escalated.caseId });
            }
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
            results.push(failed(id, error));
          }
        }
        await deps.waitFor(last);
        return c.json({ results });
      });
    },
  );
}
