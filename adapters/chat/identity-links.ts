/**
 * Links between a chat identity and a user (SPEC.md "Peer endpoints", account section;
 * "Webhook intake": the chat_a slash command links an identity). A signed-in person asks
 * for a one-time code (`issueCode`), types it after the slash command, and the chat
 * product's signed request redeems it (`redeem`). Codes are stored as sha256 digests,
 * expire, and are spent by the first redemption; a user has at most one pending code and
 * one linked identity per chat product, and a chat identity belongs to one user.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { formatLinkCode, LINK_CODE_LENGTH, normalizeLinkCode } from '../../domain/chat/link-code.ts';
import type { Database } from '../../projections/database.ts';
import type { Grant } from '../identity/principal.ts';

/** A chat product user, as its signed request names them. */
export type ChatIdentity = { provider: 'chat_a'; workspaceId: string; chatUserId: string; chatUserName: string | null };

/** The active user a chat identity is linked to, with the grants of their last accepted token. */
export type LinkedUser = { id: string; subject: string; email: string; name: string | null; grants: Grant[] };

export type ChatIdentityLinks = ReturnType<typeof createChatIdentityLinks>;

const digest = (canonicalCode: string) => createHash('sha256').update(canonicalCode).digest('hex');

/**
 * The link store over `db`; `codeTtlSeconds` is how long a code can be redeemed
 * (SVC_CHAT_LINK_CODE_TTL_S), `now` the clock.
 */
export function createChatIdentityLinks(db: Kysely<Database>, options: { codeTtlSeconds: number; now: () => Date }) {
  return {
    /** A new code for `userId`, replacing any pending one; shown once, stored as a digest. */
    async issueCode(userId: string): Promise<{ code: string; expiresAt: Date; ttlSeconds: number }> {
      const code = formatLinkCode(randomBytes(LINK_CODE_LENGTH));
      const at = options.now();
      const expiresAt = new Date(at.getTime() + options.codeTtlSeconds * 1000);
      const row = { user_id: userId, code_digest: digest(normalizeLinkCode(code) ?? ''), expires_at: expiresAt, created_at: at };
      await db
        .insertInto('chat_link_codes')
        .values(row)
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ code_digest: row.code_digest, expires_at: expiresAt, created_at: at }))
        .execute();
      return { code, expiresAt, ttlSeconds: options.codeTtlSeconds };
    },

    /**
     * Spends `canonicalCode` (normalized) and links `identity` to its user, replacing the
     * user's earlier link and any other user's link of this identity. Null when the code
     * is unknown, spent or expired, or its user is no longer active (nothing changes then).
     */
    async redeem(canonicalCode: string, identity: ChatIdentity): Promise<LinkedUser | null> {
      return db.transaction().execute(async (tx) => {
        const at = options.now();
        const spent = await tx
          .deleteFrom('chat_link_codes')
          .where('code_digest', '=', digest(canonicalCode))
          .returning(['user_id', 'expires_at'])
          .executeTakeFirst();
        if (!spent || new Date(spent.expires_at) <= at) return null;
        const user = await tx
          .selectFrom('users')
          .select(['id', 'subject', 'email', 'name', 'grants'])
          .where('id', '=', spent.user_id)
          .where('active', '=', true)
          .executeTakeFirst();
        if (!user) return null;
        await tx
          .deleteFrom('chat_identity_links')
          .where('provider', '=', identity.provider)
          .where((eb) =>
            eb.or([eb('user_id', '=', user.id), eb.and([eb('workspace_id', '=', identity.workspaceId), eb('chat_user_id', '=', identity.chatUserId)])]),
          )
          .execute();
        await tx
          .insertInto('chat_identity_links')
          .values({
            provider: identity.provider,
            workspace_id: identity.workspaceId,
            chat_user_id: identity.chatUserId,
            user_id: user.id,
            chat_user_name: identity.chatUserName,
            linked_at: at,
          })
          .execute();
        return { ...user, grants: user.grants as Grant[] };
      });
    },

    /** Removes the link of `identity`; the user it pointed to, or null when there was none. */
    async unlinkIdentity(identity: ChatIdentity): Promise<Omit<LinkedUser, 'grants' | 'name'> | null> {
      const removed = await db
        .deleteFrom('chat_identity_links')
        .where('provider', '=', identity.provider)
        .where('workspace_id', '=', identity.workspaceId)
        .where('chat_user_id', '=', identity.chatUserId)
        .returning('user_id')
        .executeTakeFirst();
      if (!removed) return null;
      return (await db.selectFrom('users').select(['id', 'subject', 'email']).where('id', '=', removed.user_id).executeTakeFirst()) ?? null;
    },

    /** Removes `userId`'s link to `provider` and any pending code; whether a link existed. */
    async unlinkUser(userId: string, provider: ChatIdentity['provider']): Promise<boolean> {
      await db.deleteFrom('chat_link_codes').where('user_id', '=', userId).execute();
      const removed = await db.deleteFrom('chat_identity_links').where('provider', '=', provider).where('user_id', '=', userId).executeTakeFirst();
      return Number(removed.numDeletedRows) > 0;
    },

    /** `userId`'s linked identity on `provider`, or null. */
    async linkOf(userId: string, provider: ChatIdentity['provider']) {
      const row = await db.selectFrom('chat_identity_links').selectAll().where('provider', '=', provider).where('user_id', '=', userId).executeTakeFirst();
      return row ? { workspaceId: row.workspace_id, chatUserId: row.chat_user_id, chatUserName: row.chat_user_name, linkedAt: new Date(row.linked_at) } : null;
    },

    /** The active user `identity` is linked to, or null. */
    async userOf(identity: ChatIdentity): Promise<LinkedUser | null> {
      const user = await db
        .selectFrom('chat_identity_links as l')
        .innerJoin('users as u', 'u.id', 'l.user_id')
        .select(['u.id', 'u.subject', 'u.email', 'u.name', 'u.grants'])
        .where('l.provider', '=', identity.provider)
        .where('l.workspace_id', '=', identity.workspaceId)
        .where('l.chat_user_id', '=', identity.chatUserId)
        .where('u.active', '=', true)
        .executeTakeFirst();
      return user ? { ...user, grants: user.grants as Grant[] } : null;
    },
  };
}
