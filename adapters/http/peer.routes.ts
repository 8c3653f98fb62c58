/**
 * Peer endpoints (SPEC.md "Peer endpoints"), read by the suite's identity service with its
 * service token and scope `svc:peer:status:read` (SPEC.md "Authentication", peer status
 * endpoints); any other caller is 403. Answers are `no-store`.
 *
 * - `GET /peer/v1/exchanges`: `{contract_version: 1, product, exchanges}`, each audience
 *   this service asks the workload exchange for, with its sorted scopes
 *   (adapters/exchange/declared.ts).
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { exchangesDocument } from '../exchange/declared.ts';
import { requirePeerService } from './auth.ts';
import type { AppEnv } from './context.ts';

/** The product name peer documents carry. */
export const PRODUCT = 'svc';

/** The `/peer/v1` routes; mount behind `authenticate()` (each checks its own caller). */
export function peerRoutes() {
  return new Hono<AppEnv>().get(
    '/peer/v1/exchanges',
    describeRoute({ summary: 'Audiences and scopes this service requests from the workload exchange', tags: ['peer'] }),
    requirePeerService('svc:peer:status:read'),
    (c) => {
      c.header('cache-control', 'no-store');
      return c.json(exchangesDocument(PRODUCT));
    },
  );
}
