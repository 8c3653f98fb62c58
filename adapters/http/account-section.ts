/**
 * The account section of the suite shell (SPEC.md "Peer endpoints"): where a signed-in
 * person links their chat_a identity, so approval buttons in chat act as them.
 *
 * - `GET /peer/v1/account-section?user=<subject>` (identity's status token): `{product,
 *   title, description, fields}`; one field for the chat identity offering `link` or
 *   `unlink`; `fields` empty when no active user has that identity subject. Never shows a code.
 * - `POST /peer/v1/account-section {action}` (a service token with scope
 *   `svc:peer:account:write` and a signed `actor_sub`, never one holding the status
 *   scope): `link` answers `{product, section, notice: {code, expires_at, message}}`, where
 *   `code` is the one-time slash command to type in chat; `unlink` removes the link and
 *   any pending code. An action the section does not offer now is 400; a subject with no
 *   active user is 404.
 *
 * Bad input answers 400 in the error shape `{detail, code: 'peer_bad_request', params}`.
 */
import type { Kysely } from 'kysely';
import * as v from 'valibot';
import { DomainError, notFound } from '../../domain/shared/errors.ts';
import type { Database } from '../../projections/database.ts';
import { activeUserBySubject } from '../../projections/peer/peer-user.queries.ts';
import type { ChatIdentityLinks } from '../chat/identity-links.ts';
import { isJsonMediaType } from './validation.ts';

/** The peer status scope; a token holding it may not write account sections. */
export const PEER_STATUS_SCOPE = 'svc:peer:status:read';
export const ACCOUNT_WRITE_SCOPE = 'svc:peer:account:write';

const accountAction = v.picklist(['link', 'unlink']);

/** The account section `GET /peer/v1/account-section` answers: one field per linkable identity, each offering the actions it allows now. */
export const accountSectionSchema = v.strictObject({
  product: v.string(),
  title: v.string(),
  description: v.string(),
  fields: v.array(v.strictObject({ id: v.string(), label: v.string(), value: v.string(), actions: v.array(accountAction) })),
});
export type AccountSection = v.InferOutput<typeof accountSectionSchema>;

/** What `POST /peer/v1/account-section` answers: the section after the action; `link` adds the one-time command in `notice`. */
export const accountActionResultSchema = v.union([
  v.strictObject({ product: v.string(), section: accountSectionSchema }),
  v.strictObject({
    product: v.string(),
    section: accountSectionSchema,
    notice: v.strictObject({ code: v.string(), expires_at: v.string(), message: v.string() }),
  }),
]);
type AccountActionResult = v.InferOutput<typeof accountActionResultSchema>;

export const peerBadRequest = (detail: string, params: Record<string, unknown> = {}) => new DomainError('peer_bad_request', 400, detail, params);

/**
 * A peer route's JSON body, unchecked. A body not sent as JSON (`application/json` or
 * `+json`, as API routes take it), even one whose text parses, or one that does not parse
 * is 400 `peer_bad_request`: the peer error shape (SPEC.md "Peer endpoints": "anything else 400").
 */
export async function peerJsonBody(req: { header: (name: string) => string | undefined; json: () => Promise<unknown> }): Promise<unknown> {
  if (!isJsonMediaType(req.header('content-type'))) throw peerBadRequest('body must be application/json');
  try {
    return await req.json();
  } catch {
    throw peerBadRequest('body must be JSON');
  }
}

const actionBody = v.strictObject({ action: accountAction });

/** The account section over the user rows and chat links; `command` is the slash command people type. */
export function accountSection(deps: { db: Kysely<Database>; links: ChatIdentityLinks; product: string; command: string }) {
  const document = async (userId: string | null): Promise<AccountSection> => {
    const base = {
      product: deps.product,
      title: 'Chat',
      description: `Link your chat account to decide runbook approval gates from chat. Linking gives you a one-time command to type in chat: ${deps.command} link <code>.`,
    };
    if (userId === null) return { ...base, fields: [] };
    const link = await deps.links.linkOf(userId, 'chat_a');
    const value =
      link === null ? 'Not linked' : `Linked as ${link.chatUserName ?? link.chatUserId} (workspace ${link.workspaceId}) since ${link.linkedAt.toISOString()}`;
    return { ...base, fields: [{ id: 'chat_a', label: 'Chat identity', value, actions: [link === null ? 'link' : 'unlink'] }] };
  };

  return {
    /** The section of the active user with identity subject `subject` (empty fields when none). */
    async read(subject: string): Promise<AccountSection> {
      return document((await activeUserBySubject(deps.db, subject))?.id ?? null);
    },

    /**
     * Performs `body.action` for the active user with subject `actorSubject`.
     * @throws DomainError 400 `peer_bad_request` for a body that is not `{action}` or an action not offered now, 404 `user_not_found`.
     */
    async act(actorSubject: string, body: unknown) {
      const user = await activeUserBySubject(deps.db, actorSubject);
      if (!user) throw notFound('user_not_found', 'no active user has that identity subject');
      const parsed = v.safeParse(actionBody, body);
      if (!parsed.success) throw peerBadRequest("body must be {action: 'link' | 'unlink'}");
      const { action } = parsed.output;
      const offered = (await document(user.id)).fields[0]?.actions ?? [];
      if (!offered.includes(action)) throw peerBadRequest(`the section does not offer '${action}' now`, { offered });
      if (action === 'unlink') {
        await deps.links.unlinkUser(user.id, 'chat_a');
        return { user, result: { product: deps.product, section: await document(user.id) } satisfies AccountActionResult };
      }
      const { code, expiresAt, ttlSeconds } = await deps.links.issueCode(user.id);
      const minutes = Math.max(1, Math.round(ttlSeconds / 60));
      return {
        user,
        result: {
          product: deps.product,
          section: await document(user.id),
          notice: {
            code: `${deps.command} link ${code}`,
            expires_at: expiresAt.toISOString(),
            message: `Type this command in chat within ${minutes} minutes. It works once.`,
          },
        } satisfies AccountActionResult,
      };
    },
  };
}
