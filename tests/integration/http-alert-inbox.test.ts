/**
 * The alert inbox on the real service, on every engine (SPEC.md "Alerts"): an alert
 * entered by hand waits in the inbox in no case; escalate opens a new case holding it
 * (moving it out of another); link puts it into an existing case; dismiss takes an alert
 * in no case out of the queue; all scoped to the caller's teams and permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, detectorIntake, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const vic = testPerson('vic@example.com', [{ team: 'blue', role: 'viewer' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

describe.each(e2eEngines)('alert inbox on $name', ({ server }) => {
  let svc: InProcessService;
  const manual = async (body: Record<string, unknown> = {}) => {
    const res = await callAs(svc, ana, 'POST', '/alerts', { title: 'User reported a strange pop-up', severity: 'medium', team: 'blue', ...body });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; status: string; case_id: string | null; source: string; team: string | null };
  };

  beforeAll(async () => {
    svc = await startInProcessService({ server });
  });
  afterAll(async () => svc?.close());

  it('enters an alert by hand into the inbox, in no case and with its observables', async () => {
    const alert = await manual({ observables: [{ type: 'hostname', value: 'WS-042' }], external_id: 'ticket-881' });
    expect(alert).toMatchObject({ status: 'new', case_id: null, source: 'manual', team: 'blue' });
    expect((await callAs(svc, ana, 'GET', '/alerts?status=new')).body.items.map((a: { id: string }) => a.id)).toContain(alert.id);
    const again = await callAs(svc, ana, 'POST', '/alerts', { title: 'x', severity: 'low', team: 'blue', external_id: 'ticket-881' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('alert_exists');
    const bad = await callAs(svc, ana, 'POST', '/alerts', { title: ' ', severity: 'urgent' });
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'title'],
      ['body', 'severity'],
    ]);
    expect((await callAs(svc, vic, 'POST', '/alerts', { title: 'x', severity: 'low', team: 'blue' })).status).toBe(403);
  });

  it('escalates an alert into a new case that holds it and carries its observables', async () => {
    const alert = await manual({ observables: [{ type: 'ip', value: '203.0.113.50' }] });
    const res = await callAs(svc, ana, 'POST', `/alerts/${alert.id}/escalate`, { severity: 'high' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.alert).toMatchObject({ status: 'linked', case_id: res.body.case_id });
    const theCase = (await callAs(svc, ana, 'GET', `/cases/${res.body.case_id}`)).body;
    expect(theCase).toMatchObject({ title: 'User reported a strange pop-up', severity: 'high', team: 'blue', alert_count: 1, acknowledged_at: null });
    const observables = (await callAs(svc, ana, 'GET', `/cases/${res.body.case_id}/observables`)).body.items;
    expect(observables).toEqual([expect.objectContaining({ type: 'ip', normalized: '203.0.113.50', source: 'alert' })]);

    const split = await callAs(svc, ana, 'POST', `/alerts/${alert.id}/escalate`, {});
    expect(split.status).toBe(201);
    expect((await callAs(svc, ana, 'GET', `/cases/${res.body.case_id}`)).body.alert_count).toBe(0);
    expect((await callAs(svc, ana, 'GET', `/cases/${split.body.case_id}/alerts`)).body.items.map((a: { id: string }) => a.id)).toEqual([alert.id]);
  });

  it('links an alert into an existing case', async () => {
    const alert = await manual();
    const target = (await callAs(svc, ana, 'POST', '/cases', { title: 'Phishing wave', severity: 'high', team: 'blue' })).body.id;
    const res = await callAs(svc, ana, 'POST', `/alerts/${alert.id}/link`, { case_id: target });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'linked', case_id: target });
    expect((await callAs(svc, ana, 'GET', `/cases/${target}`)).body.alert_count).toBe(1);
    expect((await callAs(svc, ana, 'POST', `/alerts/${alert.id}/link`, { case_id: 'nope' })).body.detail[0].loc).toEqual(['body', 'case_id']);
  });

  it('dismisses an alert in no case, refuses one in a case, and lists dismissed ones by status', async () => {
    const alert = await manual();
    const res = await callAs(svc, ana, 'POST', `/alerts/${alert.id}/dismiss`, { reason: 'known false positive' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('dismissed');
    expect((await callAs(svc, ana, 'POST', `/alerts/${alert.id}/dismiss`, {})).status).toBe(200);
    expect((await callAs(svc, ana, 'GET', '/alerts?status=dismissed')).body.items.map((a: { id: string }) => a.id)).toEqual([alert.id]);
    expect((await callAs(svc, ana, 'GET', '/alerts?status=new')).body.items.map((a: { id: string }) => a.id)).not.toContain(alert.id);

    const held = await manual();
    await callAs(svc, ana, 'POST', `/alerts/${held.id}/escalate`, {});
    const refused = await callAs(svc, ana, 'POST', `/alerts/${held.id}/dismiss`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('alert_in_case');
  });

  it("keeps another team's alerts out of reach: 404 like an absent one", async () => {
    const alert = await manual();
    for (const path of ['escalate', 'dismiss']) {
      const res = await callAs(svc, red, 'POST', `/alerts/${alert.id}/${path}`, {});
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('alert_not_found');
    }
    const own = (await callAs(svc, red, 'POST', '/cases', { title: 'Red case', severity: 'low', team: 'red' })).body.id;
    expect((await callAs(svc, red, 'POST', `/alerts/${alert.id}/link`, { case_id: own })).status).toBe(404);
    expect((await callAs(svc, red, 'GET', '/alerts')).body.items.map((a: { id: string }) => a.id)).not.toContain(alert.id);
    const hidden = await callAs(svc, red, 'GET', `/alerts/${alert.id}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ detail: 'alert not found', code: 'alert_not_found', params: { alert_id: alert.id } });
    expect(svc.errors()).toEqual([]);
  });

  it('answers one alert with the payload it arrived with, its observables, its repeats and its case', async () => {
    const sent = {
      alert_id: 'detail-1',
      rule: { id: 'ssh-bf', title: 'SSH brute force', severity: 'high' },
      team: 'blue',
      matched_log: { source: { ip: '203.0.113.77' }, user: { name: 'root' } },
    };
    const first = await detectorIntake(svc, sent);
    expect(first.status, first.text).toBe(202);
    expect((await detectorIntake(svc, sent)).body.deduplicated).toBe(true);
    const res = await callAs(svc, vic, 'GET', `/alerts/${first.body.alert_id}`);
    expect(res.status, res.text).toBe(200);
    const theCase = (await callAs(svc, ana, 'GET', `/cases/${first.body.case_id}`)).body;
    expect(res.body).toMatchObject({
      id: first.body.alert_id,
      source: 'detector',
      external_id: 'detail-1',
      rule_id: 'ssh-bf',
      title: 'SSH brute force',
      severity: 'high',
      status: 'linked',
      repeat_count: 1,
      payload: sent,
      case: { id: theCase.id, key: theCase.key, title: theCase.title, status: theCase.status, severity: theCase.severity },
    });
    expect(res.body.observables).toContainEqual({ type: 'ip', value: '203.0.113.77', normalized: '203.0.113.77' });

    const manualOne = await manual();
    expect((await callAs(svc, ana, 'GET', `/alerts/${manualOne.id}`)).body).toMatchObject({ case: null, status: 'new', observables: [] });
    expect((await callAs(svc, ana, 'GET', '/alerts/not-a-uuid')).status).toBe(422);
  });

  it('pages the inbox with has_more, and counts a total only when asked', async () => {
    for (let i = 0; i < 3; i++) await manual({ source: 'paging' });
    const first = (await callAs(svc, ana, 'GET', '/alerts?source=paging&limit=2')).body;
    expect(first).toMatchObject({ has_more: true, limit: 2, offset: 0 });
    expect(first.items).toHaveLength(2);
    expect(first).not.toHaveProperty('total');
    const last = (await callAs(svc, ana, 'GET', '/alerts?source=paging&limit=2&offset=2&include_total=true')).body;
    expect(last).toMatchObject({ has_more: false, total: 3, total_relation: 'eq', limit: 2, offset: 2 });
    expect(last.items).toHaveLength(1);
  });
});
