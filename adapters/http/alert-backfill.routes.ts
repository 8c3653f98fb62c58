/**
 * `POST /alerts/backfill {detector_connection_id, since?, limit?}` (SPEC.md "Alerts"):
 * reads the detector's external alerts list with a read-scoped exchange token and takes
 * in what intake does not already hold (adapters/commands/backfill.ts). Needs
 * `manage_connections` through a realm grant, since it acts through an install-wide
 * connection and may open cases in any team.
 *
 * - `since`: RFC 3339, default `SVC_BACKFILL_LOOKBACK_H` hours ago.
 * - `limit`: alerts read at most, 1..`SVC_BACKFILL_MAX_ALERTS`, default that maximum.
 * - 200: the report. A failure part-way answers 502 (503 `exchange_not_configured`) with
 *   the failure's code and, in `params`, what had landed before it.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError, ValidationFailed } from '../../domain/shared/errors.ts';
import { BackfillFailed, backfillReportSchema } from '../commands/backfill.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { uuid } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

/** HTTP status of a backfill failure by its code; anything else is the detector's side: 502. */
const failureStatus: Record<string, number> = { exchange_not_configured: 503, UNDECLARED_EXCHANGE_SCOPE: 500 };

/** What the backfill route reads of the service (adapters/http/deps.ts). */
export type AlertBackfillRouteDeps = Pick<HttpDeps, 'backfill' | 'backfillLimits' | 'connections' | 'now' | 'permissions' | 'waitFor'>;

/** The backfill route, with `limit` bounded and `since` defaulted by `deps.backfillLimits`. */
export function alertBackfillRoutes(deps: AlertBackfillRouteDeps) {
  const { maxAlerts, lookbackHours } = deps.backfillLimits;
  const body = v.object({
    detector_connection_id: uuid,
    since: v.optional(v.pipe(v.string(), v.isoTimestamp('must be an RFC 3339 timestamp'))),
    limit: v.optional(
      v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, `must be 1-${maxAlerts}`), v.maxValue(maxAlerts, `must be 1-${maxAlerts}`)),
    ),
  });
  return new Hono<AppEnv>().post(
    '/alerts/backfill',
    describeRoute({
      summary: "Backfill alerts from the detector's external alerts list (de-duplicated against intake)",
      tags: ['alerts'],
      responses: {
        200: jsonAnswer(backfillReportSchema, 'The report of the backfill'),
        // A failing detector (502) or a missing exchange (503): statuses the shared error answers (4XX, 500) do not cover.
        502: jsonAnswer(errorBodySchema, "The detector failed part-way: the failure's code, and in params what had landed before it"),
        503: jsonAnswer(errorBodySchema, 'exchange_not_configured: no token exchange to read the detector with'),
      },
    }),
    requirePermission('manage_connections', 'svc:alerts:write', deps.permissions, null),
    requireJson,
    validate('json', body),
    async (c) => {
      const request = c.req.valid('json');
      const connection = await deps.connections.resolveById(request.detector_connection_id);
      if (connection.kind !== 'detector' || !connection.base_url) {
        const msg = connection.kind !== 'detector' ? `must name a detector connection, not ${connection.kind}` : 'names a detector connection without base_url';
        throw new ValidationFailed([{ loc: ['body', 'detector_connection_id'], msg, type: 'value_error' }]);
      }
      const since = new Date(request.since ?? deps.now().getTime() - lookbackHours * 3_600_000).toISOString();
      try {
        const { report, position } = await deps.backfill.run({ connection, since, limit: request.limit ?? maxAlerts });
        await deps.waitFor(position);
        return c.json(report);
      } catch (error) {
        if (!(error instanceof BackfillFailed)) throw error;
        await deps.waitFor(error.position);
        const { detector_connection_id, pages, fetched, created, duplicates, rejected_count } = error.report;
        throw new DomainError(error.failure.type, failureStatus[error.failure.type] ?? 502, error.message, {
          detector_connection_id,
          pages,
          fetched,
          created,
          duplicates,
          rejected_count,
          retryable: error.failure.retryable,
        });
      }
    },
  );
}
