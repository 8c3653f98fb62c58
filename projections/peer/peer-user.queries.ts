/**
 * The person a peer request names by `user=<subject>` (SPEC.md "Peer endpoints"): matched
 * only against the user row's identity subject, and only while the row is active.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';

/** An active user as peer routes read it: id, email, identity subject and the grants of its last accepted token. */
export type PeerUser = { id: string; email: string; subject: string; grants: { team: string | null; role: string }[] };

/** The active user whose identity subject is `subject`, or undefined (unknown or disabled). */
export async function activeUserBySubject(db: Kysely<Database>, subject: string): Promise<PeerUser | undefined> {
  return db.selectFrom('users').select(['id', 'email', 'subject', 'grants']).where('subject', '=', subject).where('active', '=', true).executeTakeFirst();
}
