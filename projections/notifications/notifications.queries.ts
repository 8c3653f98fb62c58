/**
 * Notification queries (SPEC.md "Live updates and inbox": `GET /notifications`,
 * `POST /notifications/read`). Marking read is the one write here: it is the user's
 * own inbox state, not a fact about a case, so it is not an event.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';

/** A user's notifications, newest first. */
export async function listNotifications(db: Kysely<Database>, userId: string, f: { unreadOnly: boolean; limit: number }) {
  let q = db.selectFrom('notifications').selectAll().where('user_id', '=', userId);
  if (f.unreadOnly) q = q.where('read_at', 'is', null);
  return q.orderBy('at', 'desc').orderBy('event_position', 'desc').limit(f.limit).execute();
}

/** Marks the user's notifications read (`ids`, or every unread one); returns how many changed. */
export async function markNotificationsRead(db: Kysely<Database>, userId: string, ids: string[] | null, at: Date): Promise<number> {
  let q = db.updateTable('notifications').set({ read_at: at }).where('user_id', '=', userId).where('read_at', 'is', null);
  if (ids !== null) {
    if (ids.length === 0) return 0;
    q = q.where('id', 'in', ids);
  }
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How many of the user's notifications are unread. */
export async function countUnread(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
