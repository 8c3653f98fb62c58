/**
 * Resolves a comment's `@<email>` mentions against the user rows (SPEC.md "Case
 * sub-resources": a mention notifies that user in-app). A known user is notified when
 * active, not the author, and able to see the case with the grants of its last token;
 * otherwise it is reported under `not_notified` with the reason. Addresses that match
 * no user are `unresolved`.
 */
import { sql, type Kysely } from 'kysely';
import { MAX_MENTIONS, mentionedEmails, noMentions, type CommentMentions } from '../../domain/cases/mentions.ts';
import type { ScopedCase } from '../../projections/cases/case-scope.ts';
import type { Database } from '../../projections/database.ts';
import { userCanSeeCase } from '../identity/case-scope.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import type { Grant } from '../identity/principal.ts';

export async function resolveMentions(
  db: Kysely<Database>,
  text: string,
  theCase: ScopedCase,
  authorId: string | null,
  matrix: PermissionMatrix,
): Promise<CommentMentions> {
  const emails = mentionedEmails(text);
  if (emails.length === 0) return noMentions();
  const rows = await db.selectFrom('users').select(['id', 'email', 'active', 'grants']).where(sql<string>`lower(email)`, 'in', emails).execute();
  const byEmail = new Map(rows.map((r) => [r.email.toLowerCase(), r]));
  const outcome = noMentions();
  emails.forEach((email, index) => {
    const user = byEmail.get(email);
    if (!user) outcome.unresolved.push(email);
    else if (index >= MAX_MENTIONS) outcome.not_notified.push({ email, reason: 'too_many_mentions' });
    else if (user.id === authorId) outcome.not_notified.push({ email, reason: 'self' });
    else if (!user.active) outcome.not_notified.push({ email, reason: 'inactive' });
    else if (!userCanSeeCase({ id: user.id, grants: user.grants as Grant[] }, theCase, matrix)) {
      outcome.not_notified.push({ email, reason: 'no_access' });
    } else outcome.notified.push({ user_id: user.id, email: user.email });
  });
  return outcome;
}
