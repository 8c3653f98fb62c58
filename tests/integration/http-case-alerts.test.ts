/**
 * Linking, moving and unlinking alerts by hand on the real service, on every engine
 * (SPEC.md "Cases": GET/POST /cases/<id>/alerts, DELETE /cases/<id>/alerts/<alert_id>),
 * and de-duplication that follows a moved alert.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, detectorIntake, startInProcessService, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

type Person = TestPerson;
const admin: Person = { sub: randomUUID(), email: 'root@example.com', grants: [{ team: null, role: 'admin' }] };
const outsider: Person = { sub: randomUUID(), email: 'eve@example.com', grants: [{ team: 'red', role: 'analyst' }] };

describe.each(e2eEngines)('alerts of a case on $name', ({ server }) => {
  let svc: InProcessService;
  const call = (who: Person, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const detector = async (alert: Record<string, unknown>) => {
    const res = await detectorIntake(svc, alert);
    expect(res.status).toBe(202);
    return res.body as { alert_id: string; case_id: string; deduplicated: boolean };
  };
  const caseOf = async (id: string) => (await call(admin, 'GET', `/cases/${id}`)).body;
  const alertIds = async (caseId: string) => (await call(admin, 'GET', `/cases/${caseId}/alerts`)).body.items.map((a: { id: string }) => a.id);

  const alert = { alert_id: 'moved-1', rule: { id: 'r-move', title: 'Suspicious token use', severity: 'high' }, matched_log: {} };
  let intake = { alert_id: '', case_id: '', deduplicated: false };
  let target = '';
  beforeAll(async () => {
    svc = await startInProcessService({ server });
    intake = await detector(alert);
    target = (await call(admin, 'POST', '/cases', { title: 'Token theft campaign', severity: 'high' })).body.id;
  });
  afterAll(async () => svc?.close());

  it('moves an alert from the case intake opened into another case', async () => {
    expect(await alertIds(intake.case_id)).toEqual([intake.alert_id]);
    const moved = await call(admin, 'POST', `/cases/${target}/alerts`, { alert_id: intake.alert_id });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.items.map((a: { id: string; case_id: string }) => [a.id, a.case_id])).toEqual([[intake.alert_id, target]]);
    expect(await alertIds(intake.case_id)).toEqual([]);
    expect((await caseOf(intake.case_id)).alert_count).toBe(0);
    expect((await caseOf(target)).alert_count).toBe(1);
    const kinds = async (id: string) => (await call(admin, 'GET', `/cases/${id}/timeline`)).body.items.map((e: { kind: string }) => e.kind);
    expect(await kinds(intake.case_id)).toContain('alert_removed');
    expect(await kinds(target)).toContain('alert_appended');
    // Linking it where it already is changes nothing.
    expect((await call(admin, 'POST', `/cases/${target}/alerts`, { alert_id: intake.alert_id })).status).toBe(200);
    expect((await caseOf(target)).alert_count).toBe(1);
  });

  it('answers a repeat of the moved alert with the case that holds it now', async () => {
    const repeat = await detector(alert);
    expect(repeat).toMatchObject({ deduplicated: true, alert_id: intake.alert_id, case_id: target });
  });

  it('unlinks an alert, after which it is in no case', async () => {
    expect((await call(admin, 'DELETE', `/cases/${target}/alerts/${intake.alert_id}`)).status).toBe(204);
    expect(await alertIds(target)).toEqual([]);
    const inbox = await call(admin, 'GET', '/alerts');
    expect(inbox.body.items.find((a: { id: string }) => a.id === intake.alert_id)).toMatchObject({ status: 'new', case_id: null });
    expect((await call(admin, 'DELETE', `/cases/${target}/alerts/${intake.alert_id}`)).body.code).toBe('alert_not_in_case');
    expect((await call(admin, 'POST', `/cases/${target}/alerts`, { alert_id: randomUUID() })).body.code).toBe('alert_not_found');
    expect((await call(admin, 'POST', `/cases/${target}/alerts`, { alert_id: 'nope' })).status).toBe(422);
  });

  it('keeps cases and alerts of other teams out of reach', async () => {
    expect((await call(outsider, 'GET', `/cases/${target}/alerts`)).status).toBe(200);
    const own = (await call(outsider, 'POST', '/cases', { title: 'Red case', severity: 'low' })).body.id;
    const teamAlert = await detector({ alert_id: 'blue-1', team: 'blue', rule: { id: 'r-blue', title: 'Blue only', severity: 'low' }, matched_log: {} });
    expect((await call(outsider, 'POST', `/cases/${own}/alerts`, { alert_id: teamAlert.alert_id })).body.code).toBe('alert_not_found');
  });
});
