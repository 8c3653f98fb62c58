/**
 * `@<email>` mentions in comment text (SPEC.md "Case sub-resources": a mention
 * notifies that user in-app) and the outcome a comment records for them.
 */

/** Most mentions one comment resolves; more are reported as not notified. */
export const MAX_MENTIONS = 50;

const mention = /(^|[^A-Za-z0-9._%+-])@([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})/g;

/** The mentioned addresses, lower-cased, de-duplicated, in order of first appearance. */
export function mentionedEmails(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(mention)) {
    const email = match[2]?.toLowerCase();
    if (email) seen.add(email);
  }
  return [...seen];
}

/** Why a mentioned, known user was not notified. */
export type NotNotifiedReason = 'inactive' | 'no_access' | 'self' | 'too_many_mentions';

/**
 * What became of a comment's mentions: users notified, addresses that match no user,
 * and known users left out with the reason.
 */
export type CommentMentions = {
  notified: { user_id: string; email: string }[];
  unresolved: string[];
  not_notified: { email: string; reason: NotNotifiedReason }[];
};

export const noMentions = (): CommentMentions => ({ notified: [], unresolved: [], not_notified: [] });
