/** Who task events notify (SPEC.md "Notification (in-app)"; "Cases": the assignee is notified once per comment). */
import { describe, expect, it } from 'vitest';
import { noMentions, type CommentMentions } from '../../../domain/cases/mentions.ts';
import { taskNotices, type TaskEvent } from '../../../domain/tasks/index.ts';

const at = '2026-11-22T10:00:00.000Z';
const commented = (authorId: string | null, assigneeId: string | null, mentions: CommentMentions = noMentions()): TaskEvent => ({
  type: 'task.comment_added',
  data: { task_id: 't1', case_id: 'c1', comment_id: 'k1', body: 'x', author_id: authorId, author_email: null, mentions, assignee_id: assigneeId, at },
});
const mentioning = (...ids: string[]): CommentMentions => ({ ...noMentions(), notified: ids.map((id) => ({ user_id: id, email: `${id}@example.com` })) });

describe('taskNotices', () => {
  it('notifies the new assignee of an assignment', () => {
    const event: TaskEvent = {
      type: 'task.assigned',
      data: { task_id: 't1', case_id: 'c1', assignee_id: 'bob', assignee_email: null, previous_assignee_id: null, at },
    };
    expect(taskNotices(event)).toEqual([{ userId: 'bob', kind: 'task_assigned' }]);
  });

  it('does not notify an assignee the comment recorded as unable to see the case', () => {
    const event = commented('ana', 'bob');
    expect(taskNotices({ ...event, data: { ...event.data, assignee_notified: false } } as TaskEvent)).toEqual([]);
    expect(taskNotices({ ...event, data: { ...event.data, assignee_notified: true } } as TaskEvent)).toEqual([{ userId: 'bob', kind: 'task_comment' }]);
  });

  it('notifies the assignee once per comment, also when mentioned, and mentioned users as mentions', () => {
    expect(taskNotices(commented('ana', 'bob'))).toEqual([{ userId: 'bob', kind: 'task_comment' }]);
    expect(taskNotices(commented('ana', 'bob', mentioning('bob', 'cid')))).toEqual([
      { userId: 'bob', kind: 'task_comment' },
      { userId: 'cid', kind: 'mention' },
    ]);
  });

  it('never notifies the author as assignee, and nobody without assignee or mentions', () => {
    expect(taskNotices(commented('bob', 'bob'))).toEqual([]);
    expect(taskNotices(commented('ana', null))).toEqual([]);
    expect(taskNotices({ type: 'task.updated', data: { task_id: 't1', case_id: 'c1', changes: { status: 'done' }, at } })).toEqual([]);
  });
});
