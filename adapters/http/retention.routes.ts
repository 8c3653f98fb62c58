/**
 * `GET /retention` (SPEC.md "Metrics, audit, retention, diagnostics"): the retention
 * policy and the case sweeper's state, `{policy, last_sweep_at, last_deleted,
 * total_deleted, backlog, last_error, last_error_at}`. Admin-only and install-wide (a
 * realm admin grant, `svc:admin:read` on exchange tokens). Before the first sweep the
 * state reads as never swept: nulls, zeros and no backlog.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { retentionPolicySchema } from '../../domain/retention/policy.ts';
import { CASES_RESOURCE, retentionState } from '../../projections/retention/retention.queries.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { iso } from '../shared/shapes.ts';

/** The retention policy and the case sweeper's state; never swept reads as nulls, zeros and no backlog. */
export const retentionSchema = v.strictObject({
  policy: retentionPolicySchema,
  last_sweep_at: v.nullable(v.string()),
  last_deleted: v.number(),
  total_deleted: v.number(),
  backlog: v.boolean(),
  /** The error class of the last failed sweep, never a message. */
  last_error: v.nullable(v.string()),
  last_error_at: v.nullable(v.string()),
});

/** What the retention route reads of the service (adapters/http/deps.ts). */
export type RetentionRouteDeps = Pick<HttpDeps, 'db' | 'permissions' | 'retentionPolicy'>;

/** `GET /retention`; 403 `forbidden` without a realm admin grant. */
export function retentionRoutes(deps: RetentionRouteDeps) {
  return new Hono<AppEnv>().get(
    '/retention',
    describeRoute({
      summary: 'Retention policy of closed cases and the sweeper state',
      tags: ['retention'],
      responses: { 200: jsonAnswer(retentionSchema, 'The policy and sweeper state') },
    }),
    requirePermission('admin', 'svc:admin:read', deps.permissions, null),
    async (c) => {
      const state = await retentionState(deps.db, CASES_RESOURCE);
      return c.json({
        policy: deps.retentionPolicy,
        last_sweep_at: iso(state?.last_sweep_at ?? null),
        last_deleted: state?.last_deleted ?? 0,
        total_deleted: Number(state?.total_deleted ?? 0),
        backlog: state?.backlog ?? false,
        last_error: state?.last_error ?? null,
        last_error_at: iso(state?.last_error_at ?? null),
      } satisfies v.InferOutput<typeof retentionSchema>);
    },
  );
}
