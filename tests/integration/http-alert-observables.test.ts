/**
 * Alert observables become case observables, on every engine (SPEC.md "Case
 * sub-resources" Observable; CONTRACTS.md section 5 `observables` and ECS fields):
 * through the real detector intake with the matched log of a real Elastic Security
 * alert, de-duplicated on the normalized value with hand-added ones, following the
 * alert when it is moved or unlinked, and reaching cross-case hits, related-cases and
 * evidence pins within the caller's scope.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixtureJson } from '../support/fixtures.ts';
import { callAs, detectorIntake, startInProcessService, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const admin: TestPerson = { sub: randomUUID(), email: 'root@example.com', grants: [{ team: null, role: 'admin' }] };
const blue: TestPerson = { sub: randomUUID(), email: 'ana@example.com', grants: [{ team: 'blue', role: 'analyst' }] };

type Observable = { id: string; type: string; value: string; normalized: string; source: string; added_by: string | null };

/** The ECS source document of a real Elastic Security alert: `host.name` is `security-linux-1`. */
const elasticSource = readFixtureJson<{ value: { source: Record<string, unknown> } }>('vendors', 'elastic_security', 'alert_doc.threat_match.8.1.0.json').value
  .source;

describe.each(e2eEngines)('alert observables in cases on $name', ({ server }) => {
  let svc: InProcessService;
  const call = (who: TestPerson, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const detector = async (alert: Record<string, unknown>) => {
    const res = await detectorIntake(svc, alert);
    expect(res.status).toBe(202);
    return res.body as { alert_id: string; case_id: string; correlated: boolean };
  };
  const observables = async (caseId: string, who: TestPerson = admin) => {
    const res = await call(who, 'GET', `/cases/${caseId}/observables`);
    expect(res.status, res.text).toBe(200);
    return res.body.items as Observable[];
  };
  const pairs = (items: Observable[]) => items.map((o) => `${o.type}:${o.normalized}:${o.source}`).sort();

  const rule = { id: 'r-c2', title: 'Threat intel match on outbound connection', severity: 'high' };
  let first = { alert_id: '', case_id: '', correlated: false };
  beforeAll(async () => {
    svc = await startInProcessService({ server });
    first = await detector({
      alert_id: 'ti-1',
      rule,
      matched_log: { ...elasticSource, source: { ip: '203.0.113.7' } },
      observables: [
        { type: 'ip', value: ' 203.0.113.7 ' },
        { type: 'process', value: 'mimikatz.exe' },
        { type: 'ip', value: 'not-an-address' },
        { type: 'domain', value: 'C2.Example.' },
      ],
    });
  });
  afterAll(async () => svc?.close());

  it('lists the observables of the case alert, normalized, once each, with their origin', async () => {
    expect(pairs(await observables(first.case_id))).toEqual(
      ['domain:c2.example:alert', 'hostname:security-linux-1:alert', 'ip:203.0.113.7:alert', 'process:mimikatz.exe:alert'].sort(),
    );
    const ip = (await observables(first.case_id)).find((o) => o.type === 'ip');
    expect(ip).toMatchObject({ value: '203.0.113.7', added_by: null });
  });

  it('keeps one row per normalized value when a correlated alert repeats an observable', async () => {
    const second = await detector({ alert_id: 'ti-2', rule, matched_log: { source: { ip: '203.0.113.7' }, destination: { ip: '198.51.100.9' } } });
    expect(second).toMatchObject({ case_id: first.case_id, correlated: true });
    const items = await observables(first.case_id);
    expect(
      items
        .filter((o) => o.type === 'ip')
        .map((o) => o.normalized)
        .sort(),
    ).toEqual(['198.51.100.9', '203.0.113.7']);
  });

  it('lets a hand-added observable shadow the alert one, and refuses to delete one that comes from an alert', async () => {
    const fromAlert = (await observables(first.case_id)).find((o) => o.type === 'domain');
    const refused = await call(admin, 'DELETE', `/cases/${first.case_id}/observables/${fromAlert?.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('observable_from_alert');

    const added = await call(admin, 'POST', `/cases/${first.case_id}/observables`, { type: 'domain', value: 'c2.example' });
    expect(added.status, added.text).toBe(201);
    expect((await observables(first.case_id)).filter((o) => o.type === 'domain').map((o) => o.source)).toEqual(['manual']);
    expect((await call(admin, 'DELETE', `/cases/${first.case_id}/observables/${added.body.id}`)).status).toBe(204);
    const back = (await observables(first.case_id)).filter((o) => o.type === 'domain');
    expect(back).toEqual([expect.objectContaining({ id: fromAlert?.id, source: 'alert' })]);
  });

  it('finds the case through an alert observable in cross-case hits and related-cases', async () => {
    const other = (await call(admin, 'POST', '/cases', { title: 'Egress review', severity: 'low' })).body.id as string;
    const hit = await call(admin, 'POST', `/cases/${other}/observables`, { type: 'ip', value: '203.0.113.7' });
    expect(hit.body.cross_case_hits.map((h: { case_id: string }) => h.case_id)).toContain(first.case_id);
    const related = await call(admin, 'GET', `/related-cases?observable_value=security-linux-1&observable_field=host.name`);
    expect(related.status, related.text).toBe(200);
    expect(related.body.observable_hits).toBe(1);
  });

  it('pins an alert observable as evidence', async () => {
    const host = (await observables(first.case_id)).find((o) => o.type === 'hostname');
    const pin = await call(admin, 'POST', `/cases/${first.case_id}/evidence`, { kind: 'observable', ref_id: host?.id, note: 'beaconing host' });
    expect(pin.status, pin.text).toBe(201);
    const listed = await call(admin, 'GET', `/cases/${first.case_id}/evidence`);
    expect(listed.body.items[0].ref).toMatchObject({ type: 'hostname', value: 'security-linux-1' });
  });

  it('moves the observables with a moved alert and drops them with an unlinked one', async () => {
    const moved = await detector({
      alert_id: 'move-1',
      rule: { id: 'r-move', title: 'Odd login', severity: 'medium' },
      matched_log: { user: { name: 'J.Doe' } },
    });
    const target = (await call(admin, 'POST', '/cases', { title: 'Account takeover', severity: 'high' })).body.id as string;
    expect(pairs(await observables(moved.case_id))).toEqual(['user:j.doe:alert']);
    expect((await call(admin, 'POST', `/cases/${target}/alerts`, { alert_id: moved.alert_id })).status).toBe(200);
    expect(await observables(moved.case_id)).toEqual([]);
    expect(pairs(await observables(target))).toEqual(['user:j.doe:alert']);
    expect((await call(admin, 'DELETE', `/cases/${target}/alerts/${moved.alert_id}`)).status).toBe(204);
    expect(await observables(target)).toEqual([]);
  });

  it("keeps another team's alert observables out of a user's cross-case hits and related-cases", async () => {
    await detector({
      alert_id: 'red-1',
      team: 'red',
      rule: { id: 'r-red', title: 'Red team beacon', severity: 'high' },
      matched_log: { source: { ip: '192.0.2.200' } },
    });
    expect((await call(blue, 'GET', '/related-cases?observable_value=192.0.2.200')).status).toBe(204);
    const own = (await call(blue, 'POST', '/cases', { title: 'Blue look-alike', severity: 'low' })).body.id as string;
    const add = await call(blue, 'POST', `/cases/${own}/observables`, { type: 'ip', value: '192.0.2.200' });
    expect(add.status, add.text).toBe(201);
    expect(add.body.cross_case_hits).toEqual([]);
    expect((await call(admin, 'GET', '/related-cases?observable_value=192.0.2.200')).body.observable_hits).toBe(2);
  });
});
