/**
 * Case observables on the real service, on every engine (SPEC.md "Case sub-resources",
 * "Cases"): de-duplication on the normalized value, cross-case hits limited to cases
 * the caller may see, removal and re-adding, and the case timeline.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

type Person = TestPerson;

const ana: Person = { sub: randomUUID(), email: 'ana@example.com', grants: [{ team: 'blue', role: 'analyst' }] };
const root: Person = { sub: randomUUID(), email: 'root@example.com', grants: [{ team: null, role: 'admin' }] };

describe.each(e2eEngines)('case observables on $name', ({ server }) => {
  let svc: InProcessService;
  const call = (who: Person, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const open = async (who: Person, body: Record<string, unknown>) => {
    const res = await call(who, 'POST', '/cases', { severity: 'high', ...body });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };

  let mine = '';
  let sibling = '';
  let hidden = '';
  beforeAll(async () => {
    svc = await startInProcessService({ server });
    mine = await open(ana, { title: 'Beacon from WS-042' });
    sibling = await open(ana, { title: 'Same C2 elsewhere' });
    hidden = await open(root, { title: 'Red team private', team: 'red', private: true });
    for (const id of [sibling, hidden]) {
      expect((await call(root, 'POST', `/cases/${id}/observables`, { type: 'ip', value: '2001:db8::1' })).status).toBe(201);
    }
  });
  afterAll(async () => svc?.close());

  it('adds an observable with its normalized value and the cross-case hits the caller may see', async () => {
    const res = await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'ip', value: ' 2001:0DB8:0:0:0:0:0:1 ' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ case_id: mine, type: 'ip', value: '2001:0DB8:0:0:0:0:0:1', normalized: '2001:db8::1', deduplicated: false });
    expect(res.body.cross_case_hits.map((h: { case_id: string }) => h.case_id)).toEqual([sibling]);
    const asRoot = await call(root, 'POST', `/cases/${mine}/observables`, { type: 'ip', value: '2001:db8::1' });
    expect(asRoot.status).toBe(200);
    expect(asRoot.body.cross_case_hits.map((h: { case_id: string }) => h.case_id).sort()).toEqual([hidden, sibling].sort());
  });

  it('lists each observable with the cross-case hits the caller may see, as adding it answers', async () => {
    const listed = async (who: Person) =>
      (await call(who, 'GET', `/cases/${mine}/observables`)).body.items.find((o: { normalized: string }) => o.normalized === '2001:db8::1');
    const asAna = await listed(ana);
    expect(asAna.cross_case_hits).toEqual([
      expect.objectContaining({ case_id: sibling, title: 'Same C2 elsewhere', status: 'new', case_key: expect.any(String) }),
    ]);
    expect((await listed(root)).cross_case_hits.map((h: { case_id: string }) => h.case_id).sort()).toEqual([hidden, sibling].sort());
    const lone = await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'sha256', value: 'ef'.repeat(32) });
    const items = (await call(ana, 'GET', `/cases/${mine}/observables`)).body.items;
    expect(items.find((o: { id: string }) => o.id === lone.body.id).cross_case_hits).toEqual([]);
  });

  it('caps the listed hits of one value at 20, newest first', async () => {
    const opened: string[] = [];
    for (let i = 0; i < 21; i++) {
      const id = await open(ana, { title: `Spray ${i}` });
      expect((await call(ana, 'POST', `/cases/${id}/observables`, { type: 'ip', value: '198.51.100.77' })).status).toBe(201);
      opened.push(id);
    }
    expect((await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'ip', value: '198.51.100.77' })).status).toBe(201);
    const item = (await call(ana, 'GET', `/cases/${mine}/observables`)).body.items.find((o: { normalized: string }) => o.normalized === '198.51.100.77');
    expect(item.cross_case_hits.map((h: { case_id: string }) => h.case_id)).toEqual(opened.slice(1).reverse());
  });

  it('de-duplicates on the normalized value and answers the observable already there', async () => {
    const first = await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'domain', value: 'Evil.Example.' });
    const again = await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'domain', value: 'evil.example' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, deduplicated: true });
    const listed = await call(ana, 'GET', `/cases/${mine}/observables`);
    expect(listed.body.items.filter((o: { type: string }) => o.type === 'domain')).toHaveLength(1);
  });

  it('refuses a malformed value or an unknown type, naming the field', async () => {
    const bad = await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'ip', value: '127.1' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'value']);
    const unknownType = await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'phone', value: '123' });
    expect(unknownType.status).toBe(422);
    expect(unknownType.body.detail[0].loc).toEqual(['body', 'type']);
  });

  it('removes an observable, then adds it again under a new id, with both moves on the timeline', async () => {
    const added = await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'sha256', value: 'AB'.repeat(32) });
    expect((await call(ana, 'DELETE', `/cases/${mine}/observables/${added.body.id}`)).status).toBe(204);
    expect((await call(ana, 'DELETE', `/cases/${mine}/observables/${added.body.id}`)).body.code).toBe('observable_not_found');
    const listed = await call(ana, 'GET', `/cases/${mine}/observables`);
    expect(listed.body.items.map((o: { id: string }) => o.id)).not.toContain(added.body.id);
    const back = await call(ana, 'POST', `/cases/${mine}/observables`, { type: 'sha256', value: 'ab'.repeat(32) });
    expect(back.status).toBe(201);
    expect(back.body.id).not.toBe(added.body.id);
    const kinds = (await call(ana, 'GET', `/cases/${mine}/timeline`)).body.items.map((e: { kind: string }) => e.kind);
    expect(kinds.filter((k: string) => k === 'observable_removed')).toHaveLength(1);
    expect(kinds.filter((k: string) => k === 'observable_added').length).toBeGreaterThanOrEqual(3);
  });

  it('hides observables of a case the caller may not see', async () => {
    expect((await call(ana, 'GET', `/cases/${hidden}/observables`)).status).toBe(404);
    expect((await call(ana, 'POST', `/cases/${hidden}/observables`, { type: 'ip', value: '198.51.100.1' })).status).toBe(404);
  });
});
