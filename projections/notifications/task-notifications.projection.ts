/**
 * In-app notifications of tasks (SPEC.md "Notification (in-app)": task assignment and
 * task comments): `task_assigned` to a new assignee, `task_comment` to a commented
 * task's assignee, `mention` to users a task comment mentions (who them is decided in
 * domain/tasks/notify.ts). Registered after the tasks projection, so the task row of
 * the same batch is there for its title. Re-applying an event inserts nothing twice
 * (unique event position and user).
 */
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import { taskEventTypes, taskNotices, type TaskEvent } from '../../domain/tasks/index.ts';
import type { NotificationsTable } from '../database.ts';
import type { Projection } from '../projector.ts';
import { casesProjection } from '../cases/cases.projection.ts';
import { tasksProjection } from '../tasks/tasks.projection.ts';

export const taskNotificationsProjection: Projection = {
  name: 'task-notifications',
  after: [casesProjection, tasksProjection],
  apply: async (trx, batch) => {
    const noticing = batch
      .filter((e) => taskEventTypes.has(e.type))
      .map((recorded) => ({ recorded, event: { type: recorded.type, data: recorded.data } as TaskEvent }))
      .map((x) => ({ ...x, notices: taskNotices(x.event) }))
      .filter((x) => x.notices.length > 0);
    if (noticing.length === 0) return;
    const caseIds = [...new Set(noticing.map((x) => x.event.data.case_id))];
    const taskIds = [...new Set(noticing.map((x) => x.event.data.task_id))];
    const keys = new Map((await trx.selectFrom('cases').select(['id', 'key']).where('id', 'in', caseIds).execute()).map((r) => [r.id, r.key]));
    const titles = new Map((await trx.selectFrom('case_tasks').select(['id', 'title']).where('id', 'in', taskIds).execute()).map((r) => [r.id, r.title]));
    const rows: Insertable<NotificationsTable>[] = noticing.flatMap(({ recorded, event, notices }) => {
      const d = event.data;
      const key = keys.get(d.case_id) ?? d.case_id;
      const task = `task "${titles.get(d.task_id) ?? d.task_id}"`;
      const who = (event.type === 'task.comment_added' ? event.data.author_email : recorded.metadata.actor?.email) ?? 'Someone';
      const commentId = event.type === 'task.comment_added' ? { comment_id: event.data.comment_id } : {};
      return notices.map((n) => ({
        id: randomUUID(),
        user_id: n.userId,
        kind: n.kind,
        severity: 'info',
        title:
          n.kind === 'task_assigned'
            ? `${who} assigned you ${task} in ${key}`
            : n.kind === 'task_comment'
              ? `${who} commented on ${task} in ${key}`
              : `${who} mentioned you in ${key} on ${task}`,
        context: JSON.stringify({ case_id: d.case_id, case_key: key, task_id: d.task_id, ...commentId }),
        href: `/cases/${d.case_id}`,
        at: d.at,
        read_at: null,
        event_position: recorded.globalPosition,
      }));
    });
    await trx
      .insertInto('notifications')
      .values(rows)
      .onConflict((oc) => oc.columns(['event_position', 'user_id']).doNothing())
      .execute();
  },
};
