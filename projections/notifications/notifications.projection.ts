/**
 * In-app notifications (SPEC.md "Notification (in-app)"): one row per notified user
 * of a comment's mentions. `href` is stored below the public prefix, which the API adds.
 * Re-applying an event inserts nothing twice (unique event position and user).
 */
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { CaseEvent } from '../../domain/cases/index.ts';
import { taskEventTypes } from '../../domain/tasks/index.ts';
import type { NotificationsTable } from '../database.ts';
import type { Projection } from '../projector.ts';
import { casesProjection } from '../cases/cases.projection.ts';

type CommentAdded = Extract<CaseEvent, { type: 'case.comment_added' }>;

/**
 * Every event type a notification row can come from: case comments here, task events in
 * task-notifications.projection.ts. A batch with none of them wrote no notification, so
 * the live publisher need not look for any.
 */
export const notifyingEventTypes: ReadonlySet<string> = new Set(['case.comment_added', ...taskEventTypes]);

export const notificationsProjection: Projection = {
  name: 'notifications',
  after: [casesProjection],
  apply: async (trx, batch) => {
    const mentioning = batch.filter((e) => e.type === 'case.comment_added' && ((e.data as CommentAdded['data']).mentions?.notified.length ?? 0) > 0);
    if (mentioning.length === 0) return;
    const caseIds = [...new Set(mentioning.map((e) => (e.data as CommentAdded['data']).case_id))];
    const keys = new Map((await trx.selectFrom('cases').select(['id', 'key']).where('id', 'in', caseIds).execute()).map((r) => [r.id, r.key]));
    const rows: Insertable<NotificationsTable>[] = mentioning.flatMap((e) => {
      const d = e.data as CommentAdded['data'];
      const key = keys.get(d.case_id) ?? d.case_id;
      return (d.mentions?.notified ?? []).map((n) => ({
        id: randomUUID(),
        user_id: n.user_id,
        kind: 'mention',
        severity: 'info',
        title: `${d.author_email ?? 'Someone'} mentioned you in ${key}`,
        context: JSON.stringify({ case_id: d.case_id, case_key: key, comment_id: d.comment_id }),
        href: `/cases/${d.case_id}`,
        at: d.at,
        read_at: null,
        event_position: e.globalPosition,
      }));
    });
    await trx
      .insertInto('notifications')
      .values(rows)
      .onConflict((oc) => oc.columns(['event_position', 'user_id']).doNothing())
      .execute();
  },
};
