/**
 * The `case_tasks` row as a pure fold over task events (SPEC.md "Case sub-resources":
 * Task). An event at or below the row's version is already reflected and changes nothing.
 */
import type { Selectable } from 'kysely';
import type { TaskEvent } from '../../domain/tasks/index.ts';
import type { CaseTasksTable } from '../database.ts';
import type { LooseRow } from '../loose-row.ts';

export type TaskRecord = LooseRow<Selectable<CaseTasksTable>>;

/** The row after `event` (at stream `version`); `undefined` while the task was never created. */
export function evolveTaskRow(row: TaskRecord | undefined, event: TaskEvent, version: number): TaskRecord | undefined {
  if (event.type === 'task.created') {
    if (row) return row;
    const d = event.data;
    return {
      id: d.task_id,
      case_id: d.case_id,
      title: d.title,
      description: d.description,
      phase: d.phase,
      position: d.position,
      status: d.status,
      assignee_id: d.assignee_id,
      assignee_email: null,
      due_at: d.due_at,
      created_by: d.created_by,
      created_at: d.at,
      updated_at: d.at,
      version,
    };
  }
  if (!row || row.version >= version) return row;
  switch (event.type) {
    case 'task.updated': {
      const c = event.data.changes;
      return {
        ...row,
        title: c.title ?? row.title,
        description: c.description !== undefined ? c.description : row.description,
        status: c.status ?? row.status,
        due_at: c.due_at !== undefined ? c.due_at : row.due_at,
        ...(c.assignee_id === null && { assignee_id: null, assignee_email: null }),
        updated_at: event.data.at,
        version,
      };
    }
    case 'task.assigned':
      return { ...row, assignee_id: event.data.assignee_id, assignee_email: event.data.assignee_email, updated_at: event.data.at, version };
    case 'task.moved':
      return { ...row, case_id: event.data.case_id, updated_at: event.data.at, version };
    case 'task.comment_added':
    case 'task.comment_deleted':
      return { ...row, version };
    default:
      return row;
  }
}
