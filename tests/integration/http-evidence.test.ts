/**
 * Evidence pins on the real service, on every engine (SPEC.md "Cases": `GET, POST
 * /cases/<id>/evidence`; "Case sub-resources": Evidence pin; docs/configuration.md
 * "Attachments and evidence"): every kind pinned and listed newest first with its
 * summary, references limited to the case, the note required, and case scoping.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVIDENCE_NOTE_MAX } from '../../domain/cases/evidence.ts';
import { listEvidence } from '../../projections/evidence/evidence.queries.ts';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { manualNoteRunbook } from '../support/runbooks.ts';

const noteRunbook = manualNoteRunbook('evidence-note', 'from the runbook');

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const vic = testPerson('vic@example.com', [{ team: 'blue', role: 'viewer' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);

/** Resolves once `done()` holds; throws after 20 s (a run that never finishes). */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met within 20 s');
}

describe.each(e2eEngines)('evidence pins on $name', ({ server }) => {
  let svc: InProcessService;
  let caseId = '';
  let otherCaseId = '';
  const refs = {
    timeline: '',
    observable: '',
    removedObservable: '',
    attachment: '',
    actionLog: 0,
    otherObservable: '',
    otherAttachment: '',
    otherTimeline: '',
  };
  const call = (who: TestPerson, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const pin = (body: unknown, who: TestPerson = ana, target = caseId) => call(who, 'POST', `/cases/${target}/evidence`, body);
  const pins = async () =>
    (await call(ana, 'GET', `/cases/${caseId}/evidence`)).body.items as { id: string; kind: string; ref_id: string | null; ref: unknown }[];

  const observable = async (target: string, value: string) => {
    const res = await call(ana, 'POST', `/cases/${target}/observables`, { type: 'ip', value });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const attachment = async (target: string, name: string) => {
    const path = `/cases/${target}/attachments`;
    const token = await svc.identity.sign({
      token_use: 'assertion',
      sub: ana.sub,
      email: ana.email,
      name: ana.email,
      grants: ana.grants,
      htm: 'POST',
      htu: path,
    });
    const form = new FormData();
    form.append('file', new Blob([`contents of ${name}`], { type: 'text/plain' }), name);
    const res = await svc.request(path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const firstTimelineId = async (target: string) => (await call(ana, 'GET', `/cases/${target}/timeline`)).body.items[0].id as string;

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks: { 'evidence-note.yml': noteRunbook } });
    caseId = (await call(ana, 'POST', '/cases', { title: 'Beaconing host', severity: 'high' })).body.id;
    otherCaseId = (await call(ana, 'POST', '/cases', { title: 'Unrelated', severity: 'low' })).body.id;
    refs.observable = await observable(caseId, '203.0.113.7');
    refs.removedObservable = await observable(caseId, '203.0.113.8');
    expect((await call(ana, 'DELETE', `/cases/${caseId}/observables/${refs.removedObservable}`)).status).toBe(204);
    refs.otherObservable = await observable(otherCaseId, '203.0.113.7');
    refs.attachment = await attachment(caseId, 'pcap-summary.txt');
    refs.otherAttachment = await attachment(otherCaseId, 'other.txt');
    refs.timeline = await firstTimelineId(caseId);
    refs.otherTimeline = await firstTimelineId(otherCaseId);
    const run = await call(ana, 'POST', `/cases/${caseId}/runbooks/evidence-note/run`, {});
    expect(run.status, run.text).toBe(202);
    await until(async () => (await call(ana, 'GET', `/runs/${run.body.id}`)).body.status === 'succeeded');
    const log = (await call(ana, 'GET', `/runs/${run.body.id}`)).body.action_log as { index: number; step_id: string }[];
    expect(log.length).toBeGreaterThan(0);
    refs.actionLog = log[0]?.index ?? -1;
  }, 60_000);
  afterAll(async () => svc?.close());

  it('pins every kind with its note and lists them newest first, each with a summary of what it references', async () => {
    const bodies = [
      { kind: 'timeline', ref_id: refs.timeline, note: '  case opened here  ' },
      { kind: 'observable', ref_id: refs.observable, note: 'C2 address' },
      { kind: 'attachment', ref_id: refs.attachment, note: 'capture summary' },
      { kind: 'action_log', ref_id: refs.actionLog, note: 'runbook noted it' },
      { kind: 'link', url: 'https://intel.example.com/report?id=7', note: 'vendor write-up' },
    ];
    const created = [];
    for (const body of bodies) {
      const res = await pin(body);
      expect(res.status, res.text).toBe(201);
      created.push(res.body);
    }
    expect(created[0]).toMatchObject({ case_id: caseId, kind: 'timeline', ref_id: refs.timeline, url: null, note: 'case opened here', pinned_by: ana.email });
    expect(created[3]).toMatchObject({ kind: 'action_log', ref_id: String(refs.actionLog) });
    expect(created[4]).toMatchObject({ kind: 'link', ref_id: null, url: 'https://intel.example.com/report?id=7', ref: null });

    const listed = await call(vic, 'GET', `/cases/${caseId}/evidence`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((p: { id: string }) => p.id)).toEqual(created.map((p) => p.id).reverse());
    const byKind = Object.fromEntries(listed.body.items.map((p: { kind: string; ref: unknown }) => [p.kind, p.ref]));
    expect(byKind).toEqual({
      timeline: { kind: 'opened', at: expect.any(String), actor: ana.email },
      observable: { type: 'ip', value: '203.0.113.7', removed: false },
      attachment: {
        filename: 'pcap-summary.txt',
        content_type: 'text/plain',
        size: 'contents of pcap-summary.txt'.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      action_log: { run_id: expect.any(String), step_id: 'note', action: 'case.update', status: expect.any(String), finished_at: expect.any(String) },
      link: null,
    });
    expect((await listEvidence(svc.service.opened.db, caseId, 2)).map((p) => p.id)).toEqual([created[4]?.id, created[3]?.id]);

    const room = await call(vic, 'GET', `/cases/${caseId}/war-room`);
    expect(room.body.pinned_evidence).toEqual(listed.body.items);

    const timeline = (await call(ana, 'GET', `/cases/${caseId}/timeline`)).body.items;
    expect(timeline).toContainEqual(
      expect.objectContaining({ kind: 'evidence_pinned', payload: expect.objectContaining({ pin_id: created[1]?.id, kind: 'observable' }) }),
    );
  });

  it('refuses bad pins with 422 naming the field, and records none of them', async () => {
    const before = (await pins()).length;
    const refused = async (body: unknown, loc: (string | number)[], msg?: RegExp) => {
      const res = await pin(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail, JSON.stringify(body)).toContainEqual(expect.objectContaining({ loc, ...(msg && { msg: expect.stringMatching(msg) }) }));
    };
    await refused({ kind: 'observable', ref_id: refs.observable }, ['body', 'note']);
    await refused({ kind: 'observable', ref_id: refs.observable, note: '   ' }, ['body', 'note']);
    await refused({ kind: 'observable', ref_id: refs.observable, note: 'x'.repeat(EVIDENCE_NOTE_MAX + 1) }, ['body', 'note']);
    await refused({ kind: 'email', ref_id: refs.observable, note: 'n' }, ['body', 'kind']);
    await refused({ kind: 'observable', note: 'n' }, ['body', 'ref_id']);
    await refused({ kind: 'observable', ref_id: refs.otherObservable, note: 'n' }, ['body', 'ref_id'], /observable of this case/);
    await refused({ kind: 'observable', ref_id: refs.removedObservable, note: 'n' }, ['body', 'ref_id']);
    await refused({ kind: 'observable', ref_id: 'not-a-uuid', note: 'n' }, ['body', 'ref_id']);
    await refused({ kind: 'attachment', ref_id: refs.otherAttachment, note: 'n' }, ['body', 'ref_id'], /attachment of this case/);
    await refused({ kind: 'attachment', ref_id: randomUUID(), note: 'n' }, ['body', 'ref_id']);
    await refused({ kind: 'timeline', ref_id: refs.otherTimeline, note: 'n' }, ['body', 'ref_id'], /timeline/);
    await refused({ kind: 'timeline', ref_id: refs.observable, note: 'n' }, ['body', 'ref_id']);
    await refused({ kind: 'action_log', ref_id: refs.actionLog + 1_000_000, note: 'n' }, ['body', 'ref_id'], /action-log/);
    await refused({ kind: 'link', url: 'ftp://files.example.com/x', note: 'n' }, ['body', 'url']);
    await refused({ kind: 'link', url: '/relative/path', note: 'n' }, ['body', 'url']);
    await refused({ kind: 'link', url: 'javascript:alert(1)', note: 'n' }, ['body', 'url']);
    await refused({ kind: 'link', note: 'n' }, ['body', 'url']);
    await refused({ kind: 'link', url: 'https://example.com', ref_id: refs.timeline, note: 'n' }, ['body', 'ref_id']);
    await refused({ kind: 'attachment', ref_id: refs.attachment, url: 'https://example.com', note: 'n' }, ['body', 'url']);
    expect(await pins()).toHaveLength(before);
  });

  it('does not pin an item of this case onto another case', async () => {
    const res = await pin({ kind: 'action_log', ref_id: refs.actionLog, note: 'n' }, ana, otherCaseId);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'ref_id'] })]);
  });

  it('hides the pins of a case the caller cannot see and needs manage_cases to pin', async () => {
    const body = { kind: 'link', url: 'https://example.com/', note: 'n' };
    for (const res of [await call(eve, 'GET', `/cases/${caseId}/evidence`), await pin(body, eve)]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('case_not_found');
    }
    const viewer = await pin(body, vic);
    expect(viewer.status).toBe(403);
    expect((await call(vic, 'GET', `/cases/${caseId}/evidence`)).status).toBe(200);
  });
});
