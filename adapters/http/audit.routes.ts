/**
 * The audit log (SPEC.md "Metrics, audit, retention, diagnostics"): `GET /audit` pages
 * the hash-chained entries oldest first, `GET /audit/verify` recomputes the whole chain
 * (`{valid, checked, first_broken_index}`). Both are admin-only and install-wide: a
 * realm admin grant, and `svc:admin:read` on exchange tokens.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { queryInt } from '../shared/shapes.ts';
import { auditActions, auditEntrySchema, type AuditEntry } from '../../domain/audit/events.ts';
import { chainVerdictSchema } from '../../domain/shared/hash-chain.ts';
import { listAudit, type AuditRow } from '../../projections/audit/audit.queries.ts';
import { verifyChainTable } from '../../projections/chains/chain-table.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { validate } from './validation.ts';

/** Largest `limit` of `GET /audit`, and its default. */
const AUDIT_PAGE_MAX = 500;
const AUDIT_PAGE_DEFAULT = '100';

const auditQuery = v.object({
  after: v.optional(queryInt(-1, Number.MAX_SAFE_INTEGER)),
  limit: v.optional(queryInt(1, AUDIT_PAGE_MAX), AUDIT_PAGE_DEFAULT),
  action: v.optional(v.picklist(auditActions)),
  target_type: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  target_id: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
});

/** A page of `GET /audit`: each entry with its chain `index` and both hashes; `next_after` the `after` of the next page, null on the last. */
export const auditPageSchema = v.strictObject({
  items: v.array(v.strictObject({ index: v.number(), ...auditEntrySchema.entries, prev_hash: v.string(), hash: v.string() })),
  next_after: v.nullable(v.number()),
});

/** A page of `limit` rows read by listAudit as `GET /audit` (and the peer audit route) answer it. */
export function auditPage(rows: AuditRow[], limit: number): v.InferOutput<typeof auditPageSchema> {
  const last = rows[rows.length - 1];
  return {
    // The projector chains each audit.recorded event's entry as the row (domain/audit/chain-rows.ts).
    items: rows.map((r) => ({ index: Number(r.chain_index), ...(r.row as AuditEntry), prev_hash: r.prev_hash, hash: r.hash })),
    next_after: rows.length === limit && last ? Number(last.chain_index) : null,
  };
}

/** What the audit routes read of the service (adapters/http/deps.ts). */
export type AuditRouteDeps = Pick<HttpDeps, 'db' | 'permissions'>;

/** `GET /audit` and `GET /audit/verify`; 403 `forbidden` without a realm admin grant, 422 on a bad query. */
export function auditRoutes(deps: AuditRouteDeps) {
  const admin = requirePermission('admin', 'svc:admin:read', deps.permissions, null);
  return new Hono<AppEnv>()
    .get(
      '/audit',
      describeRoute({
        summary: 'The hash-chained audit log, oldest first; page with `after` = the last `index` seen',
        tags: ['audit'],
        responses: { 200: jsonAnswer(auditPageSchema, 'A page of audit entries') },
      }),
      admin,
      validate('query', auditQuery),
      async (c) => {
        const q = c.req.valid('query');
        return c.json(
          auditPage(await listAudit(deps.db, { after: q.after, limit: q.limit, action: q.action, targetType: q.target_type, targetId: q.target_id }), q.limit),
        );
      },
    )
    .get(
      '/audit/verify',
      describeRoute({
        summary: 'Recompute the whole audit-log hash chain',
        tags: ['audit'],
        responses: { 200: jsonAnswer(chainVerdictSchema, 'The verdict') },
      }),
      admin,
      async (c) => c.json(await verifyChainTable(deps.db, 'audit_log')),
    );
}
