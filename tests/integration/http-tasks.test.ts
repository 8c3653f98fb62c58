/**
 * Case tasks, task assignment and task comment threads on the real service, on every
 * engine (SPEC.md "Case sub-resources": Task, Task comment; "Other case moves": task
 * assignment; "Notification (in-app)"; docs/configuration.md "Tasks").
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskNotificationsProjection } from '../../projections/notifications/task-notifications.projection.ts';
import { tasksProjection } from '../../projections/tasks/tasks.projection.ts';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { recordedEvents } from '../support/events.ts';

type Person = TestPerson;

const person = testPerson;
const ana = person('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const bob = person('bob@example.com', [{ team: 'blue', role: 'analyst' }]);
const cid = person('cid@example.com', [{ team: 'blue', role: 'analyst' }]);
const vic = person('vic@example.com', [
  { team: 'blue', role: 'viewer' },
  { team: 'red', role: 'analyst' },
]);
const eve = person('eve@example.com', [{ team: 'red', role: 'analyst' }]);
const dan = person('dan@example.com', [{ team: 'blue', role: 'admin' }]);
const gone = person('gone@example.com', [{ team: 'blue', role: 'analyst' }]);

describe.each(e2eEngines)('case tasks on $name', ({ server }) => {
  let svc: InProcessService;
  const ids = new Map<Person, string>();

  const call = (who: Person, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const id = (p: Person) => ids.get(p) ?? '';
  const newTask = async (body: Record<string, unknown>) => {
    const res = await call(ana, 'POST', `/cases/${caseId}/tasks`, body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const inbox = async (who: Person, taskId: string) =>
    (await call(who, 'GET', '/notifications?limit=200')).body.items.filter((n: { context: { task_id?: string } }) => n.context.task_id === taskId);

  let caseId = '';
  let otherCaseId = '';
  beforeAll(async () => {
    svc = await startInProcessService({ server });
    // Every person is seen once, so the service knows its user row and grants.
    for (const p of [ana, bob, cid, vic, eve, dan, gone]) {
      const me = await call(p, 'GET', '/auth/me');
      expect(me.status).toBe(200);
      ids.set(p, me.body.id);
    }
    await svc.service.opened.db.updateTable('users').set({ active: false }).where('email', '=', gone.email).execute();
    caseId = (await call(ana, 'POST', '/cases', { title: 'Ransomware on file server', severity: 'critical' })).body.id;
    otherCaseId = (await call(ana, 'POST', '/cases', { title: 'Another case', severity: 'low' })).body.id;
    expect(caseId).not.toBe('');
  });
  afterAll(async () => svc?.close());

  it('creates tasks after the highest position and lists them in order', async () => {
    const first = await newTask({ title: 'Isolate the server', phase: 'containment' });
    expect(first).toMatchObject({
      case_id: caseId,
      title: 'Isolate the server',
      phase: 'containment',
      status: 'open',
      assignee_id: null,
      due_at: null,
      description: null,
    });
    const second = await newTask({ title: 'Collect memory', description: 'full dump', status: 'in_progress', due_at: '2026-12-01T10:00:00+02:00' });
    expect(second.position).toBeGreaterThan(first.position);
    expect(second).toMatchObject({ status: 'in_progress', description: 'full dump', due_at: '2026-12-01T08:00:00.000Z', created_by: id(ana) });
    const listed = await call(bob, 'GET', `/cases/${caseId}/tasks`);
    expect(listed.status).toBe(200);
    const positions = listed.body.items.map((t: { position: number }) => t.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(listed.body.items.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining([first.id, second.id]));
  });

  it('ignores unknown fields and refuses bad statuses and assignees that are not active users', async () => {
    const post = (body: unknown) => call(ana, 'POST', `/cases/${caseId}/tasks`, body);
    const ignored = await post({ title: 'x', color: 'red' });
    expect(ignored.status, ignored.text).toBe(201);
    expect(ignored.body).not.toHaveProperty('color');
    expect((await post({ title: 'x', status: 'blocked' })).status).toBe(422);
    expect((await post({ title: '' })).status).toBe(422);
    expect((await post({ title: 'x', due_at: 'tomorrow' })).status).toBe(422);
    const unknown = await post({ title: 'x', assignee_id: randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('user_not_found');
    expect((await post({ title: 'x', assignee_id: id(gone) })).body.code).toBe('user_not_found');
    const task = await newTask({ title: 'Patch' });
    const patch = (body: unknown) => call(ana, 'PATCH', `/cases/${caseId}/tasks/${task.id}`, body);
    expect((await patch({})).status).toBe(422);
    expect((await patch({ phase: 'x' })).status).toBe(422);
    expect((await patch({ assignee_id: id(gone) })).body.code).toBe('user_not_found');
  });

  it('patches fields; explicit null clears assignee_id and due_at, absent leaves them', async () => {
    const task = await newTask({ title: 'Reset credentials', assignee_id: id(bob), due_at: '2026-12-01T00:00:00Z' });
    expect(task).toMatchObject({ assignee_id: id(bob), assignee_email: bob.email, due_at: '2026-12-01T00:00:00.000Z' });
    const path = `/cases/${caseId}/tasks/${task.id}`;
    const moved = await call(ana, 'PATCH', path, { status: 'in_progress', title: 'Reset all credentials' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ status: 'in_progress', title: 'Reset all credentials', assignee_id: id(bob), due_at: '2026-12-01T00:00:00.000Z' });
    const cleared = await call(ana, 'PATCH', path, { assignee_id: null, due_at: null });
    expect(cleared.body).toMatchObject({ status: 'in_progress', assignee_id: null, assignee_email: null, due_at: null });
    const described = await call(ana, 'PATCH', path, { description: 'all service accounts' });
    expect(described.body).toMatchObject({ description: 'all service accounts', assignee_id: null, due_at: null });
    expect((await call(ana, 'PATCH', path, { description: null })).body.description).toBeNull();
    expect((await call(ana, 'PATCH', path, { status: 'done' })).body.status).toBe('done');
  });

  it('assigns: appends task.assigned, notifies the new assignee, shows task_assigned on the case timeline', async () => {
    const task = await newTask({ title: 'Block C2 domain' });
    const assigned = await call(ana, 'PATCH', `/cases/${caseId}/tasks/${task.id}`, { assignee_id: id(bob) });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.body).toMatchObject({ assignee_id: id(bob), assignee_email: bob.email });

    const events = await recordedEvents(svc.service.opened.db, (e) => e.streamId === `task-${task.id}`);
    expect(events.map((e) => e.type)).toEqual(['task.created', 'task.assigned']);
    expect(events[1]?.data).toMatchObject({ task_id: task.id, case_id: caseId, assignee_id: id(bob), previous_assignee_id: null });

    const notes = await inbox(bob, task.id);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      kind: 'task_assigned',
      severity: 'info',
      read: false,
      href: `/svc/cases/${caseId}`,
      context: { case_id: caseId, task_id: task.id },
    });
    expect(notes[0].context.case_key).toMatch(/^SVC-\d+$/);

    // The same assignee again changes nothing and notifies nobody.
    await call(ana, 'PATCH', `/cases/${caseId}/tasks/${task.id}`, { assignee_id: id(bob) });
    expect(await inbox(bob, task.id)).toHaveLength(1);

    const timeline = await call(ana, 'GET', `/cases/${caseId}/timeline`);
    const entries = timeline.body.items.filter(
      (e: { kind: string; payload: { task_id?: string } }) => e.kind === 'task_assigned' && e.payload.task_id === task.id,
    );
    expect(entries).toHaveLength(1);
    expect(entries[0].payload).toMatchObject({ assignee_id: id(bob), assignee_email: bob.email });
    expect(entries[0].actor).toBe(ana.email);
  });

  it('caps comment text at 4000 characters and names the field beyond', async () => {
    const task = await newTask({ title: 'Write report' });
    const path = `/cases/${caseId}/tasks/${task.id}/comments`;
    const max = await call(ana, 'POST', path, { body: 'x'.repeat(4000) });
    expect(max.status, max.text).toBe(201);
    const over = await call(ana, 'POST', path, { body: 'x'.repeat(4001) });
    expect(over.status).toBe(422);
    expect(over.body.detail[0].loc).toEqual(['body', 'body']);
    expect((await call(ana, 'POST', path, { body: '   ' })).status).toBe(422);
    expect((await call(ana, 'POST', path, { body: 'hi', extra: 1 })).status).toBe(201);
  });

  it('fans out mentions and notifies the assignee once per comment, never the author', async () => {
    const task = await newTask({ title: 'Hunt lateral movement', assignee_id: id(bob) });
    const path = `/cases/${caseId}/tasks/${task.id}/comments`;
    const res = await call(ana, 'POST', path, { body: 'FYI @bob@example.com and @cid@example.com, also @eve@example.com @nobody@example.com' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ task_id: task.id, case_id: caseId, author_email: ana.email });
    expect(res.body.mentions).toEqual({
      notified: [bob.email, cid.email],
      unresolved: ['nobody@example.com'],
      not_notified: [{ email: eve.email, reason: 'no_access' }],
    });
    const bobs = (await inbox(bob, task.id)).filter((n: { kind: string }) => n.kind !== 'task_assigned');
    expect(bobs).toHaveLength(1);
    expect(bobs[0]).toMatchObject({
      kind: 'task_comment',
      href: `/svc/cases/${caseId}`,
      context: { case_id: caseId, task_id: task.id, comment_id: res.body.id },
    });
    expect(await inbox(cid, task.id)).toMatchObject([{ kind: 'mention', context: { task_id: task.id } }]);
    expect(await inbox(eve, task.id)).toEqual([]);

    // A plain comment notifies the assignee once more; the assignee's own comment notifies nobody.
    await call(cid, 'POST', path, { body: 'done on my side' });
    expect((await inbox(bob, task.id)).filter((n: { kind: string }) => n.kind === 'task_comment')).toHaveLength(2);
    await call(bob, 'POST', path, { body: 'thanks, closing' });
    expect((await inbox(bob, task.id)).filter((n: { kind: string }) => n.kind === 'task_comment')).toHaveLength(2);
    expect(await inbox(ana, task.id)).toEqual([]);

    const listed = await call(vic, 'GET', path);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((c: { body: string }) => c.body)).toEqual([expect.stringContaining('FYI'), 'done on my side', 'thanks, closing']);
  });

  it('lets the author or a team admin soft-delete a task comment, and nobody else', async () => {
    const task = await newTask({ title: 'Notify legal' });
    const base = `/cases/${caseId}/tasks/${task.id}/comments`;
    const mine = (await call(ana, 'POST', base, { body: 'to be removed' })).body;
    const other = (await call(ana, 'POST', base, { body: 'admin removes this' })).body;

    const byPeer = await call(bob, 'DELETE', `${base}/${mine.id}`);
    expect(byPeer.status).toBe(403);
    expect(byPeer.body.code).toBe('forbidden');
    expect((await call(ana, 'DELETE', `${base}/${mine.id}`)).status).toBe(204);
    const again = await call(ana, 'DELETE', `${base}/${mine.id}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('comment_not_found');
    expect((await call(dan, 'DELETE', `${base}/${other.id}`)).status).toBe(204);
    expect((await call(dan, 'DELETE', `${base}/${randomUUID()}`)).body.code).toBe('comment_not_found');
    expect((await call(ana, 'GET', base)).body.items).toEqual([]);
  });

  it('answers task_not_found for a task of another case or an unknown task', async () => {
    const task = await newTask({ title: 'Only in the first case' });
    for (const [method, path, body] of [
      ['PATCH', `/cases/${otherCaseId}/tasks/${task.id}`, { status: 'done' }],
      ['GET', `/cases/${otherCaseId}/tasks/${task.id}/comments`, undefined],
      ['POST', `/cases/${otherCaseId}/tasks/${task.id}/comments`, { body: 'hi' }],
      ['DELETE', `/cases/${otherCaseId}/tasks/${task.id}/comments/${randomUUID()}`, undefined],
      ['PATCH', `/cases/${caseId}/tasks/${randomUUID()}`, { status: 'done' }],
    ] as const) {
      const res = await call(ana, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe('task_not_found');
    }
    expect((await call(ana, 'GET', `/cases/${otherCaseId}/tasks`)).body.items).toEqual([]);
  });

  it('hides tasks of a case of another team (404) and needs manage_cases in the case team (403)', async () => {
    const task = await newTask({ title: 'Team only' });
    const paths = {
      list: `/cases/${caseId}/tasks`,
      one: `/cases/${caseId}/tasks/${task.id}`,
      comments: `/cases/${caseId}/tasks/${task.id}/comments`,
    };
    for (const [method, path, body] of [
      ['GET', paths.list, undefined],
      ['POST', paths.list, { title: 'x' }],
      ['PATCH', paths.one, { status: 'done' }],
      ['GET', paths.comments, undefined],
      ['POST', paths.comments, { body: 'x' }],
      ['DELETE', `${paths.comments}/${randomUUID()}`, undefined],
    ] as const) {
      const res = await call(eve, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe('case_not_found');
    }
    // vic may manage cases (in red) but only read in blue, the case's team.
    expect((await call(vic, 'GET', paths.list)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', paths.list, { title: 'x' }],
      ['PATCH', paths.one, { status: 'done' }],
      ['POST', paths.comments, { body: 'x' }],
    ] as const) {
      const res = await call(vic, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
    expect((await call(ana, 'PATCH', paths.one, {})).status).toBe(422);
  });

  it('changes no read model when the task events are projected again, in one batch', async () => {
    const db = svc.service.opened.db;
    const snapshot = async () => ({
      tasks: await db.selectFrom('case_tasks').selectAll().orderBy('id').execute(),
      comments: await db.selectFrom('case_task_comments').selectAll().orderBy('id').execute(),
      timeline: await db.selectFrom('case_timeline').selectAll().orderBy('event_position').execute(),
      notifications: await db
        .selectFrom('notifications')
        .select(['user_id', 'kind', 'event_position', 'read_at'])
        .orderBy('event_position')
        .orderBy('user_id')
        .execute(),
    });
    const before = await snapshot();
    expect(before.tasks.length).toBeGreaterThan(0);
    const events = await recordedEvents(db, (e) => e.streamId.startsWith('task-'));
    await db.transaction().execute(async (trx) => {
      for (const projection of [tasksProjection, taskNotificationsProjection]) await projection.apply(trx, events);
    });
    expect(await snapshot()).toEqual(before);
  });
});
