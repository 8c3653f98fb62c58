/**
 * Task events (SPEC.md "Case sub-resources": Task, Task comment; "Other case moves":
 * task assignment). A task is its own aggregate on stream `task-<id>`; every event
 * names the case it belongs to. Past tense, ids and timestamps (ISO 8601) in the data.
 */
import type { CommentMentions } from '../cases/mentions.ts';
import type { Event } from '../shared/messages.ts';

export type TaskCreated = Event<
  'task.created',
  {
    task_id: string;
    case_id: string;
    title: string;
    description: string | null;
    phase: string | null;
    position: number;
    status: string;
    /** The first assignee; a `task.assigned` follows in the same append when set. */
    assignee_id: string | null;
    due_at: string | null;
    /** User id of the creator (its email is in the event metadata). */
    created_by: string | null;
    at: string;
  }
>;
/** Field changes; `assignee_id: null` is an unassignment (an assignment is `task.assigned`). */
export type TaskChanges = {
  title?: string;
  description?: string | null;
  status?: string;
  due_at?: string | null;
  assignee_id?: null;
};
export type TaskUpdated = Event<'task.updated', { task_id: string; case_id: string; changes: TaskChanges; at: string }>;
/** The assignee was set to a user: the case timeline shows `task_assigned`, the user is notified. */
export type TaskAssigned = Event<
  'task.assigned',
  { task_id: string; case_id: string; assignee_id: string; assignee_email: string | null; previous_assignee_id: string | null; at: string }
>;
export type TaskCommentAdded = Event<
  'task.comment_added',
  {
    task_id: string;
    case_id: string;
    comment_id: string;
    body: string;
    author_id: string | null;
    author_email: string | null;
    mentions: CommentMentions;
    /** The task's assignee when the comment was made: notified once (SPEC.md "Cases" endpoint table). */
    assignee_id: string | null;
    /** False when the assignee could not see the case (then not notified); absent on events recorded before, meaning true. */
    assignee_notified?: boolean;
    at: string;
  }
>;
export type TaskCommentDeleted = Event<'task.comment_deleted', { task_id: string; case_id: string; comment_id: string; deleted_by: string | null; at: string }>;

/** The task, with its comments, now belongs to `case_id`: a case merge moved it from `from_case_id` (issue 50). */
export type TaskMoved = Event<'task.moved', { task_id: string; case_id: string; from_case_id: string; at: string }>;

export type TaskEvent = TaskCreated | TaskUpdated | TaskAssigned | TaskCommentAdded | TaskCommentDeleted | TaskMoved;

export const taskEventTypes: ReadonlySet<string> = new Set<TaskEvent['type']>([
  'task.created',
  'task.updated',
  'task.assigned',
  'task.comment_added',
  'task.comment_deleted',
  'task.moved',
]);
