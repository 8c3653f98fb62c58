/**
 * Task queries (SPEC.md "Cases": `/cases/<case_id>/tasks` and their comments). Plain
 * functions taking `db` first; the caller has checked that the case is visible.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';

/** The tasks of a case in board order: position, then creation (positions of concurrent creates may tie). */
export async function caseTasks(db: Kysely<Database>, caseId: string) {
  return db.selectFrom('case_tasks').selectAll().where('case_id', '=', caseId).orderBy('position').orderBy('created_at').orderBy('id').execute();
}

/** One task of the case, or undefined when absent or of another case. */
export async function findCaseTask(db: Kysely<Database>, caseId: string, taskId: string) {
  return db.selectFrom('case_tasks').selectAll().where('id', '=', taskId).where('case_id', '=', caseId).executeTakeFirst();
}

/** The position after the case's highest: where a new task goes. */
export async function nextTaskPosition(db: Kysely<Database>, caseId: string): Promise<number> {
  const row = await db
    .selectFrom('case_tasks')
    .select((eb) => eb.fn.max('position').as('top'))
    .where('case_id', '=', caseId)
    .executeTakeFirst();
  return row?.top === null || row?.top === undefined ? 1 : Number(row.top) + 1;
}

/** The live (not deleted) comments of a task, oldest first. */
export async function taskComments(db: Kysely<Database>, taskId: string) {
  return db
    .selectFrom('case_task_comments')
    .selectAll()
    .where('task_id', '=', taskId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** How many tasks of the case are not `done` (the war-room's open-task count). */
export async function openTaskCount(db: Kysely<Database>, caseId: string): Promise<number> {
  const row = await db
    .selectFrom('case_tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('case_id', '=', caseId)
    .where('status', '!=', 'done')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
