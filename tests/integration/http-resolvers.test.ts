/**
 * The cross-product resolvers on the real service, on every engine (SPEC.md
 * "Cross-product resolvers", "Versioning": suite-related-cases/v1): `GET /related-cases`
 * and `GET /suite-context/<id>`, with team and private-case scoping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, detectorIntake, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const dan = testPerson('dan@example.com', [{ team: 'blue', role: 'viewer' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);
const rita = testPerson('rita@example.com', [{ team: null, role: 'admin' }]);
const ip = '203.0.113.9';

describe.each(e2eEngines)('cross-product resolvers on $name', ({ server }) => {
  let svc: InProcessService;
  const cases: Record<string, { id: string; key: string }> = {};
  const call = (who: TestPerson, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const related = (who: TestPerson, query: string) => call(who, 'GET', `/related-cases?${query}`);
  const openCase = async (name: string, who: TestPerson, body: Record<string, unknown>, observable: { type: string; value: string } | null) => {
    const res = await call(who, 'POST', '/cases', { severity: 'high', ...body, title: `${name} case` });
    expect(res.status, res.text).toBe(201);
    cases[name] = { id: res.body.id, key: res.body.key };
    if (observable) expect((await call(who, 'POST', `/cases/${res.body.id}/observables`, observable)).status).toBe(201);
  };
  const alert = async (body: Record<string, unknown>) => {
    const res = await detectorIntake(svc, { rule: { id: `rule-${body.alert_id}`, title: `Rule ${body.alert_id}`, severity: 'medium' }, ...body });
    expect(res.status).toBe(202);
    return res.body as { alert_id: string; case_id: string };
  };
  const keysOf = (body: { open_cases: { key: string }[] }) => body.open_cases.map((c) => c.key).sort();
  const keys = (...names: string[]) => names.map((n) => cases[n]?.key).sort();

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { extraEnv: { SVC_DETECTOR_BOOTSTRAP_SECRET: 'resolver-secret', SVC_PUBLIC_PREFIX: '/soc' } });
    for (const p of [ana, dan, eve, rita]) expect((await call(p, 'GET', '/auth/me')).status).toBe(200);
    await openCase('bluePublic', ana, {}, { type: 'ip', value: ip });
    await openCase('bluePrivate', ana, { private: true }, { type: 'ip', value: `::ffff:${ip}` });
    await openCase('red', eve, {}, { type: 'ip', value: ip });
    await openCase('blueClosed', ana, {}, { type: 'ip', value: ip });
    await openCase('blueHost', ana, {}, { type: 'hostname', value: 'WS-042' });
    expect((await call(ana, 'POST', `/cases/${cases.blueClosed?.id}/status`, { status: 'closed', note: 'done' })).status).toBe(200);
  });
  afterAll(async () => svc?.close());

  it('answers contract v1 with the open cases the caller may see and the number of matching observables', async () => {
    const res = await related(rita, `observable_value=${ip}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.contract_version).toBe(1);
    expect(keysOf(res.body)).toEqual(keys('bluePublic', 'bluePrivate', 'red'));
    expect(res.body.observable_hits).toBe(3);
    expect(res.body.open_cases).toContainEqual({ key: cases.red?.key, severity: 'high', status: 'new', url: `/soc/cases/${cases.red?.id}` });
    const pinned = await related(rita, `observable_value=${ip}&contract_version=1&observable_field=source.ip`);
    expect(pinned.body).toEqual(res.body);
  });

  it('never shows or counts a case of another team, or a private case of which the caller is no member', async () => {
    const viewer = await related(dan, `observable_value=${ip}`);
    expect(keysOf(viewer.body)).toEqual(keys('bluePublic'));
    expect(viewer.body.observable_hits).toBe(1);
    const creator = await related(ana, `observable_value=${ip}`);
    expect(keysOf(creator.body)).toEqual(keys('bluePublic', 'bluePrivate'));
    expect(creator.body.observable_hits).toBe(2);
    const red = await related(eve, `observable_value=${ip}`);
    expect(keysOf(red.body)).toEqual(keys('red'));
    expect(red.body.observable_hits).toBe(1);
    expect((await related(eve, 'observable_value=ws-042')).status).toBe(204);
  });

  it('matches the normalized value, honours observable_field and exclude_case_id, and leaves closed cases out', async () => {
    expect(keysOf((await related(ana, 'observable_value=%20WS-042%20')).body)).toEqual(keys('blueHost'));
    expect(keysOf((await related(ana, 'observable_value=ws-042&observable_field=host.name')).body)).toEqual(keys('blueHost'));
    expect((await related(ana, `observable_value=${ip}&observable_field=host.name`)).status).toBe(204);
    const excluded = await related(ana, `observable_value=${ip}&exclude_case_id=${cases.bluePublic?.id}`);
    expect(keysOf(excluded.body)).toEqual(keys('bluePrivate'));
    expect(excluded.body.observable_hits).toBe(1);
    expect(keysOf((await related(rita, `observable_value=${ip}`)).body)).not.toContain(cases.blueClosed?.key);
  });

  it('answers 204 with no body when nothing matches', async () => {
    const res = await related(rita, 'observable_value=198.51.100.77');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  it('refuses an unsupported contract_version and a missing observable_value with 422 naming the parameter', async () => {
    for (const [query, field] of [
      [`observable_value=${ip}&contract_version=2`, 'contract_version'],
      ['observable_field=source.ip', 'observable_value'],
      [`observable_value=${ip}&exclude_case_id=nope`, 'exclude_case_id'],
    ] as const) {
      const res = await related(rita, query);
      expect(res.status, query).toBe(422);
      expect(res.body.detail).toContainEqual(expect.objectContaining({ loc: ['query', field] }));
    }
  });

  describe('suite context', () => {
    beforeAll(async () => {
      await alert({ alert_id: 'suite-org', suite_correlation_id: 'suite-1' });
      await alert({ alert_id: 'suite-red', suite_correlation_id: 'suite-1', team: 'red' });
      await alert({ alert_id: 'only-red', suite_correlation_id: 'suite-2', team: 'red' });
    });

    it('lists the alerts and cases of the id that the caller may see, navigation metadata only', async () => {
      const all = await call(rita, 'GET', '/suite-context/suite-1');
      expect(all.status, all.text).toBe(200);
      expect(all.body.suite_correlation_id).toBe('suite-1');
      expect(all.body.alerts.map((a: { title: string }) => a.title).sort()).toEqual(['Rule suite-org', 'Rule suite-red']);
      expect(all.body.cases).toHaveLength(2);
      for (const a of all.body.alerts) expect(Object.keys(a).sort()).toEqual(['id', 'severity', 'source', 'status', 'title', 'url']);
      for (const c of all.body.cases) expect(c.url).toBe(`/soc/cases/${c.id}`);

      const blue = await call(dan, 'GET', '/suite-context/suite-1');
      expect(blue.status).toBe(200);
      expect(blue.body.alerts.map((a: { title: string }) => a.title)).toEqual(['Rule suite-org']);
      expect(blue.body.cases.map((c: { title: string }) => c.title)).toEqual(['Rule suite-org']);
    });

    it('answers an inaccessible id exactly like an absent one', async () => {
      const hidden = await call(dan, 'GET', '/suite-context/suite-2');
      const absent = await call(dan, 'GET', '/suite-context/no-such-id');
      expect(hidden.status).toBe(404);
      expect(absent.status).toBe(404);
      expect(hidden.text).toBe(absent.text);
      expect(hidden.body).toEqual({ detail: 'suite context not found', code: 'suite_context_not_found', params: {} });
      expect((await call(eve, 'GET', '/suite-context/suite-2')).status).toBe(200);
    });
  });
});
