/**
 * `POST /cases/bulk` and `POST /alerts/bulk` on the real service, on every engine
 * (docs/configuration.md "Bulk operations"; issue 50): 200 cases closed in one request,
 * each with exactly one status event and one timeline entry, a forbidden or unknown id
 * failing alone; the same `Idempotency-Key` replaying the answer and appending nothing;
 * every operation doing what its single request does; bad requests refused with the field
 * named; alerts dismissed, linked and escalated each or into one case.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { streams } from '../../domain/shared/streams.ts';
import {
  assertionAs,
  callAs,
  expectDeclared,
  startInProcessService,
  testPerson,
  type InProcessService,
  type TestPerson,
} from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const lead = testPerson('lead@example.com', [{ team: 'blue', role: 'analyst' }]);
const owner = testPerson('owner@example.com', [{ team: 'blue', role: 'analyst' }]);
const redViewer = testPerson('red-lead@example.com', [
  { team: 'blue', role: 'analyst' },
  { team: 'red', role: 'viewer' },
]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

describe.each(e2eEngines)('bulk case operations on $name', ({ server }) => {
  let svc: InProcessService;
  let store: PostgresEventStore;

  beforeAll(async () => {
    svc = await startInProcessService({ server });
    store = new PostgresEventStore(svc.service.opened.db);
  }, 90_000);
  afterAll(async () => svc?.close());

  const open = async (who: TestPerson, team: string, n: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const answer = await callAs(svc, who, 'POST', '/cases', { title: `Case ${i}`, severity: 'low', team });
      expect(answer.status, answer.text).toBe(201);
      ids.push(answer.body.id);
    }
    return ids;
  };
  const bulk = async (who: TestPerson, body: unknown, key?: string, path = '/cases/bulk') => {
    const token = await assertionAs(svc, who, 'POST', path);
    const res = await svc.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key && { 'idempotency-key': key }) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    await expectDeclared(svc, 'POST', path, res, text);
    return { status: res.status, body: JSON.parse(text), replayed: res.headers.get('idempotent-replayed') };
  };
  const eventTypes = async (id: string) => (await store.readStream(streams.case(id))).map((e) => e.type);

  it('closes 200 cases in one request, each with one status event and one timeline entry; a forbidden or unknown id fails alone; a key replays', async () => {
    const blue = await open(lead, 'blue', 200);
    const [redCase] = await open(red, 'red', 1);
    const unknown = randomUUID();
    const ids = [...blue.slice(0, 100), redCase, unknown, ...blue.slice(100)];

    const first = await bulk(redViewer, { ids, operation: 'close' }, 'close-200');
    expect(first.status).toBe(200);
    expect(first.replayed).toBeNull();
    expect(first.body.results).toHaveLength(202);
    expect(first.body.results.map((r: { id: string }) => r.id)).toEqual(ids);
    expect(first.body.results[100]).toMatchObject({ id: redCase, ok: false, code: 'forbidden' });
    expect(first.body.results[101]).toMatchObject({ id: unknown, ok: false, code: 'case_not_found' });
    expect(first.body.results.filter((r: { ok: boolean }) => r.ok)).toHaveLength(200);

    for (const id of [blue[0], blue[150], blue[199]] as string[]) {
      expect(await eventTypes(id)).toEqual(['case.opened', 'case.status_changed']);
      const timeline = await callAs(svc, lead, 'GET', `/cases/${id}/timeline`);
      expect(timeline.body.items.filter((e: { kind: string }) => e.kind === 'status_changed')).toHaveLength(1);
      expect((await callAs(svc, lead, 'GET', `/cases/${id}`)).body.status).toBe('closed');
    }
    expect(await eventTypes(redCase as string)).toEqual(['case.opened']);

    const head = await store.headPosition();
    const again = await bulk(redViewer, { ids, operation: 'close' }, 'close-200');
    expect(again).toMatchObject({ status: 200, replayed: 'true' });
    expect(again.body).toEqual(first.body);
    expect(await store.headPosition()).toBe(head);
    const reused = await bulk(redViewer, { ids: blue.slice(0, 1), operation: 'reopen' }, 'close-200');
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('idempotency_key_reused');
    // Without a key, closing closed cases again is allowed and changes nothing.
    expect((await bulk(redViewer, { ids: blue.slice(0, 5), operation: 'close' })).body.results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    expect(await store.headPosition()).toBe(head);
  }, 120_000);

  it('does what each single request does: reopen, set_status, assign, set_severity, add_tags and remove_tags', async () => {
    const ids = await open(lead, 'blue', 3);
    const ownerId = (await callAs(svc, owner, 'GET', '/auth/me')).body.id;
    const ok = async (body: Record<string, unknown>) => {
      const answer = await bulk(lead, { ids, ...body });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    };
    await ok({ operation: 'set_status', params: { status: 'resolved' } });
    await ok({ operation: 'reopen' });
    await ok({ operation: 'assign', params: { owner_id: ownerId } });
    await ok({ operation: 'set_severity', params: { severity: 'critical' } });
    await ok({ operation: 'add_tags', params: { tags: ['phishing', 'vip'] } });
    await ok({ operation: 'add_tags', params: { tags: ['vip'] } });
    await ok({ operation: 'remove_tags', params: { tags: ['phishing'] } });
    for (const id of ids) {
      const theCase = (await callAs(svc, lead, 'GET', `/cases/${id}`)).body;
      expect(theCase).toMatchObject({ status: 'new', owner_id: ownerId, severity: 'critical', tags: ['vip'] });
      expect(await eventTypes(id)).toEqual([
        'case.opened',
        'case.status_changed',
        'case.status_changed',
        'case.assigned',
        'case.updated',
        'case.updated',
        'case.updated',
      ]);
    }
    // An owner who cannot see the case fails that case alone, as POST /cases/<id>/assign would.
    const redId = (await callAs(svc, red, 'GET', '/auth/me')).body.id;
    const refused = await bulk(lead, { ids: ids.slice(0, 1), operation: 'assign', params: { owner_id: redId } });
    expect(refused.body.results[0]).toMatchObject({ ok: false, code: 'assignee_no_access' });
  }, 60_000);

  it('refuses a bad request whole, naming the field', async () => {
    const id = randomUUID();
    const refused = async (body: unknown, loc: (string | number)[]) => {
      const answer = await bulk(lead, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(answer.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['body', ...loc]);
    };
    await refused({ ids: [], operation: 'close' }, ['ids']);
    await refused({ ids: Array.from({ length: 501 }, () => randomUUID()), operation: 'close' }, ['ids']);
    await refused({ ids: [id, id], operation: 'close' }, ['ids']);
    await refused({ ids: ['not-a-uuid'], operation: 'close' }, ['ids', 0]);
    await refused({ ids: [id], operation: 'set_status', params: { status: 'sleeping' } }, ['params', 'status']);
    await refused({ ids: [id], operation: 'set_severity' }, ['params']);
    await refused({ ids: [id], operation: 'explode' }, ['operation']);
    const badKey = await bulk(lead, { ids: [id], operation: 'close' }, 'k'.repeat(201));
    expect(badKey.status).toBe(422);
    expect(badKey.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
  });

  it('dismisses, links and escalates alerts of the inbox, each or into one case, an unknown one failing alone', async () => {
    const inbox = async (n: number): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const answer = await callAs(svc, lead, 'POST', '/alerts', { title: `Inbox ${i}`, severity: 'medium', team: 'blue' });
        expect(answer.status, answer.text).toBe(201);
        ids.push(answer.body.id);
      }
      return ids;
    };
    const alertBulk = (body: unknown, key?: string) => bulk(lead, body, key, '/alerts/bulk');
    const alertOf = async (id: string) => (await callAs(svc, lead, 'GET', `/alerts/${id}`)).body;

    const [d1, d2] = await inbox(2);
    const unknown = randomUUID();
    const dismissed = await alertBulk({ ids: [d1, unknown, d2], operation: 'dismiss', params: { reason: 'scanner noise' } }, 'dismiss-1');
    expect(dismissed.body.results.map((r: { ok: boolean; code?: string }) => r.code ?? r.ok)).toEqual([true, 'alert_not_found', true]);
    expect((await alertOf(d1 as string)).status).toBe('dismissed');
    expect((await alertBulk({ ids: [d1, unknown, d2], operation: 'dismiss', params: { reason: 'scanner noise' } }, 'dismiss-1')).replayed).toBe('true');

    const together = await inbox(3);
    const one = await alertBulk({ ids: together, operation: 'escalate', params: { mode: 'one' } });
    const caseIds = new Set(one.body.results.map((r: { case_id: string }) => r.case_id));
    expect(caseIds.size).toBe(1);
    const [caseId] = [...caseIds] as string[];
    expect((await callAs(svc, lead, 'GET', `/cases/${caseId}/alerts`)).body.items.map((a: { id: string }) => a.id).sort()).toEqual([...together].sort());

    const apart = await inbox(2);
    const each = await alertBulk({ ids: apart, operation: 'escalate', params: { mode: 'each' } });
    expect(new Set(each.body.results.map((r: { case_id: string }) => r.case_id)).size).toBe(2);

    const [target] = await open(lead, 'blue', 1);
    const linked = await inbox(2);
    const link = await alertBulk({ ids: linked, operation: 'link', params: { case_id: target } });
    expect(link.body.results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    for (const id of linked) expect((await alertOf(id)).case_id).toBe(target);

    // A case the caller cannot manage takes no alert: the request is refused whole.
    const [redCase] = await open(red, 'red', 1);
    const refused = await alertBulk({ ids: linked, operation: 'link', params: { case_id: redCase } });
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe('case_not_found');
  }, 60_000);
});
