/**
 * `GET /peer/v1/approvals?user=<subject>` (SPEC.md "Peer endpoints", "Authentication" row
 * "Peer status endpoints", "Errors"): the approval gates a person may decide now
 * (peer-approvals.ts), `Cache-Control: no-store`.
 *
 * Callers, checked first: identity's service token with scope `svc:peer:status:read`,
 * and a person's own browser assertion when they are a realm admin (install-wide) or a
 * team admin (their teams' runs only); anyone else 403 `forbidden`. Then `user` must be
 * the only query parameter, given once, a lowercase UUID; else 400 `peer_bad_request`.
 * Identity unreadable: 503 `upstream_unavailable`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import type { Principal } from '../identity/principal.ts';
import { PEER_STATUS_SCOPE } from './account-section.ts';
import { checkPeerService } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { approvalsDocumentSchema, approvalsListing, type ApprovalsReach } from './peer-approvals.ts';
import { PRODUCT } from './peer.routes.ts';
import { peerQuery } from './peer-query.ts';

const LOWERCASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the approvals route reads of the service (adapters/http/deps.ts). */
export type PeerApprovalRouteDeps = Pick<HttpDeps, 'db' | 'permissions' | 'now' | 'identityService' | 'environment' | 'publicPrefix'>;

/**
 * Whose runs `caller` may have listed: all for identity's status token or a realm admin's
 * assertion, its admin teams for a team admin's assertion.
 * @throws DomainError 401 without a caller, 403 `forbidden` for any other.
 */
export function approvalsReach(caller: Principal | undefined, matrix: PermissionMatrix): ApprovalsReach {
  if (caller?.tokenUse === 'assertion') {
    // Admin in the case-scope sense: the `admin` permission through a realm grant, or through team grants.
    const { all, adminTeams } = caseScopeOf(caller, matrix);
    if (all) return { all: true };
    if (adminTeams.length > 0) return { all: false, teams: adminTeams };
    throw new DomainError('forbidden', 403, "the approvals listing takes identity's status token, a realm admin or a team admin");
  }
  checkPeerService(caller, PEER_STATUS_SCOPE);
  return { all: true };
}

/** Its query: `user`, the only parameter, given once, a lowercase UUID (peerQuery refuses any other or a repeat with 400). */
const approvalsQuery = v.object({ user: v.pipe(v.string(), v.regex(LOWERCASE_UUID, 'must be a lowercase UUID')) });

/** The route; mount behind `authenticate()`. */
export function peerApprovalRoutes(deps: PeerApprovalRouteDeps) {
  const listing = approvalsListing({
    db: deps.db,
    permissions: deps.permissions,
    identity: deps.identityService,
    product: PRODUCT,
    environment: deps.environment,
    publicPrefix: deps.publicPrefix,
  });
  return new Hono<AppEnv>().get(
    '/peer/v1/approvals',
    describeRoute({
      summary: "Approval gates a person may decide now, by their live grants at identity (the suite shell's approvals)",
      tags: ['peer'],
      parameters: [
        { name: 'user', in: 'query', required: true, description: 'identity subject, a lowercase UUID', schema: { type: 'string', format: 'uuid' } },
      ],
      responses: {
        200: jsonAnswer(approvalsDocumentSchema, 'The gates, soonest deadline first, then by run id; at most 100'),
        503: jsonAnswer(errorBodySchema, 'Identity could not be read: `upstream_unavailable`'),
      },
    }),
    async (c) => {
      const reach = approvalsReach(c.get('principal'), deps.permissions);
      const { user } = peerQuery(c, approvalsQuery);
      const document = await listing(user, reach, deps.now());
      c.header('cache-control', 'no-store');
      return c.json(document);
    },
  );
}
