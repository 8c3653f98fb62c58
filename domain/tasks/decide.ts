/**
 * Task decisions: one small function per command (SPEC.md "Case sub-resources",
 * "Other case moves": task assignment).
 *
 * Errors: `task_not_found` (404) for a task that does not exist or belongs to another
 * case, `task_exists` (409) for creating twice, `task_status_invalid` (422) for a status
 * outside `taskStatuses`, `comment_not_found` (404) and `forbidden` (403) for deleting a
 * comment that is gone or neither the actor's nor deletable by a team admin.
 */
import { conflict, DomainError, notFound, unprocessable } from '../shared/errors.ts';
import { assertNever } from '../shared/messages.ts';
import type { Assignee, TaskCommand } from './commands.ts';
import type { TaskChanges, TaskEvent } from './events.ts';
import { taskStatuses, type TaskState } from './state.ts';

type Existing = Extract<TaskState, { exists: true }>;
type Cmd<T extends TaskCommand['type']> = Extract<TaskCommand, { type: T }>;

export function decideTask(command: TaskCommand, state: TaskState): TaskEvent[] {
  if (command.type === 'create_task') return createTask(command, state);
  if (!state.exists || state.caseId !== command.caseId) throw notFound('task_not_found', 'task not found', { case_id: command.caseId });
  switch (command.type) {
    case 'update_task':
      return updateTask(command, state);
    case 'add_comment':
      return addComment(command, state);
    case 'delete_comment':
      return deleteComment(command, state);
    case 'move_task':
      return command.toCaseId === state.caseId
        ? []
        : [{ type: 'task.moved', data: { task_id: state.id, case_id: command.toCaseId, from_case_id: state.caseId, at: command.now } }];
    default:
      return assertNever(command);
  }
}

function checkStatus(status: string): void {
  if (!(taskStatuses as readonly string[]).includes(status)) {
    throw unprocessable('task_status_invalid', `task status must be one of ${taskStatuses.join(', ')}`, { status });
  }
}

const assigned = (taskId: string, caseId: string, to: Assignee, previous: string | null, at: string): TaskEvent => ({
  type: 'task.assigned',
  data: { task_id: taskId, case_id: caseId, assignee_id: to.id, assignee_email: to.email, previous_assignee_id: previous, at },
});

function createTask(c: Cmd<'create_task'>, state: TaskState): TaskEvent[] {
  if (state.exists) throw conflict('task_exists', 'task already exists', { task_id: state.id });
  checkStatus(c.status);
  const events: TaskEvent[] = [
    {
      type: 'task.created',
      data: {
        task_id: c.taskId,
        case_id: c.caseId,
        title: c.title,
        description: c.description,
        phase: c.phase,
        position: c.position,
        status: c.status,
        assignee_id: c.assignee?.id ?? null,
        due_at: c.dueAt,
        created_by: c.actor.userId,
        at: c.now,
      },
    },
  ];
  if (c.assignee) events.push(assigned(c.taskId, c.caseId, c.assignee, null, c.now));
  return events;
}

/**
 * Records only what really changes: `task.updated` for fields (an unassignment is
 * `assignee_id: null` there) and `task.assigned` when the assignee becomes another user.
 */
function updateTask(c: Cmd<'update_task'>, s: Existing): TaskEvent[] {
  const changes: TaskChanges = {};
  if (c.title !== undefined && c.title !== s.title) changes.title = c.title;
  if (c.description !== undefined && c.description !== s.description) changes.description = c.description;
  if (c.status !== undefined && c.status !== s.status) {
    checkStatus(c.status);
    changes.status = c.status;
  }
  if (c.dueAt !== undefined && c.dueAt !== s.dueAt) changes.due_at = c.dueAt;
  if (c.assignee === null && s.assigneeId !== null) changes.assignee_id = null;
  const events: TaskEvent[] = [];
  if (Object.keys(changes).length > 0) events.push({ type: 'task.updated', data: { task_id: s.id, case_id: s.caseId, changes, at: c.now } });
  if (c.assignee && c.assignee.id !== s.assigneeId) events.push(assigned(s.id, s.caseId, c.assignee, s.assigneeId, c.now));
  return events;
}

function addComment(c: Cmd<'add_comment'>, s: Existing): TaskEvent[] {
  return [
    {
      type: 'task.comment_added',
      data: {
        task_id: s.id,
        case_id: s.caseId,
        comment_id: c.commentId,
        body: c.body,
        author_id: c.actor.userId,
        author_email: c.actor.email,
        mentions: c.mentions,
        assignee_id: s.assigneeId,
        assignee_notified: s.assigneeId !== null && !c.noAccess.includes(s.assigneeId),
        at: c.now,
      },
    },
  ];
}

/** Soft delete by the author or an admin of the case's team; a deleted or unknown comment is 404. */
function deleteComment(c: Cmd<'delete_comment'>, s: Existing): TaskEvent[] {
  const comment = s.comments[c.commentId];
  if (!comment || comment.deleted) throw notFound('comment_not_found', 'comment not found', { comment_id: c.commentId });
  const isAuthor = comment.authorId !== null && comment.authorId === c.actor.userId;
  if (!isAuthor && !c.actorIsAdmin) {
    throw new DomainError('forbidden', 403, 'only the author or an admin of the case team may delete a task comment', { comment_id: c.commentId });
  }
  return [
    {
      type: 'task.comment_deleted',
      data: { task_id: s.id, case_id: s.caseId, comment_id: c.commentId, deleted_by: c.actor.email ?? c.actor.userId, at: c.now },
    },
  ];
}
