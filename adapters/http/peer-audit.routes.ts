/**
 * The peer audit route (SPEC.md "Peer endpoints" leaves path and shape open; ours is in
 * docs/suite-contracts.md "Peer audit route"): the suite's settings read this service's
 * audit log through the identity service.
 *
 * `GET /peer/v1/audit?after=&limit=&action=&since=&until=` answers
 * `{contract_version: 1, product, items, next_after}`, `no-store`, oldest first. Items are
 * `GET /audit`'s: the entry with its chain `index`, `prev_hash` and `hash`, so the reader
 * can verify each entry's hash, and the links between consecutive entries of an
 * unfiltered page, without trusting this service's own verdict. Token rule as the status
 * endpoints: identity's service token with `svc:peer:status:read`; anyone else 403.
 * A malformed, repeated or unknown parameter is 400 `peer_bad_request`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { auditActions } from '../../domain/audit/events.ts';
import { listAudit } from '../../projections/audit/audit.queries.ts';
import { PEER_STATUS_SCOPE } from './account-section.ts';
import { auditPage, auditPageSchema } from './audit.routes.ts';
import { requirePeerService } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { PRODUCT } from './peer.routes.ts';
import { peerQuery } from './peer-query.ts';
import { queryInt } from '../shared/shapes.ts';

/** `contract_version` of the peer audit document (SPEC.md "Versioning"). */
export const PEER_AUDIT_CONTRACT_VERSION = 1;

/** Largest `limit`, and its default. */
const PEER_AUDIT_PAGE_MAX = 500;
const PEER_AUDIT_PAGE_DEFAULT = '100';

const instant = v.pipe(v.string(), v.isoTimestamp('must be an RFC 3339 timestamp'));

const peerAuditQuery = v.object({
  after: v.optional(queryInt(-1, Number.MAX_SAFE_INTEGER)),
  limit: v.optional(queryInt(1, PEER_AUDIT_PAGE_MAX), PEER_AUDIT_PAGE_DEFAULT),
  action: v.optional(v.picklist(auditActions, 'must be an audit action')),
  since: v.optional(instant),
  until: v.optional(instant),
});

/** The peer audit document: a page of `GET /audit` with the contract version and product. */
export const peerAuditSchema = v.strictObject({
  contract_version: v.literal(PEER_AUDIT_CONTRACT_VERSION),
  product: v.string(),
  ...auditPageSchema.entries,
});

/** `GET /peer/v1/audit`; mount behind `authenticate()`. */
export function peerAuditRoutes(deps: Pick<HttpDeps, 'db'>) {
  return new Hono<AppEnv>().get(
    '/peer/v1/audit',
    describeRoute({
      summary: 'The audit log for the suite’s settings, oldest first; page with `after` = the last `index` seen',
      tags: ['peer'],
      responses: { 200: jsonAnswer(peerAuditSchema, 'A page of hash-chained audit entries') },
    }),
    requirePeerService(PEER_STATUS_SCOPE),
    async (c) => {
      const q = peerQuery(c, peerAuditQuery);
      const rows = await listAudit(deps.db, {
        after: q.after,
        limit: q.limit,
        action: q.action,
        targetType: undefined,
        targetId: undefined,
        since: q.since,
        until: q.until,
      });
      c.header('cache-control', 'no-store');
      return c.json({ contract_version: PEER_AUDIT_CONTRACT_VERSION, product: PRODUCT, ...auditPage(rows, q.limit) } satisfies v.InferOutput<
        typeof peerAuditSchema
      >);
    },
  );
}
