/**
 * Case merge and split on the real service, on every engine (docs/configuration.md "Case
 * merge and split"; issue 50): after merging A and B into C twice, A and B point at C and
 * C holds their alerts, de-duplicated observables, comments, tasks (with their comments),
 * attachments and evidence pins once, cross-case hits resolve to C, and the second request
 * appends nothing; the list skips merged cases; a merged source, the target itself, and a
 * merge that would widen who sees a case are refused; splitting an alert out opens a new
 * case of the same team and privacy with the alert's observables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { assertionAs, callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { gatedStepRunbookYaml } from '../support/runbook-definitions.ts';
import { e2eEngines } from '../support/service-process.ts';

const lead = testPerson('lead@example.com', [{ team: 'blue', role: 'analyst' }]);
const both = testPerson('both@example.com', [
  { team: 'blue', role: 'analyst' },
  { team: 'red', role: 'analyst' },
]);

const admin = testPerson('admin@example.com', [{ team: null, role: 'admin' }]);

type Item = { id: string; [k: string]: unknown };

describe.each(e2eEngines)('case merge and split on $name', ({ server }) => {
  let svc: InProcessService;
  let store: PostgresEventStore;

  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      { runbooks: { 'merge-gated.yml': gatedStepRunbookYaml('merge-gated', 'case.update', '{ tags_add: ["x"] }') } },
    );
    store = new PostgresEventStore(svc.service.opened.db);
  }, 90_000);
  afterAll(async () => svc?.close());

  const ok = async (who: TestPerson, method: string, path: string, body?: unknown, status = 200) => {
    const answer = await callAs(svc, who, method, path, body);
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
    return answer.body;
  };
  /** A case opened by escalating an alert of `observables`, in team blue unless told. */
  const caseWithAlert = async (title: string, observables: { type: string; value: string }[], team = 'blue') => {
    const alert = await ok(both, 'POST', '/alerts', { title, severity: 'medium', team, observables }, 201);
    const escalated = await ok(both, 'POST', `/alerts/${alert.id}/escalate`, {}, 201);
    return { caseId: escalated.case_id as string, alertId: alert.id as string };
  };
  const upload = async (caseId: string, text: string) => {
    const form = new FormData();
    form.append('file', new Blob([new TextEncoder().encode(text)], { type: 'text/plain' }), 'notes.txt');
    const res = await svc.request(`/cases/${caseId}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await assertionAs(svc, lead, 'POST', `/cases/${caseId}/attachments`)}` },
      body: form,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const items = async (path: string): Promise<Item[]> => (await ok(lead, 'GET', path)).items;

  it('merges A and B into C once, moving and copying what they hold; a second request merges nothing more', async () => {
    const a = await caseWithAlert('Beacon from 203.0.113.7', [{ type: 'ip', value: '203.0.113.7' }]);
    const b = await caseWithAlert('Same beacon, other sensor', [
      { type: 'ip', value: '203.0.113.7' },
      { type: 'domain', value: 'evil.example' },
    ]);
    const c = await caseWithAlert('DNS to evil.example', [{ type: 'domain', value: 'evil.example' }]);
    const d = await caseWithAlert('Unrelated, same address', [{ type: 'ip', value: '203.0.113.7' }]);

    await ok(lead, 'POST', `/cases/${a.caseId}/observables`, { type: 'ip', value: '198.51.100.1' }, 201);
    const bManual = await ok(lead, 'POST', `/cases/${b.caseId}/observables`, { type: 'ip', value: '198.51.100.1' }, 201);
    const aComment = await ok(lead, 'POST', `/cases/${a.caseId}/comments`, { body: 'Seen on two laptops.' }, 201);
    const commentRow = (await items(`/cases/${a.caseId}/timeline`)).find((t) => t.kind === 'comment_added' && (t.payload as Item).comment_id === aComment.id);
    await ok(lead, 'POST', `/cases/${a.caseId}/evidence`, { kind: 'timeline', ref_id: commentRow?.id, note: 'first sighting' }, 201);
    const run = await ok(lead, 'POST', `/cases/${a.caseId}/runbooks/merge-gated/run`, {}, 202);
    await ok(lead, 'POST', `/cases/${b.caseId}/comments`, { body: 'Sensor B agrees.' }, 201);
    const task = await ok(lead, 'POST', `/cases/${a.caseId}/tasks`, { title: 'Pull proxy logs' }, 201);
    await ok(lead, 'POST', `/cases/${a.caseId}/tasks/${task.id}/comments`, { text: 'Requested from netops.' }, 201);
    const attachment = await upload(a.caseId, 'pcap summary');
    await ok(lead, 'POST', `/cases/${a.caseId}/evidence`, { kind: 'attachment', ref_id: attachment, note: 'the capture' }, 201);
    await ok(lead, 'POST', `/cases/${b.caseId}/evidence`, { kind: 'observable', ref_id: bManual.id, note: 'second hop' }, 201);

    const merge = { source_ids: [a.caseId, b.caseId], reason: 'one campaign' };
    const first = await ok(lead, 'POST', `/cases/${c.caseId}/merge`, merge);
    expect(first.merged).toEqual([a.caseId, b.caseId]);
    expect(first.case).toMatchObject({ id: c.caseId, merged_into: null, alert_count: 3 });
    expect(first.case.merged_from.map((m: { case_id: string }) => m.case_id)).toEqual([a.caseId, b.caseId]);

    const audited = (await ok(admin, 'GET', `/audit?action=case.merge`)).items;
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ target: { type: 'case', id: c.caseId }, detail: { sources: [a.caseId, b.caseId] } });

    const head = await store.headPosition();
    const again = await ok(lead, 'POST', `/cases/${c.caseId}/merge`, merge);
    expect(again.merged).toEqual([]);
    expect(await store.headPosition()).toBe(head);

    for (const source of [a.caseId, b.caseId]) {
      expect(await ok(lead, 'GET', `/cases/${source}`)).toMatchObject({ merged_into: c.caseId, status: 'closed', alert_count: 0 });
      const timeline = await items(`/cases/${source}/timeline`);
      expect(timeline.map((t) => t.kind)).toEqual(expect.arrayContaining(['merged', 'status_changed']));
    }
    expect((await items(`/cases/${c.caseId}/alerts`)).map((x) => x.id).sort()).toEqual([a.alertId, b.alertId, c.alertId].sort());
    const observables = await items(`/cases/${c.caseId}/observables`);
    expect(observables.map((o) => `${o.type}:${o.value}`).sort()).toEqual(['domain:evil.example', 'ip:198.51.100.1', 'ip:203.0.113.7']);
    expect(await items(`/cases/${a.caseId}/observables`)).toEqual([]);

    const comments = await items(`/cases/${c.caseId}/comments`);
    expect(comments.map((x) => x.body)).toEqual(['Seen on two laptops.', 'Sensor B agrees.']);
    expect(comments[0]?.merged_from).toMatchObject({ case_id: a.caseId });
    expect((await items(`/cases/${a.caseId}/comments`)).map((x) => x.body)).toEqual(['Seen on two laptops.']);
    const tasks = await items(`/cases/${c.caseId}/tasks`);
    expect(tasks.map((t) => t.id)).toEqual([task.id]);
    expect((await items(`/cases/${c.caseId}/tasks/${task.id}/comments`)).map((x) => x.text)).toEqual(['Requested from netops.']);
    expect(await items(`/cases/${a.caseId}/tasks`)).toEqual([]);

    const attachments = await items(`/cases/${c.caseId}/attachments`);
    expect(attachments).toHaveLength(1);
    const pins = await items(`/cases/${c.caseId}/evidence`);
    expect(pins).toHaveLength(3);
    expect(pins.find((p) => p.kind === 'timeline')).toMatchObject({ ref_id: commentRow?.id, ref: { kind: 'comment_added' } });
    expect((await items(`/runs?case_id=${c.caseId}`)).map((r) => r.id)).toEqual([run.id]);
    const attachmentPin = pins.find((p) => p.kind === 'attachment');
    expect(attachmentPin).toMatchObject({ ref_id: attachments[0]?.id, ref: { filename: 'notes.txt' } });
    const observablePin = pins.find((p) => p.kind === 'observable');
    expect(observablePin?.ref).toMatchObject({ type: 'ip', value: '198.51.100.1', removed: false });
    expect(observablePin?.ref_id).toBe(observables.find((o) => o.value === '198.51.100.1')?.id);

    const hits = (await items(`/cases/${d.caseId}/observables`))[0]?.cross_case_hits as { case_id: string }[];
    expect(hits.map((h) => h.case_id)).toEqual([c.caseId]);
    const listed = (await ok(lead, 'GET', '/cases?limit=200')).items.map((x: Item) => x.id);
    expect(listed).toContain(c.caseId);
    expect(listed).not.toContain(a.caseId);

    const refused = await callAs(svc, lead, 'POST', `/cases/${d.caseId}/merge`, { source_ids: [a.caseId], reason: 'again' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'case_already_merged', params: { case_id: a.caseId, merged_into: c.caseId } });
    const intoMerged = await callAs(svc, lead, 'POST', `/cases/${a.caseId}/merge`, { source_ids: [d.caseId], reason: 'no' });
    expect(intoMerged.body.code).toBe('case_already_merged');
    const self = await callAs(svc, lead, 'POST', `/cases/${c.caseId}/merge`, { source_ids: [c.caseId], reason: 'no' });
    expect(self.status).toBe(422);
    expect(self.body.code).toBe('case_merge_self');
  }, 120_000);

  it('refuses a merge that would show a case to people who cannot see it, and a bad request naming the field', async () => {
    const red = await caseWithAlert('Red team finding', [], 'red');
    const blue = await caseWithAlert('Blue finding', []);
    const widened = await callAs(svc, both, 'POST', `/cases/${blue.caseId}/merge`, { source_ids: [red.caseId], reason: 'x' });
    expect(widened.status).toBe(409);
    expect(widened.body).toMatchObject({ code: 'case_merge_widens_access', params: { case_id: red.caseId } });
    const hidden = await ok(lead, 'POST', '/cases', { title: 'Insider', severity: 'high', team: 'blue', private: true }, 201);
    const fromPrivate = await callAs(svc, lead, 'POST', `/cases/${blue.caseId}/merge`, { source_ids: [hidden.id], reason: 'x' });
    expect(fromPrivate.body.code).toBe('case_merge_widens_access');
    const notVisible = await callAs(svc, lead, 'POST', `/cases/${blue.caseId}/merge`, { source_ids: [red.caseId], reason: 'x' });
    expect(notVisible.status).toBe(404);
    const empty = await callAs(svc, lead, 'POST', `/cases/${blue.caseId}/merge`, { source_ids: [], reason: '' });
    expect(empty.status).toBe(422);
    expect(empty.body.detail.map((x: { loc: unknown }) => x.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'source_ids'],
        ['body', 'reason'],
      ]),
    );
  }, 60_000);

  it('splits an alert out into a new case of the same team and privacy, with its observables', async () => {
    const hidden = await ok(lead, 'POST', '/cases', { title: 'Quiet one', severity: 'low', team: 'blue', private: true }, 201);
    const alert = await ok(
      lead,
      'POST',
      '/alerts',
      { title: 'Odd login', severity: 'high', team: 'blue', observables: [{ type: 'user', value: 'mallory' }] },
      201,
    );
    await ok(lead, 'POST', `/cases/${hidden.id}/alerts`, { alert_id: alert.id });
    const other = await ok(lead, 'POST', '/alerts', { title: 'Second', severity: 'low', team: 'blue' }, 201);
    await ok(lead, 'POST', `/cases/${hidden.id}/alerts`, { alert_id: other.id });

    const split = await ok(lead, 'POST', `/cases/${hidden.id}/alerts/${alert.id}/split`, undefined, 201);
    expect(split.case).toMatchObject({ title: 'Odd login', severity: 'high', team: 'blue', private: true, alert_count: 1 });
    expect((await items(`/cases/${split.case.id}/alerts`)).map((x) => x.id)).toEqual([alert.id]);
    expect((await items(`/cases/${split.case.id}/observables`)).map((o) => `${o.type}:${o.value}`)).toEqual(['user:mallory']);
    expect((await ok(lead, 'GET', `/cases/${hidden.id}`)).alert_count).toBe(1);
    const notHeld = await callAs(svc, lead, 'POST', `/cases/${hidden.id}/alerts/${alert.id}/split`);
    expect(notHeld.status).toBe(404);
    expect(notHeld.body.code).toBe('alert_not_in_case');
  }, 60_000);
});
