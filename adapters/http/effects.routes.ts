/**
 * Effect read routes (SPEC.md "Effect (managed containment)"; the routes are ours,
 * docs/containment.md "Reading effects"), with the `read` permission and case scoping
 * like runs (an effect of an invisible case reads like an absent one):
 * - `GET /effects?target_type=&target=&status=&run_id=&case_id=&limit=&offset=` -> a page
 *   `{items, has_more, limit, offset}` (and `total` with `include_total=true`), newest first;
 *   `status` takes one status or several, comma-separated; `target` needs `target_type` and
 *   is normalized like a request's target, so any spelling of an address finds its effects;
 * - `GET /effects/<id>` -> one effect: its target, state, TTL end, adapter and origin;
 * - `POST /effects/<id>/release` (`approve_runbooks`, exchange scope `svc:runs:write`) ->
 *   reverses an active effect now, through its frozen binding, as the TTL expiry would
 *   (audited `effect.reverse` by the caller); answers the effect after the attempt: `reversed`,
 *   or `reversal_failed` with its code and next try. 409 `effect_not_active` for an effect
 *   that is not active (pending, degraded, failed, already reversed).
 */
import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { normalizeTarget, targetTypes } from '../../domain/response-policy/targets.ts';
import { conflict, notFound, ValidationFailed } from '../../domain/shared/errors.ts';
import type { EffectsTable } from '../../projections/database.ts';
import { findEffect, listEffects } from '../../projections/effects/effects.queries.ts';
import { auditActorOf } from '../commands/audit.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { idParam, iso, paging, queryFlag, uuid } from '../shared/shapes.ts';
import { listPageAnswer, listPageSchema } from './list-page.ts';
import { validate } from './validation.ts';

export type EffectRouteDeps = Pick<HttpDeps, 'caseListTotalCap' | 'db' | 'permissions' | 'reverser' | 'waitFor'>;

const effectStatuses = ['pending', 'degraded', 'failed', 'active', 'reversing', 'reversal_failed', 'reversed'] as const;
const nullableTime = v.nullable(v.string());

export const effectViewSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    effect_type: v.string(),
    target_type: v.string(),
    /** Normalized (docs/containment.md "Targets"). */
    target: v.string(),
    status: v.picklist(effectStatuses),
    ttl_seconds: v.number(),
    /** When the effect ends and is reversed; null until applied. */
    expires_at: nullableTime,
    adapter_id: v.nullable(v.string()),
    policy_version: v.nullable(v.number()),
    snapshot_digest: v.nullable(v.string()),
    /** The provider's handle of the applied effect (rule id, decision id). */
    handle: v.nullable(v.string()),
    already_enforced: v.boolean(),
    enforcement_performed: v.boolean(),
    /** The refusal or failure code of a degraded, failed or reversal_failed effect. */
    last_error: v.nullable(v.string()),
    reversal_attempts: v.number(),
    /** When a failed reversal is tried again. */
    retry_at: nullableTime,
    run_id: v.nullable(v.string()),
    step_id: v.nullable(v.string()),
    case_id: v.nullable(v.string()),
    requested_by: v.nullable(v.string()),
    requested_at: v.string(),
    applied_at: nullableTime,
    reversed_at: nullableTime,
    updated_at: v.string(),
  }),
  v.metadata({ ref: 'Effect' }),
);

type EffectView = v.InferOutput<typeof effectViewSchema>;

/** An `effects` row as the API answers it. */
function effectView(r: Selectable<EffectsTable>): EffectView {
  return {
    id: r.id,
    effect_type: r.effect_type,
    target_type: r.target_type,
    target: r.target,
    status: r.status as EffectView['status'],
    ttl_seconds: r.ttl_seconds,
    expires_at: iso(r.expires_at),
    adapter_id: r.adapter_id,
    policy_version: r.policy_version,
    snapshot_digest: r.snapshot_digest,
    handle: r.handle,
    already_enforced: r.already_enforced,
    enforcement_performed: r.enforcement_performed,
    last_error: r.last_error,
    reversal_attempts: r.reversal_attempts,
    retry_at: iso(r.retry_at),
    run_id: r.run_id,
    step_id: r.step_id,
    case_id: r.case_id,
    requested_by: r.requested_by,
    requested_at: iso(r.requested_at),
    applied_at: iso(r.applied_at),
    reversed_at: iso(r.reversed_at),
    updated_at: iso(r.updated_at),
  };
}

