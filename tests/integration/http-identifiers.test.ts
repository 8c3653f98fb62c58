/**
 * Identifiers in their canonical form (issue 19): a UUID written in upper case addresses
 * the same object as its lower-case spelling on every kind of route (read, change,
 * rotate, escalate, link, manual run), so nothing is half-applied under a second spelling:
 * no secret sealed to an id its row does not have, no event on a stream nobody reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { manualNoteRunbook } from '../support/runbooks.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

const manualRunbook = manualNoteRunbook('upper-note', 'noted by a manual run');

describe.each(e2eEngines)('identifiers on $name', ({ server }) => {
  let svc: InProcessService;
  const call = (method: string, path: string, body?: unknown) => callAs(svc, root, method, path, body);
  const upper = (id: string) => id.toUpperCase();
  const newCase = async (title: string) => {
    const created = await call('POST', '/cases', { title, severity: 'high' });
    expect(created.status, created.text).toBe(201);
    return created.body.id as string;
  };

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks: { 'upper-note.yml': manualRunbook } });
  });
  afterAll(async () => svc?.close());

  it('rotates a connection secret through an upper-case id and the secret stays readable', async () => {
    const created = await call('POST', '/connections', {
      kind: 'webhook',
      name: 'upper-hook',
      base_url: 'https://hooks.example/x',
      secret: 'first-secret-value',
    });
    expect(created.status, created.text).toBe(201);
    const rotated = await call('POST', `/connections/${upper(created.body.id)}/rotate`, { secret: 'second-secret-value' });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.id).toBe(created.body.id);
    // The probe unseals the secret: a secret sealed to another spelling of the id would be a 500.
    const probed = await call('POST', `/connections/${created.body.id}/test`);
    expect(probed.status, probed.text).toBe(200);
    expect((await call('GET', '/connections')).status).toBe(200);
    expect(svc.errors()).toEqual([]);
  });

  it('rotates a webhook source token through an upper-case id and deliveries still authenticate', async () => {
    const created = await call('POST', '/webhook-sources', { type: 'generic', slug: 'upper-src', name: 'Upper', field_map: { rule_title: 'rule' } });
    expect(created.status, created.text).toBe(201);
    const rotated = await call('POST', `/webhook-sources/${upper(created.body.id)}/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    const delivered = await svc.request('/webhooks/upper-src', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-token': rotated.body.token },
      body: JSON.stringify({ rule: 'Suspicious login', id: 'u-1' }),
    });
    expect(delivered.status, await delivered.text()).toBe(202);
    expect(svc.errors()).toEqual([]);
  });

  it('comments, reads and runs a runbook on a case through an upper-case id', async () => {
    const id = await newCase('Upper-case case');
    const comment = await call('POST', `/cases/${upper(id)}/comments`, { body: 'through the upper-case id' });
    expect(comment.status, comment.text).toBe(201);
    const comments = await call('GET', `/cases/${id}/comments`);
    expect(comments.body.items.map((c: { body: string }) => c.body)).toContain('through the upper-case id');
    const read = await call('GET', `/cases/${upper(id)}`);
    expect(read.body.id).toBe(id);

    const queued = await call('POST', `/cases/${upper(id)}/runbooks/upper-note/run`, {});
    expect(queued.status, queued.text).toBe(202);
    const runId = queued.body.run_id ?? queued.body.id;
    let run: any = null;
    for (let i = 0; i < 300 && !['succeeded', 'failed'].includes(run?.status); i++) {
      await new Promise((r) => setTimeout(r, 50));
      run = (await call('GET', `/runs/${upper(runId)}`)).body;
    }
    expect(run.status).toBe('succeeded');
    expect(run.case_id).toBe(id);
    expect((await call('GET', `/cases/${id}/runs`)).body.items.map((r: { id: string }) => r.id)).toContain(runId);
    const after = await call('GET', `/cases/${id}/comments`);
    expect(after.body.items.map((c: { body: string }) => c.body)).toContain('noted by a manual run');
  });

  it('escalates and links an alert through upper-case ids, and the case holds it', async () => {
    const alert = await call('POST', '/alerts', { title: 'Hand-entered alert', severity: 'high' });
    expect(alert.status, alert.text).toBe(201);
    const escalated = await call('POST', `/alerts/${upper(alert.body.id)}/escalate`, {});
    expect(escalated.status, escalated.text).toBe(201);
    const held = await call('GET', `/cases/${escalated.body.case_id}/alerts`);
    expect(held.body.items.map((a: { id: string }) => a.id)).toEqual([alert.body.id]);

    const target = await newCase('Link target');
    const linked = await call('POST', `/alerts/${upper(alert.body.id)}/link`, { case_id: upper(target) });
    expect(linked.status, linked.text).toBe(200);
    expect(linked.body.case_id).toBe(target);
    expect((await call('GET', `/cases/${target}/alerts`)).body.items.map((a: { id: string }) => a.id)).toEqual([alert.body.id]);
    expect((await call('GET', `/cases/${escalated.body.case_id}/alerts`)).body.items).toEqual([]);
  });
});
