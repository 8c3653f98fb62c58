/**
 * Task command handlers (SPEC.md "Cases": `/cases/<case_id>/tasks` and their comments).
 * Routes validate the request and check the case (caseAccess) and the assignee; these
 * decide against the Task aggregate (`task-<id>`) and append. They return the last
 * position written so the caller can wait for projections.
 */
import type { Kysely } from 'kysely';
import type { Actor } from '../../domain/cases/index.ts';
import type { CommentMentions } from '../../domain/cases/mentions.ts';
import { streams } from '../../domain/shared/streams.ts';
import { taskDecider, type Assignee, type TaskCommand, type TaskState } from '../../domain/tasks/index.ts';
import type { ScopedCase } from '../../projections/cases/case-scope.ts';
import type { Database } from '../../projections/database.ts';
import { findCaseTask, nextTaskPosition } from '../../projections/tasks/tasks.queries.ts';
import type { EventStore } from '../event-store/port.ts';
import { userCanSeeCase } from '../identity/case-scope.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import type { Grant } from '../identity/principal.ts';
import { decideAndAppend } from './aggregate.ts';
import { actorMetadata } from './cases.ts';
import { resolveMentions } from './mentions.ts';

export type TaskCommandDeps = {
  store: EventStore;
  db: Kysely<Database>;
  ids: () => string;
  now: () => Date;
  /** The role matrix: who a mention may notify depends on the mentioned user's grants. */
  permissions: PermissionMatrix;
};

export type TaskResult = { taskId: string; position: number | null; state: TaskState };

export type NewTask = {
  title: string;
  description: string | null;
  phase: string | null;
  status: string;
  assignee: Assignee | null;
  dueAt: string | null;
};

/** `undefined` fields stay as they are; `null` clears `description`, `dueAt` and `assignee`. */
export type TaskPatch = { title?: string; description?: string | null; status?: string; dueAt?: string | null; assignee?: Assignee | null };

export function createTaskCommands(deps: TaskCommandDeps) {
  const on = async (taskId: string, actor: Actor, build: (now: string) => TaskCommand): Promise<TaskResult> => {
    const now = deps.now().toISOString();
    const r = await decideAndAppend(deps.store, streams.task(taskId), taskDecider, () => build(now), actorMetadata(actor, 'user'));
    return { taskId, position: r.position, state: r.state };
  };
  return {
    /**
     * Creates a task after the case's highest position (read from the read model: two
     * concurrent creates may share a position; lists order ties by creation).
     */
    create: async (caseId: string, input: NewTask, actor: Actor): Promise<TaskResult> => {
      const taskId = deps.ids();
      const position = await nextTaskPosition(deps.db, caseId);
      return on(taskId, actor, (now) => ({ type: 'create_task', taskId, caseId, position, actor, now, ...input }));
    },
    update: (caseId: string, taskId: string, patch: TaskPatch, actor: Actor) => on(taskId, actor, (now) => ({ type: 'update_task', caseId, ...patch, now })),
    /** Adds a comment; `theCase` (its scope columns) decides who a mention may notify. */
    comment: async (
      caseId: string,
      taskId: string,
      body: string,
      actor: Actor,
      theCase: ScopedCase,
    ): Promise<TaskResult & { commentId: string; mentions: CommentMentions }> => {
      const commentId = deps.ids();
      const [mentions, noAccess] = await Promise.all([
        resolveMentions(deps.db, body, theCase, actor.userId, deps.permissions),
        assigneeWithoutAccess(deps, caseId, taskId, theCase),
      ]);
      const r = await on(taskId, actor, (now) => ({ type: 'add_comment', caseId, commentId, body, actor, mentions, noAccess, now }));
      return { ...r, commentId, mentions };
    },
    deleteComment: (caseId: string, taskId: string, commentId: string, actor: Actor, actorIsAdmin: boolean) =>
      on(taskId, actor, (now) => ({ type: 'delete_comment', caseId, commentId, actor, actorIsAdmin, now })),
  };
}

export type TaskCommands = ReturnType<typeof createTaskCommands>;

/**
 * The task's assignee, as the read model has it, when they cannot see the case (grants
 * changed, or the case made private since the assignment): a comment must not notify
 * them. Empty otherwise.
 */
async function assigneeWithoutAccess(deps: TaskCommandDeps, caseId: string, taskId: string, theCase: ScopedCase): Promise<string[]> {
  const task = await findCaseTask(deps.db, caseId, taskId);
  if (task?.assignee_id == null) return [];
  const user = await deps.db.selectFrom('users').select(['id', 'grants']).where('id', '=', task.assignee_id).executeTakeFirst();
  return user && userCanSeeCase({ id: user.id, grants: user.grants as Grant[] }, theCase, deps.permissions) ? [] : [task.assignee_id];
}