/** One effect status or several, comma-separated; the document shows this pattern, the route reads the list. */
const statusList = new RegExp(`^(${effectStatuses.join('|')})(,(${effectStatuses.join('|')}))*$`);

const listQuery = v.object({
  target_type: v.optional(v.picklist(targetTypes)),
  target: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(320))),
  /** One status, or several comma-separated (`active,reversing,reversal_failed`: what is in force or stuck). */
  status: v.optional(
    v.pipe(
      v.string(),
      v.regex(statusList, `must be one or more of ${effectStatuses.join(', ')}, comma-separated`),
      v.transform((text) => text.split(',')),
    ),
  ),
  run_id: v.optional(uuid),
  case_id: v.optional(uuid),
  include_total: queryFlag,
  ...paging,
});

export function effectRoutes(deps: EffectRouteDeps) {
  const read = requirePermission('read', 'svc:runs:read', deps.permissions);
  return new Hono<AppEnv>()
    .get(
      '/effects',
      describeRoute({
        summary: 'Containment effects: what is blocked or contained, by which adapter, until when',
        tags: ['effects'],
        responses: { 200: jsonAnswer(listPageSchema(effectViewSchema), 'A page of the visible effects, newest first') },
      }),
      read,
      validate('query', listQuery),
      async (c) => {
        const q = c.req.valid('query');
        let target: string | undefined;
        if (q.target !== undefined) {
          if (q.target_type === undefined) throw new ValidationFailed([{ loc: ['query', 'target_type'], msg: 'target needs target_type', type: 'missing' }]);
          const normalized = normalizeTarget(q.target_type, q.target);
          if (!normalized.ok) throw new ValidationFailed([{ loc: ['query', 'target'], msg: normalized.reason, type: 'target_invalid' }]);
          target = normalized.value;
        }
        const scope = caseScopeOf(c.get('principal'), deps.permissions);
        const filters = { targetType: q.target_type, target, status: q.status, runId: q.run_id, caseId: q.case_id, limit: q.limit, offset: q.offset };
        const page = await listEffects(deps.db, filters, scope, q.include_total ? deps.caseListTotalCap : null);
        return c.json(listPageAnswer(page, page.items.map(effectView), q));
      },
    )
    .get(
      '/effects/:id',
      describeRoute({ summary: 'One containment effect', tags: ['effects'], responses: { 200: jsonAnswer(effectViewSchema, 'The effect') } }),
      read,
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const found = await findEffect(deps.db, id, caseScopeOf(c.get('principal'), deps.permissions));
        if (!found) throw notFound('effect_not_found', 'effect not found', { effect_id: id });
        return c.json(effectView(found));
      },
    )
    .post(
      '/effects/:id/release',
      describeRoute({
        summary: 'Release a containment effect now, before its TTL ends',
        tags: ['effects'],
        responses: { 200: jsonAnswer(effectViewSchema, 'The effect after the reversal: reversed, or reversal_failed and tried again') },
      }),
      requirePermission('approve_runbooks', 'svc:runs:write', deps.permissions),
      validate('param', idParam),
      async (c) => {
        const { id } = c.req.valid('param');
        const scope = caseScopeOf(c.get('principal'), deps.permissions);
        const found = await findEffect(deps.db, id, scope);
        if (!found) throw notFound('effect_not_found', 'effect not found', { effect_id: id });
        const { outcome, position } = await deps.reverser.reverse(id, 'released', auditActorOf(c.get('principal')));
        if (outcome === 'not_due')
          throw conflict('effect_not_active', `the effect is ${found.status}: only an active effect is released`, { effect_id: id, status: found.status });
        await deps.waitFor(position);
        const after = await findEffect(deps.db, id, scope);
        if (!after) throw notFound('effect_not_found', 'effect not found', { effect_id: id });
        return c.json(effectView(after));
      },
    );
}
