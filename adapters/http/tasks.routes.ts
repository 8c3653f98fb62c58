/**
 * Case task routes (SPEC.md "Cases": `/cases/<case_id>/tasks`, task comments; "Other
 * case moves": task assignment). Every route goes through caseAccess: an invisible case
 * is 404, a mutation needs `manage_cases` in the case's team (403). A task of another
 * case is 404 `task_not_found`; an assignee who cannot see the case is 422
 * `assignee_no_access` (adapters/http/assignee.ts). Answers are read back after the projector caught up.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { notFound } from '../../domain/shared/errors.ts';
import { taskStatuses } from '../../domain/tasks/index.ts';
import { caseTasks, findCaseTask, taskComments } from '../../projections/tasks/tasks.queries.ts';
import { hasPermission } from '../identity/permissions.ts';
import { assignableUser } from './assignee.ts';
import { caseRouteGuards } from './case-access.ts';
import { actorOf, commentObject, mentionsSchema } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { iso, uuid, nonEmptyText, commentBody } from '../shared/shapes.ts';
import { requireJson, validate } from './validation.ts';

/** Task comment text limit (SPEC.md "Limits": task comment length). */
export const TASK_COMMENT_MAX = 4000;
const description = v.nullable(v.pipe(v.string(), v.maxLength(20_000)));
const status = v.picklist(taskStatuses, `must be one of ${taskStatuses.join(', ')}`);
/** RFC 3339 time, stored normalized to UTC so equal instants compare equal. */
const dueAt = v.nullable(
  v.pipe(
    v.string(),
    v.isoTimestamp('must be an RFC 3339 date-time'),
    v.transform((s) => new Date(s).toISOString()),
  ),
);

const caseParam = v.object({ id: uuid });
const taskParam = v.object({ id: uuid, task_id: uuid });

type TaskRow = NonNullable<Awaited<ReturnType<typeof findCaseTask>>>;
type CommentRow = Awaited<ReturnType<typeof taskComments>>[number];

/** A task of a case (SPEC.md "Cases": tasks), as every task route answers it. */
export const taskSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    case_id: v.string(),
    title: v.string(),
    description: v.nullable(v.string()),
    phase: v.nullable(v.string()),
    position: v.number(),
    status: v.string(),
    assignee_id: v.nullable(v.string()),
    assignee_email: v.nullable(v.string()),
    due_at: v.nullable(v.string()),
    created_by: v.nullable(v.string()),
    created_at: v.string(),
    updated_at: v.string(),
  }),
  v.metadata({ ref: 'Task' }),
);

/** A task comment: `text` is SPEC.md's name, `body` this API's older one, both the same text (a task moves with its comments, so none is a merged copy). */
const { merged_from: _caseOnly, ...commentEntries } = commentObject.entries;
const taskCommentObject = v.strictObject({ ...commentEntries, task_id: v.string() });
/** `taskCommentObject` as the document's component schema `TaskComment`. */
export const taskCommentSchema = v.pipe(taskCommentObject, v.metadata({ ref: 'TaskComment' }));

/** A new task comment with whom its mentions reached. */
const newTaskCommentSchema = v.strictObject({ ...taskCommentObject.entries, mentions: mentionsSchema });

