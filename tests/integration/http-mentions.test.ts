/**
 * Comments with `@<email>` mentions, in-app notifications and comment soft delete on
 * the real service, on every engine (SPEC.md "Case sub-resources", "Notification
 * (in-app)"; docs/configuration.md "Comments, mentions, notifications").
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

type Person = TestPerson;

const person = testPerson;
const ana = person('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const bob = person('Bob@Example.com', [{ team: 'blue', role: 'viewer' }]);
const eve = person('eve@example.com', [{ team: 'red', role: 'analyst' }]);
const dan = person('dan@example.com', [{ team: 'blue', role: 'admin' }]);
const gone = person('gone@example.com', [{ team: 'blue', role: 'analyst' }]);

describe.each(e2eEngines)('mentions and notifications on $name', ({ server }) => {
  let svc: InProcessService;

  const call = (who: Person, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);

  let caseId = '';
  beforeAll(async () => {
    svc = await startInProcessService({ server });
    // Every person is seen once, so the service knows its user row and grants.
    for (const p of [ana, bob, eve, dan, gone]) expect((await call(p, 'GET', '/auth/me')).status).toBe(200);
    await svc.service.opened.db.updateTable('users').set({ active: false }).where('email', '=', gone.email).execute();
    const created = await call(ana, 'POST', '/cases', { title: 'Beaconing host', severity: 'high' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.team).toBe('blue');
    caseId = created.body.id;
  });
  afterAll(async () => svc?.close());

  it('resolves mentions: notified, unresolved, and not notified with the reason', async () => {
    const text = 'Looping in @bob@example.com, @eve@example.com, @gone@example.com, @nobody@example.com and me @ana@example.com (@bob@example.com again).';
    const res = await call(ana, 'POST', `/cases/${caseId}/comments`, { body: text });
    expect(res.status, res.text).toBe(201);
    expect(res.body.mentions).toEqual({
      notified: ['Bob@Example.com'],
      unresolved: ['nobody@example.com'],
      not_notified: [
        { email: 'eve@example.com', reason: 'no_access' },
        { email: 'gone@example.com', reason: 'inactive' },
        { email: 'ana@example.com', reason: 'self' },
      ],
    });
  });

  it('gives the notified user one unread notification with an href under the public prefix', async () => {
    const inbox = await call(bob, 'GET', '/notifications?unread_only=true');
    expect(inbox.status, inbox.text).toBe(200);
    expect(inbox.body.items).toHaveLength(1);
    const [n] = inbox.body.items;
    expect(n).toMatchObject({ kind: 'mention', severity: 'info', read: false, href: `/svc/cases/${caseId}` });
    expect(n.title).toMatch(/ana@example\.com mentioned you in SVC-\d+/);
    expect(n.context).toMatchObject({ case_id: caseId });
    expect((await call(eve, 'GET', '/notifications')).body.items).toEqual([]);

    const marked = await call(bob, 'POST', '/notifications/read', {});
    expect(marked.body).toEqual({ updated: 1 });
    expect((await call(bob, 'GET', '/notifications?unread_only=true')).body.items).toEqual([]);
    expect((await call(bob, 'GET', '/notifications')).body.items[0].read).toBe(true);
    expect((await call(bob, 'POST', '/notifications/read', { ids: [n.id] })).body).toEqual({ updated: 0 });
    expect((await call(bob, 'POST', '/notifications/read', { ids: ['not-a-uuid'] })).status).toBe(422);
  });

  it("lists assignable users: active, allowed to manage cases, of the caller's teams or the team asked for, never another team's (issue 46)", async () => {
    const emails = async (query: string) => (await call(bob, 'GET', `/cases/assignable-users${query}`)).body.items.map((u: { email: string }) => u.email);
    expect(await emails('')).toEqual(['ana@example.com', 'dan@example.com']);
    expect(await emails('?team=blue')).toEqual(['ana@example.com', 'dan@example.com']);
    expect(await emails(`?case_id=${caseId}`)).toEqual(['ana@example.com', 'dan@example.com']);
    const red = await call(bob, 'GET', '/cases/assignable-users?team=red');
    expect([red.status, red.body.code]).toEqual([403, 'forbidden']);
  });

  it('lets the author or a team admin soft-delete a comment, and nobody else', async () => {
    const comment = await call(ana, 'POST', `/cases/${caseId}/comments`, { body: 'to be removed' });
    const other = await call(ana, 'POST', `/cases/${caseId}/comments`, { body: 'admin removes this' });
    const path = (id: string) => `/cases/${caseId}/comments/${id}`;

    const byViewer = await call(bob, 'DELETE', path(comment.body.id));
    expect(byViewer.status).toBe(403);
    const analystOfTeam = person('carl@example.com', [{ team: 'blue', role: 'analyst' }]);
    expect((await call(analystOfTeam, 'DELETE', path(comment.body.id))).status).toBe(403);

    expect((await call(ana, 'DELETE', path(comment.body.id))).status).toBe(204);
    expect((await call(ana, 'DELETE', path(comment.body.id))).body.code).toBe('comment_not_found');
    expect((await call(dan, 'DELETE', path(other.body.id))).status).toBe(204);
    expect((await call(dan, 'DELETE', path(randomUUID()))).status).toBe(404);

    const listed = await call(ana, 'GET', `/cases/${caseId}/comments`);
    expect(listed.body.items.map((c: { body: string }) => c.body)).not.toContain('to be removed');
    const timeline = await call(ana, 'GET', `/cases/${caseId}/timeline`);
    expect(timeline.body.items.filter((e: { kind: string }) => e.kind === 'comment_deleted')).toHaveLength(2);
  });

  it('hides the case from a user of another team entirely', async () => {
    expect((await call(eve, 'DELETE', `/cases/${caseId}/comments/${randomUUID()}`)).status).toBe(404);
    expect((await call(eve, 'POST', `/cases/${caseId}/comments`, { body: 'hi' })).status).toBe(404);
  });
});
