/**
 * The case report on the real service, on every engine (docs/configuration.md "Case
 * report"; issue 50): the report of a seeded case (comments, a task, observables, an
 * attachment pinned as evidence, a run whose gate an approver decided) is byte-identical
 * across two calls in each format, its JSON validates against docs/case-report.schema.json,
 * the PDF is a PDF, and a reader who cannot see the case is answered as for no case.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertionAs,
  callAs,
  expectDeclared,
  runWhen,
  startInProcessService,
  testPerson,
  type InProcessService,
  type TestPerson,
} from '../support/in-process-service.ts';
import { gatedStepRunbookYaml } from '../support/runbook-definitions.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const abe = testPerson('abe@example.com', [{ team: 'blue', role: 'approver' }]);
const rex = testPerson('rex@example.com', [{ team: 'red', role: 'analyst' }]);
const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../../docs/case-report.schema.json'), 'utf8'));

describe.each(e2eEngines)('the case report on $name', ({ server }) => {
  let svc: InProcessService;

  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      { runbooks: { 'report-gated.yml': gatedStepRunbookYaml('report-gated', 'case.update', '{ tags_add: ["reviewed"] }') } },
    );
  }, 90_000);
  afterAll(async () => svc?.close());

  const ok = async (who: TestPerson, method: string, path: string, body?: unknown, status = 200) => {
    const answer = await callAs(svc, who, method, path, body);
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
    return answer.body;
  };
  /** The answer's bytes, its content type declared for the route in /openapi.json. */
  const raw = async (who: TestPerson, path: string) => {
    const res = await svc.request(path, { headers: { authorization: `Bearer ${await assertionAs(svc, who, 'GET', path)}` } });
    const bytes = Buffer.from(await res.arrayBuffer());
    await expectDeclared(svc, 'GET', path, res, res.headers.get('content-type') === 'application/pdf' ? 'pdf' : bytes.toString('utf8'));
    return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes };
  };

  it('answers the same bytes twice in each format, its JSON valid against the published schema', async () => {
    const alert = await ok(
      ana,
      'POST',
      '/alerts',
      { title: 'Beacon to 203.0.113.50', severity: 'high', team: 'blue', observables: [{ type: 'ip', value: '203.0.113.50' }] },
      201,
    );
    const caseId = (await ok(ana, 'POST', `/alerts/${alert.id}/escalate`, {}, 201)).case_id as string;
    await ok(ana, 'PUT', `/cases/${caseId}`, { description: 'A | pipe and\na new line.', attack_techniques: ['T1071'] });
    await ok(ana, 'POST', `/cases/${caseId}/comments`, { body: 'Looked at the proxy logs.' }, 201);
    await ok(ana, 'POST', `/cases/${caseId}/tasks`, { title: 'Block the address', phase: 'containment' }, 201);
    await ok(ana, 'POST', `/cases/${caseId}/observables`, { type: 'domain', value: 'c2.example' }, 201);
    const form = new FormData();
    form.append('file', new Blob([new TextEncoder().encode('pcap summary')], { type: 'text/plain' }), 'capture.txt');
    const uploaded = await svc.request(`/cases/${caseId}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await assertionAs(svc, ana, 'POST', `/cases/${caseId}/attachments`)}` },
      body: form,
    });
    const attachment = (await uploaded.json()) as { id: string; sha256: string };
    await ok(ana, 'POST', `/cases/${caseId}/evidence`, { kind: 'attachment', ref_id: attachment.id, note: 'the capture' }, 201);
    const run = await ok(ana, 'POST', `/cases/${caseId}/runbooks/report-gated/run`, {}, 202);
    await runWhen(svc, ana, run.id, /^waiting_approval$/);
    await ok(abe, 'POST', `/runs/${run.id}/approve`, { step_id: 'gated', note: 'fine' });
    await runWhen(svc, ana, run.id, /^succeeded$/);

    const json = await raw(ana, `/cases/${caseId}/report?format=json`);
    expect(json.status).toBe(200);
    expect((await raw(ana, `/cases/${caseId}/report?format=json`)).bytes.equals(json.bytes)).toBe(true);
    const report = JSON.parse(json.bytes.toString('utf8'));
    const validate = new Ajv2020({ allErrors: true }).compile(schema);
    expect(validate(report) ? [] : validate.errors).toEqual([]);
    expect(report.case).toMatchObject({ id: caseId, key: expect.stringMatching(/^SVC-\d+$/), severity: 'high', description: 'A | pipe and\na new line.' });
    expect(report.attack_techniques).toEqual(['T1071']);
    expect(report.tasks).toEqual([{ title: 'Block the address', phase: 'containment', status: 'open', assignee_email: null, due_at: null }]);
    expect(report.observables.map((o: { type: string; value: string; source: string }) => `${o.source}:${o.type}:${o.value}`)).toEqual([
      'manual:domain:c2.example',
      'alert:ip:203.0.113.50',
    ]);
    expect(report.evidence).toEqual([expect.objectContaining({ kind: 'attachment', ref_id: attachment.id, note: 'the capture', sha256: attachment.sha256 })]);
    expect(report.approvals).toEqual([expect.objectContaining({ run_id: run.id, step_id: 'gated', status: 'approved', decided_by: 'abe@example.com' })]);
    expect(report.runs).toEqual([
      expect.objectContaining({ id: run.id, runbook_id: 'report-gated', status: 'succeeded', chain: { valid: true, rows: expect.any(Number) } }),
    ]);
    expect(report.runs[0].chain.rows).toBeGreaterThan(0);
    expect(report.timeline.map((t: { kind: string }) => t.kind)).toEqual(expect.arrayContaining(['opened', 'comment_added', 'evidence_pinned']));

    const md = await raw(ana, `/cases/${caseId}/report?format=md`);
    expect(md.type).toBe('text/markdown; charset=utf-8');
    expect(md.disposition).toBe(`attachment; filename="${report.case.key}-report.md"`);
    expect((await raw(ana, `/cases/${caseId}/report?format=md`)).bytes.equals(md.bytes)).toBe(true);
    const text = md.bytes.toString('utf8');
    expect(text.startsWith(`# ${report.case.key} Beacon to 203.0.113.50\n`)).toBe(true);
    expect(text).toContain(`| attachment | ${attachment.id} | the capture |`);
    expect(text).toContain('verified');

    const pdf = await raw(ana, `/cases/${caseId}/report?format=pdf`);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await raw(ana, `/cases/${caseId}/report?format=pdf`)).bytes.equals(pdf.bytes)).toBe(true);

    expect((await raw(rex, `/cases/${caseId}/report?format=md`)).status).toBe(404);
    expect((await callAs(svc, ana, 'GET', `/cases/${caseId}/report?format=docx`)).status).toBe(422);
  }, 90_000);
});