export const taskView = (r: TaskRow): v.InferOutput<typeof taskSchema> => ({
  id: r.id,
  case_id: r.case_id,
  title: r.title,
  description: r.description,
  phase: r.phase,
  position: r.position,
  status: r.status,
  assignee_id: r.assignee_id,
  assignee_email: r.assignee_email,
  due_at: iso(r.due_at),
  created_by: r.created_by,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

const commentView = (r: CommentRow): v.InferOutput<typeof taskCommentSchema> => ({
  id: r.id,
  task_id: r.task_id,
  case_id: r.case_id,
  text: r.body,
  body: r.body,
  author_id: r.author_id,
  author_email: r.author_email,
  created_at: iso(r.created_at),
});

/** What the task routes read of the service (adapters/http/deps.ts). */
export type TaskRouteDeps = Pick<HttpDeps, 'db' | 'permissions' | 'tasks' | 'waitFor'>;

export function taskRoutes(deps: TaskRouteDeps) {
  const { db } = deps;
  const { access, read, manage } = caseRouteGuards(db, deps.permissions);

  const loadTask = async (caseId: string, taskId: string): Promise<TaskRow> => {
    const row = await findCaseTask(db, caseId, taskId);
    if (!row) throw notFound('task_not_found', 'task not found', { case_id: caseId, task_id: taskId });
    return row;
  };

  return new Hono<AppEnv>()
    .get(
      '/cases/:id/tasks',
      describeRoute({
        summary: 'Tasks of a case, by position',
        tags: ['tasks'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(taskSchema) }), 'The tasks, by position') },
      }),
      read,
      validate('param', caseParam),
      async (c) => {
        const { id } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        return c.json({ items: (await caseTasks(db, id)).map(taskView) });
      },
    )
    .post(
      '/cases/:id/tasks',
      describeRoute({
        summary: 'Add a task after the highest position; an assignee is notified',
        tags: ['tasks'],
        responses: { 201: jsonAnswer(taskSchema, 'The new task') },
      }),
      manage,
      validate('param', caseParam),
      requireJson,
      validate(
        'json',
        v.object({
          title: nonEmptyText(500),
          description: v.optional(description),
          phase: v.optional(v.nullable(nonEmptyText(200))),
          status: v.optional(status, 'open'),
          assignee_id: v.optional(v.nullable(uuid)),
          due_at: v.optional(dueAt),
        }),
      ),
      async (c) => {
        const { id } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const assignee = body.assignee_id ? await assignableUser(db, deps.permissions, body.assignee_id, theCase, 'assignee_id') : null;
        const r = await deps.tasks.create(
          id,
          { title: body.title, description: body.description ?? null, phase: body.phase ?? null, status: body.status, assignee, dueAt: body.due_at ?? null },
          actorOf(principal),
        );
        await deps.waitFor(r.position);
        return c.json(taskView(await loadTask(id, r.taskId)), 201);
      },
    )
    .patch(
      '/cases/:id/tasks/:task_id',
      describeRoute({
        summary: 'Change a task; explicit null clears assignee_id and due_at; assignment notifies the assignee',
        tags: ['tasks'],
        responses: { 200: jsonAnswer(taskSchema, 'The task as changed') },
      }),
      manage,
      validate('param', taskParam),
      requireJson,
      validate(
        'json',
        v.pipe(
          v.object({
            title: v.optional(nonEmptyText(500)),
            description: v.optional(description),
            status: v.optional(status),
            assignee_id: v.optional(v.nullable(uuid)),
            due_at: v.optional(dueAt),
          }),
          v.check((b) => Object.keys(b).length > 0, 'name at least one field to change'),
        ),
      ),
      async (c) => {
        const { id, task_id: taskId } = c.req.valid('param');
        const body = c.req.valid('json');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const assignee =
          body.assignee_id === undefined || body.assignee_id === null
            ? body.assignee_id
            : await assignableUser(db, deps.permissions, body.assignee_id, theCase, 'assignee_id');
        const r = await deps.tasks.update(
          id,
          taskId,
          {
            ...(body.title !== undefined && { title: body.title }),
            ...(body.description !== undefined && { description: body.description }),
            ...(body.status !== undefined && { status: body.status }),
            ...(body.due_at !== undefined && { dueAt: body.due_at }),
            ...(assignee !== undefined && { assignee }),
          },
          actorOf(principal),
        );
        await deps.waitFor(r.position);
        return c.json(taskView(await loadTask(id, taskId)));
      },
    )
    .get(
      '/cases/:id/tasks/:task_id/comments',
      describeRoute({
        summary: 'Comments of a task',
        tags: ['tasks'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(taskCommentSchema) }), 'The comments not deleted') },
      }),
      read,
      validate('param', taskParam),
      async (c) => {
        const { id, task_id: taskId } = c.req.valid('param');
        await access.visible(c.get('principal'), id);
        await loadTask(id, taskId);
        return c.json({ items: (await taskComments(db, taskId)).map(commentView) });
      },
    )
    .post(
      '/cases/:id/tasks/:task_id/comments',
      describeRoute({
        summary: 'Comment on a task; mentions and the assignee are notified',
        tags: ['tasks'],
        responses: { 201: jsonAnswer(newTaskCommentSchema, 'The new comment and whom its mentions reached') },
      }),
      manage,
      validate('param', taskParam),
      requireJson,
      validate('json', commentBody(TASK_COMMENT_MAX)),
      async (c) => {
        const { id, task_id: taskId } = c.req.valid('param');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const r = await deps.tasks.comment(id, taskId, c.req.valid('json').body, actorOf(principal), theCase);
        await deps.waitFor(r.position);
        const created = (await taskComments(db, taskId)).find((row) => row.id === r.commentId);
        if (!created) throw new Error(`task comment ${r.commentId} missing from the read model after projection`);
        const { notified, unresolved, not_notified: notNotified } = r.mentions;
        return c.json(
          { ...commentView(created), mentions: { notified: notified.map((n) => n.email), unresolved, not_notified: notNotified } } satisfies v.InferOutput<
            typeof newTaskCommentSchema
          >,
          201,
        );
      },
    )
    .delete(
      '/cases/:id/tasks/:task_id/comments/:comment_id',
      describeRoute({
        summary: 'Soft-delete a task comment (its author or an admin of the case team)',
        tags: ['tasks'],
        responses: { 204: { description: 'Deleted' } },
      }),
      manage,
      validate('param', v.object({ id: uuid, task_id: uuid, comment_id: uuid })),
      async (c) => {
        const { id, task_id: taskId, comment_id: commentId } = c.req.valid('param');
        const principal = c.get('principal');
        const theCase = await access.actOn(principal, id, 'manage_cases');
        const isAdmin = hasPermission(principal, 'admin', deps.permissions, theCase.team);
        const r = await deps.tasks.deleteComment(id, taskId, commentId, actorOf(principal), isAdmin);
        await deps.waitFor(r.position);
        return c.body(null, 204);
      },
    );
}
