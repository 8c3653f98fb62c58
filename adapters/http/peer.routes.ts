/**
 * Peer endpoints (SPEC.md "Peer endpoints"), read by the suite's identity service with its
 * service token (SPEC.md "Authentication"); any other caller is 403. Answers are `no-store`.
 *
 * - `GET /peer/v1/exchanges`: `{contract_version: 1, product, exchanges}`, each audience
 *   this service asks the workload exchange for, with its sorted scopes
 *   (adapters/exchange/declared.ts). Scope `svc:peer:status:read`.
 * - `GET, POST /peer/v1/account-section`: the chat identity link (account-section.ts).
 *   GET takes the status scope; POST a token with scope `svc:peer:account:write` minted
 *   for the signed-in person (`actor_sub`), and refuses one holding the status scope.
 */
import { Hono, type Context } from 'hono';
import { describeRoute } from 'hono-openapi';
import { DomainError } from '../../domain/shared/errors.ts';
import { exchangesDocument, exchangesDocumentSchema } from '../exchange/declared.ts';
import {
  ACCOUNT_WRITE_SCOPE,
  accountActionResultSchema,
  accountSection,
  accountSectionSchema,
  PEER_STATUS_SCOPE,
  peerBadRequest,
  peerJsonBody,
} from './account-section.ts';
import { checkPeerService, requirePeerService } from './auth.ts';
import { recordAuditBy } from './audited.ts';
import { personActor } from '../commands/audit.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';

/** The product name peer documents carry. */
export const PRODUCT = 'svc';

/** The signed-in person an account-section write was minted for; 403 for any other caller. */
function accountWriter(c: Context<AppEnv>): string {
  const caller = c.get('principal');
  if (caller?.tokenUse === 'service' && caller.scopes?.includes(PEER_STATUS_SCOPE))
    throw new DomainError('forbidden', 403, 'the peer status scope may not write account sections');
  const principal = checkPeerService(caller, ACCOUNT_WRITE_SCOPE);
  if (principal.actorSubject === undefined) throw new DomainError('forbidden', 403, 'an account-section write must carry the signed-in person as actor_sub');
  return principal.actorSubject;
}

/** What the peer routes read of the service (adapters/http/deps.ts). */
export type PeerRouteDeps = Pick<HttpDeps, 'audit' | 'chatCommand' | 'chatLinks' | 'db' | 'waitFor'>;

/** The `/peer/v1` routes; mount behind `authenticate()` (each checks its own caller). */
export function peerRoutes(deps: PeerRouteDeps) {
  const section = accountSection({ db: deps.db, links: deps.chatLinks, product: PRODUCT, command: deps.chatCommand });
  return new Hono<AppEnv>()
    .get(
      '/peer/v1/exchanges',
      describeRoute({
        summary: 'Audiences and scopes this service requests from the workload exchange',
        tags: ['peer'],
        responses: { 200: jsonAnswer(exchangesDocumentSchema, 'Each audience with its sorted scopes') },
      }),
      requirePeerService(PEER_STATUS_SCOPE),
      (c) => {
        c.header('cache-control', 'no-store');
        return c.json(exchangesDocument(PRODUCT));
      },
    )
    .get(
      '/peer/v1/account-section',
      describeRoute({
        summary: "A user's account section: the chat identity link",
        tags: ['peer'],
        responses: { 200: jsonAnswer(accountSectionSchema, 'The section') },
      }),
      requirePeerService(PEER_STATUS_SCOPE),
      async (c) => {
        const users = c.req.queries('user') ?? [];
        const user = users[0]?.trim() ?? '';
        if (users.length !== 1 || user === '' || user.length > 200) throw peerBadRequest('query parameter user must be given once, an identity subject');
        c.header('cache-control', 'no-store');
        return c.json(await section.read(user));
      },
    )
    .post(
      '/peer/v1/account-section',
      describeRoute({
        summary: 'Link or unlink the signed-in person’s chat identity; link answers a one-time command',
        tags: ['peer'],
        responses: { 200: jsonAnswer(accountActionResultSchema, 'The section after the action, with the one-time command after link') },
      }),
      async (c) => {
        const actor = accountWriter(c);
        const body = await peerJsonBody(c.req);
        const { user, result } = await section.act(actor, body);
        if (!('notice' in result)) {
          await recordAuditBy(deps, personActor(user, 'identity'), {
            action: 'chat.identity_unlink',
            target: { type: 'user', id: user.id },
            detail: { provider: 'chat_a', from: 'account_section' },
          });
        }
        c.header('cache-control', 'no-store');
        return c.json(result);
      },
    );
}
