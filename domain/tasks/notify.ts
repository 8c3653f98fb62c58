/**
 * Who a task event notifies in-app (SPEC.md "Notification (in-app)": task assignment
 * and task comments). Pure, so the notifications projection only writes rows.
 */
import type { TaskEvent } from './events.ts';

export type TaskNotice = { userId: string; kind: 'task_assigned' | 'task_comment' | 'mention' };

/**
 * `task.assigned` notifies the new assignee. A comment notifies its assignee once
 * (`task_comment`, also when mentioned) unless the assignee wrote it or could not see the
 * case (`assignee_notified: false`), and every other notified mention (`mention`). Other events notify nobody.
 */
export function taskNotices(event: TaskEvent): TaskNotice[] {
  if (event.type === 'task.assigned') return [{ userId: event.data.assignee_id, kind: 'task_assigned' }];
  if (event.type !== 'task.comment_added') return [];
  const d = event.data;
  const notices: TaskNotice[] = [];
  if (d.assignee_id !== null && d.assignee_id !== d.author_id && d.assignee_notified !== false) notices.push({ userId: d.assignee_id, kind: 'task_comment' });
  for (const n of d.mentions.notified) {
    if (!notices.some((x) => x.userId === n.user_id)) notices.push({ userId: n.user_id, kind: 'mention' });
  }
  return notices;
}
