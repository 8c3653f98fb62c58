/**
 * Case tasks and their comment threads (SPEC.md "Case sub-resources": Task, Task
 * comment). Read models of the `task-<id>` streams; rows carry the stream version
 * (tasks) or their id (comments), so re-projection changes nothing.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table case_tasks (
      id uuid primary key,
      case_id uuid not null,
      title text not null,
      description text,
      phase text,
      position integer not null,
      status text not null,
      assignee_id uuid,
      assignee_email text,
      due_at timestamptz,
      created_by uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      version integer not null
    )`,
  `create index case_tasks_case on case_tasks (case_id, position)`,
  `create table case_task_comments (
      id uuid primary key,
      task_id uuid not null,
      case_id uuid not null,
      body text not null,
      author_id uuid,
      author_email text,
      created_at timestamptz not null,
      deleted_at timestamptz
    )`,
  `create index case_task_comments_task on case_task_comments (task_id, created_at)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table case_task_comments').execute(db);
  await sql.raw('drop table case_tasks').execute(db);
}
