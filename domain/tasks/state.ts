/**
 * Task state rebuilt from its events: what the task commands decide against.
 */
import type { TaskEvent } from './events.ts';

/** Task statuses (fixed in this build, docs/configuration.md "Tasks"); the first is the initial one. */
export const taskStatuses = ['open', 'in_progress', 'done'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

export type TaskState =
  | { exists: false }
  | {
      exists: true;
      id: string;
      caseId: string;
      title: string;
      description: string | null;
      status: string;
      assigneeId: string | null;
      dueAt: string | null;
      /** Comments by id: their author and whether they were deleted. */
      comments: Readonly<Record<string, { authorId: string | null; deleted: boolean }>>;
    };

export const initialTaskState = (): TaskState => ({ exists: false });

export function evolveTask(state: TaskState, event: TaskEvent): TaskState {
  if (event.type === 'task.created') {
    if (state.exists) return state;
    const d = event.data;
    return {
      exists: true,
      id: d.task_id,
      caseId: d.case_id,
      title: d.title,
      description: d.description,
      status: d.status,
      assigneeId: d.assignee_id,
      dueAt: d.due_at,
      comments: {},
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'task.updated': {
      const c = event.data.changes;
      return {
        ...state,
        title: c.title ?? state.title,
        description: c.description !== undefined ? c.description : state.description,
        status: c.status ?? state.status,
        dueAt: c.due_at !== undefined ? c.due_at : state.dueAt,
        assigneeId: c.assignee_id !== undefined ? c.assignee_id : state.assigneeId,
      };
    }
    case 'task.assigned':
      return { ...state, assigneeId: event.data.assignee_id };
    case 'task.moved':
      return { ...state, caseId: event.data.case_id };
    case 'task.comment_added':
      return { ...state, comments: { ...state.comments, [event.data.comment_id]: { authorId: event.data.author_id, deleted: false } } };
    case 'task.comment_deleted': {
      const comment = state.comments[event.data.comment_id];
      return comment ? { ...state, comments: { ...state.comments, [event.data.comment_id]: { ...comment, deleted: true } } } : state;
    }
    default:
      return state;
  }
}
