/**
 * The Task decider, given-when-then on plain data (SPEC.md "Case sub-resources": Task,
 * Task comment; "Other case moves": task assignment).
 */
import { describe, expect, it } from 'vitest';
import { noMentions } from '../../../domain/cases/mentions.ts';
import { taskDecider, type TaskCommand, type TaskEvent, type TaskState } from '../../../domain/tasks/index.ts';

const now = '2026-11-22T10:00:00.000Z';
const later = '2026-11-22T11:00:00.000Z';
const ana = { userId: 'u-ana', email: 'ana@example.com' };
const bob = { id: 'u-bob', email: 'bob@example.com' };
const cid = { id: 'u-cid', email: 'cid@example.com' };

const given = (events: TaskEvent[]): TaskState => events.reduce(taskDecider.evolve, taskDecider.initialState());
const when = (state: TaskState, command: TaskCommand) => taskDecider.decide(command, state);
const create = (over: Partial<Extract<TaskCommand, { type: 'create_task' }>> = {}): TaskCommand => ({
  type: 'create_task',
  taskId: 't1',
  caseId: 'c1',
  title: 'Isolate host',
  description: null,
  phase: 'containment',
  position: 1,
  status: 'open',
  assignee: null,
  dueAt: null,
  actor: ana,
  now,
  ...over,
});
const created = (over: Partial<Extract<TaskCommand, { type: 'create_task' }>> = {}) => when(given([]), create(over));
const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return error as { code: string; status: number };
  }
  throw new Error('expected an error');
};

describe('create_task', () => {
  it('records the task with its case, position and creator', () => {
    expect(created()).toEqual([
      {
        type: 'task.created',
        data: {
          task_id: 't1',
          case_id: 'c1',
          title: 'Isolate host',
          description: null,
          phase: 'containment',
          position: 1,
          status: 'open',
          assignee_id: null,
          due_at: null,
          created_by: 'u-ana',
          at: now,
        },
      },
    ]);
  });

  it('assigns in the same decision when created with an assignee', () => {
    const events = created({ assignee: bob });
    expect(events.map((e) => e.type)).toEqual(['task.created', 'task.assigned']);
    expect(events[1]?.data).toEqual({
      task_id: 't1',
      case_id: 'c1',
      assignee_id: 'u-bob',
      assignee_email: 'bob@example.com',
      previous_assignee_id: null,
      at: now,
    });
  });

  it('refuses a second create and an unknown status', () => {
    expect(thrown(() => when(given(created()), create())).code).toBe('task_exists');
    expect(thrown(() => created({ status: 'blocked' }))).toMatchObject({ code: 'task_status_invalid', status: 422 });
  });
});

describe('update_task', () => {
  const update = (state: TaskState, patch: Omit<Extract<TaskCommand, { type: 'update_task' }>, 'type' | 'caseId' | 'now'>, caseId = 'c1') =>
    when(state, { type: 'update_task', caseId, ...patch, now: later });

  it('records only the fields that change', () => {
    const state = given(created({ dueAt: now }));
    expect(update(state, { title: 'Isolate host', status: 'open', dueAt: now })).toEqual([]);
    expect(update(state, { title: 'Isolate the host', status: 'in_progress' })).toEqual([
      { type: 'task.updated', data: { task_id: 't1', case_id: 'c1', changes: { title: 'Isolate the host', status: 'in_progress' }, at: later } },
    ]);
  });

  it('clears due_at and the assignee on explicit null and leaves them when absent', () => {
    const state = given(created({ assignee: bob, dueAt: now }));
    expect(update(state, { status: 'done' })).toEqual([
      { type: 'task.updated', data: { task_id: 't1', case_id: 'c1', changes: { status: 'done' }, at: later } },
    ]);
    const cleared = update(state, { dueAt: null, assignee: null });
    expect(cleared).toEqual([{ type: 'task.updated', data: { task_id: 't1', case_id: 'c1', changes: { due_at: null, assignee_id: null }, at: later } }]);
    const after = given([...created({ assignee: bob, dueAt: now }), ...cleared]);
    expect(after).toMatchObject({ assigneeId: null, dueAt: null });
    expect(update(after, { dueAt: null, assignee: null })).toEqual([]);
  });

  it('appends task.assigned when the assignee becomes another user, and nothing for the same one', () => {
    const state = given(created({ assignee: bob }));
    expect(update(state, { assignee: bob })).toEqual([]);
    expect(update(state, { assignee: cid })).toEqual([
      {
        type: 'task.assigned',
        data: { task_id: 't1', case_id: 'c1', assignee_id: 'u-cid', assignee_email: 'cid@example.com', previous_assignee_id: 'u-bob', at: later },
      },
    ]);
  });

  it('answers task_not_found for an absent task and for a task of another case', () => {
    expect(thrown(() => update(given([]), { status: 'done' }))).toMatchObject({ code: 'task_not_found', status: 404 });
    expect(thrown(() => update(given(created()), { status: 'done' }, 'c2'))).toMatchObject({ code: 'task_not_found', status: 404 });
  });
});

describe('task comments', () => {
  const comment = (state: TaskState, commentId: string, actor = ana, noAccess: string[] = []) =>
    when(state, { type: 'add_comment', caseId: 'c1', commentId, body: 'on it', actor, mentions: noMentions(), noAccess, now: later });
  const remove = (state: TaskState, commentId: string, actor: typeof ana, actorIsAdmin = false) =>
    when(state, { type: 'delete_comment', caseId: 'c1', commentId, actor, actorIsAdmin, now: later });

  it('records the comment with the assignee of the moment', () => {
    const [event] = comment(given(created({ assignee: bob })), 'k1');
    expect(event).toEqual({
      type: 'task.comment_added',
      data: {
        task_id: 't1',
        case_id: 'c1',
        comment_id: 'k1',
        body: 'on it',
        author_id: 'u-ana',
        author_email: 'ana@example.com',
        mentions: noMentions(),
        assignee_id: 'u-bob',
        assignee_notified: true,
        at: later,
      },
    });
  });

  it('records that an assignee who cannot see the case is not notified', () => {
    const [event] = comment(given(created({ assignee: bob })), 'k1', ana, ['u-bob']);
    expect(event?.data).toMatchObject({ assignee_id: 'u-bob', assignee_notified: false });
  });

  it('lets the author or a team admin soft-delete, nobody else, and a deleted comment is gone', () => {
    const history = [...created(), ...comment(given(created()), 'k1')];
    const state = given(history);
    const other = { userId: 'u-other', email: 'o@example.com' };
    expect(thrown(() => remove(state, 'k1', other))).toMatchObject({ code: 'forbidden', status: 403 });
    expect(remove(state, 'k1', other, true).map((e) => e.type)).toEqual(['task.comment_deleted']);
    const deleted = remove(state, 'k1', ana);
    expect(deleted).toEqual([
      { type: 'task.comment_deleted', data: { task_id: 't1', case_id: 'c1', comment_id: 'k1', deleted_by: 'ana@example.com', at: later } },
    ]);
    const gone = given([...history, ...deleted]);
    expect(thrown(() => remove(gone, 'k1', ana))).toMatchObject({ code: 'comment_not_found', status: 404 });
    expect(thrown(() => remove(state, 'nope', ana, true))).toMatchObject({ code: 'comment_not_found', status: 404 });
  });
});
