/**
 * Custom fields on the real service, on every engine (docs/configuration.md "Custom
 * fields"; issue 50): definitions by admins of their team (or the realm), values set with
 * `PUT /cases/<id>` and checked by type, a field required at `resolve` or `close` refusing
 * the status change that lacks it (single, bulk and runbook), and `cf.<name>` filtering
 * and sorting the case list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const rex = testPerson('rex@example.com', [{ team: 'red', role: 'analyst' }]);

describe.each(e2eEngines)('custom fields on $name', ({ server }) => {
  let svc: InProcessService;

  beforeAll(async () => {
    svc = await startInProcessService({ server });
  }, 90_000);
  afterAll(async () => svc?.close());

  const ok = async (who: TestPerson, method: string, path: string, body?: unknown, status = 200) => {
    const answer = await callAs(svc, who, method, path, body);
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
    return answer.body;
  };
  const refusedAt = async (who: TestPerson, method: string, path: string, body: unknown) => {
    const answer = await callAs(svc, who, method, path, body);
    expect(answer.status, answer.text).toBe(422);
    return answer.body.detail.map((d: { loc: unknown }) => d.loc);
  };

  it('defines fields per team or org-wide, by admins only, with options only for the list types', async () => {
    const rootCause = await ok(root, 'POST', '/custom-fields', { name: 'root_cause', label: 'Root cause', type: 'string', required_at: 'close' }, 201);
    expect(rootCause).toMatchObject({ name: 'root_cause', type: 'string', options: null, team_id: null, required_at: 'close' });
    const impact = await ok(
      blueAdmin,
      'POST',
      '/custom-fields',
      {
        name: 'impact',
        label: 'Impact',
        type: 'enum',
        options: ['low', 'high'],
        team_id: 'blue',
        required_at: 'resolve',
      },
      201,
    );
    await ok(blueAdmin, 'POST', '/custom-fields', { name: 'hosts', label: 'Hosts', type: 'number', team_id: 'blue' }, 201);
    await ok(blueAdmin, 'POST', '/custom-fields', { name: 'regions', label: 'Regions', type: 'multi_enum', options: ['eu', 'us'], team_id: 'blue' }, 201);
    expect((await callAs(svc, blueAdmin, 'POST', '/custom-fields', { name: 'x', label: 'X', type: 'string' })).status).toBe(403);
    expect((await callAs(svc, ana, 'POST', '/custom-fields', { name: 'y', label: 'Y', type: 'string', team_id: 'blue' })).status).toBe(403);
    const taken = await callAs(svc, root, 'POST', '/custom-fields', { name: 'impact', label: 'Again', type: 'string' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('custom_field_exists');
    expect(await refusedAt(root, 'POST', '/custom-fields', { name: 'Bad Name', label: 'B', type: 'enum' })).toEqual(
      expect.arrayContaining([
        ['body', 'name'],
        ['body', 'options'],
      ]),
    );

    expect((await ok(ana, 'GET', '/custom-fields')).items.map((f: { name: string }) => f.name)).toEqual(['hosts', 'impact', 'regions', 'root_cause']);
    expect((await ok(rex, 'GET', '/custom-fields')).items.map((f: { name: string }) => f.name)).toEqual(['root_cause']);
    expect((await callAs(svc, rex, 'GET', `/custom-fields/${impact.id}`)).status).toBe(404);
    const renamed = await ok(blueAdmin, 'PUT', `/custom-fields/${impact.id}`, {
      label: 'Business impact',
      options: ['low', 'medium', 'high'],
      required_at: 'resolve',
    });
    expect(renamed).toMatchObject({ name: 'impact', label: 'Business impact', options: ['low', 'medium', 'high'] });
    const audited = (await ok(root, 'GET', '/audit?action=custom_field.update')).items;
    expect(audited[0]).toMatchObject({ target: { type: 'custom_field', id: impact.id }, detail: { name: 'impact' } });
  }, 60_000);

  it('sets values by type, refuses a resolve or close without a required field, and filters and sorts the list by a field', async () => {
    const open = async (title: string) => (await ok(ana, 'POST', '/cases', { title, severity: 'low', team: 'blue' }, 201)).id as string;
    const [a, b, c] = [await open('Field case A'), await open('Field case B'), await open('Field case C')];

    expect(await refusedAt(ana, 'PUT', `/cases/${a}`, { custom_fields: { impact: 'huge', hosts: 'many', nope: 1, regions: [] } })).toEqual([
      ['body', 'custom_fields', 'impact'],
      ['body', 'custom_fields', 'hosts'],
      ['body', 'custom_fields', 'nope'],
      ['body', 'custom_fields', 'regions'],
    ]);
    const redCase = (await ok(rex, 'POST', '/cases', { title: 'Red', severity: 'low', team: 'red' }, 201)).id;
    expect(await refusedAt(rex, 'PUT', `/cases/${redCase}`, { custom_fields: { impact: 'low' } })).toEqual([['body', 'custom_fields', 'impact']]);

    const resolving = await callAs(svc, ana, 'POST', `/cases/${a}/status`, { status: 'resolved' });
    expect(resolving.status).toBe(422);
    expect(resolving.body).toMatchObject({ code: 'custom_field_required', params: { field: 'impact', status: 'resolved' } });

    const set = await ok(ana, 'PUT', `/cases/${a}`, { custom_fields: { impact: 'high', hosts: 12, regions: ['eu', 'us', 'eu'] } });
    expect(set.custom_fields).toEqual({ impact: 'high', hosts: 12, regions: ['eu', 'us'] });
    await ok(ana, 'POST', `/cases/${a}/status`, { status: 'resolved' });
    const closing = await callAs(svc, ana, 'POST', `/cases/${a}/status`, { status: 'closed' });
    expect(closing.body).toMatchObject({ code: 'custom_field_required', params: { field: 'root_cause' } });
    const bulk = await ok(ana, 'POST', '/cases/bulk', { ids: [a, b], operation: 'close' });
    expect(bulk.results).toEqual([
      { id: a, ok: false, code: 'custom_field_required', message: expect.stringContaining('root_cause') },
      { id: b, ok: false, code: 'custom_field_required', message: expect.stringContaining('impact') },
    ]);
    await ok(ana, 'PUT', `/cases/${a}`, { custom_fields: { root_cause: 'Reused password' } });
    expect((await ok(ana, 'POST', `/cases/${a}/status`, { status: 'closed' })).status).toBe('closed');
    // A case of another team needs only the org-wide field.
    await ok(rex, 'PUT', `/cases/${redCase}`, { custom_fields: { root_cause: 'Test' } });
    expect((await ok(rex, 'POST', `/cases/${redCase}/status`, { status: 'closed' })).status).toBe('closed');

    await ok(ana, 'PUT', `/cases/${b}`, { custom_fields: { impact: 'low', hosts: 3, regions: ['us'] } });
    await ok(ana, 'PUT', `/cases/${c}`, { custom_fields: { hosts: 40 } });
    const cleared = await ok(ana, 'PUT', `/cases/${c}`, { custom_fields: { hosts: null, impact: 'medium' } });
    expect(cleared.custom_fields).toEqual({ impact: 'medium' });

    const ids = async (query: string) => (await ok(ana, 'GET', `/cases?${query}`)).items.map((x: { id: string }) => x.id);
    expect(await ids('cf.impact=low')).toEqual([b]);
    expect(await ids('cf.regions=us&sort=cf.hosts')).toEqual([b, a]);
    expect(await ids('cf.hosts=12')).toEqual([a]);
    expect((await ids('sort=-cf.hosts')).slice(0, 3)).toEqual([a, b, c]);
    expect((await ids('sort=cf.hosts')).slice(0, 2)).toEqual([b, a]);
    expect(await refusedAt(ana, 'GET', '/cases?cf.hosts=many&cf.nope=1', undefined)).toEqual([
      ['query', 'cf.hosts'],
      ['query', 'cf.nope'],
    ]);
    expect(await refusedAt(ana, 'GET', '/cases?sort=cf.nope', undefined)).toEqual([['query', 'sort']]);
  }, 60_000);
});
