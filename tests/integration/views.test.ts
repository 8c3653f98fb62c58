/**
 * Saved views on the real service, on every engine (docs/configuration.md "Saved views";
 * issue 50): a view answers exactly what its query string answers, private to its owner
 * or shared with one team; a view the caller cannot see is 404 `view_not_found` wherever
 * it is named; only the owner changes it; a stored query is checked by the list's schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const bob = testPerson('bob@example.com', [{ team: 'blue', role: 'viewer' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

describe.each(e2eEngines)('saved views on $name', ({ server }) => {
  let svc: InProcessService;

  beforeAll(async () => {
    svc = await startInProcessService({ server });
    for (const [title, severity] of [
      ['High one', 'high'],
      ['High two', 'high'],
      ['Low one', 'low'],
    ] as const) {
      expect((await callAs(svc, ana, 'POST', '/cases', { title, severity, team: 'blue' })).status).toBe(201);
    }
    expect((await callAs(svc, ana, 'POST', '/alerts', { title: 'Inbox high', severity: 'high', team: 'blue' })).status).toBe(201);
    expect((await callAs(svc, ana, 'POST', '/alerts', { title: 'Inbox low', severity: 'low', team: 'blue' })).status).toBe(201);
  }, 90_000);
  afterAll(async () => svc?.close());

  const ids = (answer: { body: { items: { id: string }[] } }) => answer.body.items.map((item) => item.id);

  it('answers exactly what its query answers, on the case list and the inbox', async () => {
    const saved = await callAs(svc, ana, 'POST', '/views', { name: 'High, new', resource: 'cases', query: { status: 'new', severity: 'high' } });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ name: 'High, new', resource: 'cases', query: { status: 'new', severity: 'high' }, team_id: null });
    const byView = await callAs(svc, ana, 'GET', `/cases?view=${saved.body.id}&include_total=true`);
    const byQuery = await callAs(svc, ana, 'GET', '/cases?status=new&severity=high&include_total=true');
    expect(byView.status, byView.text).toBe(200);
    expect(ids(byView)).toEqual(ids(byQuery));
    expect(byView.body.total).toBe(2);

    const inbox = await callAs(svc, ana, 'POST', '/views', { name: 'High inbox', resource: 'alerts', query: { severity: 'high' } });
    expect(inbox.status, inbox.text).toBe(201);
    const alerts = await callAs(svc, ana, 'GET', `/alerts?view=${inbox.body.id}`);
    expect(alerts.body.items.map((a: { title: string }) => a.title)).toEqual(['Inbox high']);

    // A view of the other list, or filters beside a view: refused at query.view.
    for (const path of [`/cases?view=${inbox.body.id}`, `/cases?view=${saved.body.id}&status=new`]) {
      const refused = await callAs(svc, ana, 'GET', path);
      expect(refused.status, path).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['query', 'view']);
    }
  });

  it("keeps a private view its owner's, shares a team view with the team only, and lets only the owner change it", async () => {
    const mine = (await callAs(svc, ana, 'POST', '/views', { name: 'Mine', resource: 'cases', query: { severity: 'low' } })).body;
    const shared = (await callAs(svc, ana, 'POST', '/views', { name: 'Blue queue', resource: 'cases', query: { status: 'new' }, team_id: 'blue' })).body;
    expect(shared.team_id).toBe('blue');

    const bobs = (await callAs(svc, bob, 'GET', '/views')).body.items.map((view: { name: string }) => view.name);
    expect(bobs).toContain('Blue queue');
    expect(bobs).not.toContain('Mine');
    expect((await callAs(svc, bob, 'GET', `/cases?view=${shared.id}`)).status).toBe(200);
    expect((await callAs(svc, ana, 'GET', '/views')).body.items[0].owner_id).toBe((await callAs(svc, ana, 'GET', '/auth/me')).body.id);

    for (const [who, path] of [
      [bob, `/views/${mine.id}`],
      [bob, `/cases?view=${mine.id}`],
      [red, `/views/${shared.id}`],
      [red, `/cases?view=${shared.id}`],
    ] as const) {
      const hidden = await callAs(svc, who, 'GET', path);
      expect(hidden.status, `${who.email} ${path}`).toBe(404);
      expect(hidden.body.code).toBe('view_not_found');
    }
    expect((await callAs(svc, bob, 'PUT', `/views/${shared.id}`, { name: 'Taken', resource: 'cases', query: {}, team_id: 'blue' })).status).toBe(403);
    expect((await callAs(svc, bob, 'DELETE', `/views/${shared.id}`)).status).toBe(403);
    const renamed = await callAs(svc, ana, 'PUT', `/views/${shared.id}`, {
      name: 'Blue, high',
      resource: 'cases',
      query: { severity: 'high' },
      team_id: 'blue',
    });
    expect(renamed.body).toMatchObject({ name: 'Blue, high', query: { severity: 'high' } });
    expect((await callAs(svc, ana, 'DELETE', `/views/${mine.id}`)).status).toBe(204);
    expect((await callAs(svc, ana, 'GET', `/views/${mine.id}`)).status).toBe(404);
  });

  it('refuses a query the list would refuse, and a team the owner holds no grant in', async () => {
    const refused = async (body: unknown, loc: (string | number)[]) => {
      const answer = await callAs(svc, ana, 'POST', '/views', body);
      expect(answer.status, answer.text).toBe(422);
      expect(answer.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['body', ...loc]);
    };
    await refused({ name: 'Bad', resource: 'cases', query: { status: 'sleeping' } }, ['query', 'status']);
    await refused({ name: 'Bad', resource: 'cases', query: { colour: 'red' } }, ['query', 'colour']);
    await refused({ name: 'Bad', resource: 'tickets', query: {} }, ['resource']);
    await refused({ name: '', resource: 'cases', query: {} }, ['name']);
    const elsewhere = await callAs(svc, ana, 'POST', '/views', { name: 'Red', resource: 'cases', query: {}, team_id: 'red' });
    expect(elsewhere.status).toBe(403);
  });
});
