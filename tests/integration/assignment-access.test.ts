/**
 * Assignment needs access (issue 46; docs/architecture.md "Authorization"), on the real
 * service, on every engine: a case owner or task assignee who cannot see the case (another
 * team; a private case they are no member of) is refused 422 `assignee_no_access` and
 * notified of nothing; the people pickers list only people who can see the case, and only
 * to callers in its team; a task comment does not notify an assignee who lost access; an
 * owner never sees another team's case by being its owner. Positive controls: an assignee
 * who can see the case is assigned and notified.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const tom = testPerson('tom@example.com', [{ team: 'blue', role: 'analyst' }]);
const bea = testPerson('bea@example.com', [{ team: 'blue', role: 'admin' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);

describe.each(e2eEngines)('assignment needs access on $name', ({ server }) => {
  let svc: InProcessService;
  const call = (who: TestPerson, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const openCase = async (title: string, isPrivate: boolean) => {
    const created = await call(ana, 'POST', '/cases', { title, severity: 'high', private: isPrivate });
    expect(created.status, created.text).toBe(201);
    return created.body.id as string;
  };
  const inbox = async (who: TestPerson) => (await call(who, 'GET', '/notifications')).body.items as { kind: string; context: { case_id?: string } }[];
  const refusedAsNoAccess = (res: { status: number; body: any; text: string }, field: string, id: string) => {
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ code: 'assignee_no_access', params: { [field]: id, reason: 'no_access' } });
  };

  let publicCase = '';
  let privateCase = '';
  /** Each person's user id, as the service stored it when they first called. */
  const ids: Record<string, string> = {};
  const idOf = (who: TestPerson): string => {
    const found = ids[who.email];
    if (found === undefined) throw new Error(`${who.email} never called`);
    return found;
  };
  beforeAll(async () => {
    svc = await startInProcessService({ server });
    for (const p of [ana, tom, bea, eve]) {
      const me = await call(p, 'GET', '/auth/me');
      expect(me.status, me.text).toBe(200);
      ids[p.email] = me.body.id;
    }
    publicCase = await openCase('Beaconing host', false);
    privateCase = await openCase('Insider lead', true);
  });
  afterAll(async () => svc?.close());

  it('refuses a task assignee of another team, and notifies them of nothing', async () => {
    refusedAsNoAccess(await call(ana, 'POST', `/cases/${publicCase}/tasks`, { title: 'Pull logs', assignee_id: idOf(eve) }), 'assignee_id', idOf(eve));
    const task = await call(ana, 'POST', `/cases/${publicCase}/tasks`, { title: 'Pull logs' });
    expect(task.status, task.text).toBe(201);
    refusedAsNoAccess(await call(ana, 'PATCH', `/cases/${publicCase}/tasks/${task.body.id}`, { assignee_id: idOf(eve) }), 'assignee_id', idOf(eve));
    expect(await inbox(eve)).toEqual([]);
    // Positive control: someone of the team is assigned and notified.
    const given = await call(ana, 'PATCH', `/cases/${publicCase}/tasks/${task.body.id}`, { assignee_id: idOf(tom) });
    expect(given.status, given.text).toBe(200);
    expect((await inbox(tom)).map((n) => n.kind)).toContain('task_assigned');
  });

  it('refuses a task of a private case to a team member who is no member of it; its admin may take it', async () => {
    refusedAsNoAccess(await call(ana, 'POST', `/cases/${privateCase}/tasks`, { title: 'Interview', assignee_id: idOf(tom) }), 'assignee_id', idOf(tom));
    expect((await inbox(tom)).filter((n) => n.context.case_id === privateCase)).toEqual([]);
    expect((await call(ana, 'POST', `/cases/${privateCase}/tasks`, { title: 'Interview', assignee_id: idOf(bea) })).status).toBe(201);
  });

  it('refuses an owner of another team, who then still cannot open the case', async () => {
    refusedAsNoAccess(await call(ana, 'POST', `/cases/${publicCase}/assign`, { owner_id: idOf(eve) }), 'owner_id', idOf(eve));
    expect((await call(eve, 'GET', `/cases/${publicCase}`)).status).toBe(404);
    // A team member made owner of a private case becomes a member of it.
    const owned = await call(ana, 'POST', `/cases/${privateCase}/assign`, { owner_id: idOf(tom) });
    expect(owned.status, owned.text).toBe(200);
    expect((await call(tom, 'GET', `/cases/${privateCase}`)).status).toBe(200);
    expect((await call(ana, 'POST', `/cases/${privateCase}/assign`, { owner_id: idOf(ana) })).status).toBe(200);
    expect((await call(tom, 'GET', `/cases/${privateCase}`)).status).toBe(404);
  });

  it('lists assignable people only to callers of the team, and for a case only those who can see it', async () => {
    const forbidden = await call(eve, 'GET', '/cases/assignable-users?team=blue');
    expect(forbidden.status, forbidden.text).toBe(403);
    expect((await call(eve, 'GET', `/cases/assignable-users?case_id=${privateCase}`)).status).toBe(404);
    const emails = async (query: string) => ((await call(ana, 'GET', `/cases/assignable-users${query}`)).body.items as { email: string }[]).map((u) => u.email);
    expect(await emails('?team=blue')).toEqual(['ana@example.com', 'bea@example.com', 'tom@example.com']);
    expect(await emails(`?case_id=${privateCase}`)).toEqual(['ana@example.com', 'bea@example.com']);
    expect(await emails('')).not.toContain('eve@example.com');
  });

  it('does not notify a task assignee of a comment once the case turned private and they are no member', async () => {
    const caseId = await openCase('Turning private', false);
    const task = await call(ana, 'POST', `/cases/${caseId}/tasks`, { title: 'Check mail', assignee_id: idOf(tom) });
    expect(task.status, task.text).toBe(201);
    const before = (await inbox(tom)).length;
    expect((await call(ana, 'PUT', `/cases/${caseId}`, { private: true })).status).toBe(200);
    const comment = await call(ana, 'POST', `/cases/${caseId}/tasks/${task.body.id}/comments`, { text: 'Found it.' });
    expect(comment.status, comment.text).toBe(201);
    expect((await inbox(tom)).length).toBe(before);
    // Positive control: while the case is open to the team, the assignee hears of a comment.
    expect((await call(ana, 'PUT', `/cases/${caseId}`, { private: false })).status).toBe(200);
    expect((await call(ana, 'POST', `/cases/${caseId}/tasks/${task.body.id}/comments`, { text: 'And more.' })).status).toBe(201);
    expect((await inbox(tom)).filter((n) => n.kind === 'task_comment')).toHaveLength(1);
  });
});
