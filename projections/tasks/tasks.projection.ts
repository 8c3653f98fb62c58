/**
 * Task read models: `case_tasks`, `case_task_comments`, and the task events' rows in
 * the owning case's `case_timeline` (kind `task_<event>`, e.g. `task_assigned`, SPEC.md
 * "Other case moves"; `task_moved` on the case a merge moved the task to). `case_timeline` is keyed by event position, so these rows never
 * collide with the cases projection's.
 *
 * Per batch, as cases.projection.ts: one read of the touched task rows, a pure fold
 * (task-row.ts), one upsert guarded by the row version, one multi-row insert per child
 * table. Re-applying an event changes nothing.
 */
import type { Insertable, Kysely } from 'kysely';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import { taskEventTypes, type TaskEvent } from '../../domain/tasks/index.ts';
import type { CaseTaskCommentsTable, CaseTasksTable, CaseTimelineTable, Database } from '../database.ts';
import type { Projection } from '../projector.ts';
import { insertTimeline, timelineRow } from '../cases/timeline.ts';
import { evolveTaskRow, type TaskRecord } from './task-row.ts';

/** `task.comment_added` is shown as `task_comment_added` on the case timeline. */
const timelineKind = (type: string) => type.replace('.', '_');

const taskColumns = [
  'case_id',
  'title',
  'description',
  'phase',
  'position',
  'status',
  'assignee_id',
  'assignee_email',
  'due_at',
  'created_by',
  'created_at',
  'updated_at',
  'version',
] as const satisfies readonly (keyof CaseTasksTable)[];

export const tasksProjection: Projection = {
  name: 'tasks',
  apply: async (trx, batch) => {
    const events = batch.filter((e) => taskEventTypes.has(e.type));
    if (events.length === 0) return;
    const taskIdOf = (e: RecordedEvent) => (e.data as { task_id: string }).task_id;

    const rows = await loadTasks(trx, [...new Set(events.map(taskIdOf))]);
    const changed = new Set<string>();
    const timeline: Insertable<CaseTimelineTable>[] = [];
    const comments: Insertable<CaseTaskCommentsTable>[] = [];
    const deletions: { comment_id: string; at: string }[] = [];
    const moves: { task_id: string; case_id: string }[] = [];
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as TaskEvent;
      const taskId = taskIdOf(recorded);
      const before = rows.get(taskId);
      const after = evolveTaskRow(before, event, recorded.streamVersion);
      if (after && after !== before) {
        rows.set(taskId, after);
        changed.add(taskId);
      }
      const { case_id: caseId, ...payload } = event.data as { case_id: string } & Record<string, unknown>;
      timeline.push(timelineRow(recorded, caseId, timelineKind(recorded.type), payload));
      if (event.type === 'task.comment_added') {
        const d = event.data;
        comments.push({
          id: d.comment_id,
          task_id: d.task_id,
          case_id: d.case_id,
          body: d.body,
          author_id: d.author_id,
          author_email: d.author_email,
          created_at: d.at,
          deleted_at: null,
        });
      }
      if (event.type === 'task.comment_deleted') deletions.push(event.data);
      if (event.type === 'task.moved') moves.push(event.data);
    }

    const upserts = [...changed].flatMap((id) => {
      const row = rows.get(id);
      return row ? [row as Insertable<CaseTasksTable>] : [];
    });
    if (upserts.length > 0) {
      await trx
        .insertInto('case_tasks')
        .values(upserts)
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet((eb) => Object.fromEntries(taskColumns.map((c) => [c, eb.ref(`excluded.${c}`)])))
            .where('case_tasks.version', '<', (eb) => eb.ref('excluded.version')),
        )
        .execute();
    }
    await insertTimeline(trx, timeline);
    if (comments.length > 0) {
      await trx
        .insertInto('case_task_comments')
        .values(comments)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }
    // After the comments' insert, in order: a task's comments follow it to each case it moves to.
    for (const m of moves) {
      await trx.updateTable('case_task_comments').set({ case_id: m.case_id }).where('task_id', '=', m.task_id).execute();
    }
    for (const d of deletions) {
      await trx.updateTable('case_task_comments').set({ deleted_at: d.at }).where('id', '=', d.comment_id).where('deleted_at', 'is', null).execute();
    }
  },
};

async function loadTasks(trx: Kysely<Database>, ids: string[]): Promise<Map<string, TaskRecord>> {
  const found = await trx.selectFrom('case_tasks').selectAll().where('id', 'in', ids).execute();
  return new Map(found.map((r) => [r.id, r]));
}
