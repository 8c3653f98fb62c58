/**
 * Approval gates, risk gating and cancellation on the real service and worker, on every
 * engine (SPEC.md "Runs, steps and gates", "Runbooks and runs"): a gated run waits in
 * `waiting_approval`, approve resumes it, deny ends it `denied`, the deadline ends it
 * `expired` (event `runbook.approval_expired`) after which no decision is accepted,
 * decisions land in the hash-chained action log, the approver queue is scoped, and a
 * write/arbitrary action in an automatic run waits for approval unless `autonomous`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../support/receiver.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { recordedEvents } from '../support/events.ts';

const gated = (id: string, approval: string) => `
id: ${id}
name: ${id}
version: 1
trigger: { type: manual }
steps:
  - id: before
    action: notify.webhook
    with: { connection: hook, path: /${id}/before, body: {} }
  - id: gated
    needs: [before]
    action: notify.webhook
    approval: ${approval}
    with: { connection: hook, path: /${id}/gated, body: {} }
`;

const alertRunbook = (id: string, autonomous: boolean) => `
id: ${id}
name: ${id}
version: 1
trigger: { type: alert, conditions: { source: detector } }
steps:
  - id: call
    action: http.request
    autonomous: ${autonomous}
    with: { connection: api, method: POST, path: /${id} }
`;

const runbooks = {
  'approve.yml': gated('approve-me', '{ roles: [approver], message: "Contain the host?" }'),
  'admin-only.yml': gated('admin-only', '{ roles: [admin] }'),
  'expiring.yml': gated('expiring', '{ roles: [approver], timeout_h: 0.0003 }'),
  'risky.yml': alertRunbook('risky-call', false),
  'autonomous.yml': alertRunbook('autonomous-call', true),
};

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const apu = testPerson('apu@example.com', [{ team: 'blue', role: 'approver' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'approver' }]);

type Run = {
  id: string;
  status: string;
  error: string | null;
  gates: { step_id: string; status: string; reason: string; roles: string[] }[];
  action_log: { step_id: string; status: string; input: any; error?: string | null }[];
  chain: { valid: boolean };
};

describe.each(e2eEngines)('approval gates on $name', ({ server }) => {
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let caseId = '';
  const hits = (path: string) => receiver.received.filter((r) => r.path === path).length;

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startInProcessService({ server }, { runbooks });
    for (const [kind, name] of [
      ['webhook', 'hook'],
      ['http', 'api'],
    ]) {
      const conn = await callAs(svc, root, 'POST', '/connections', { kind, name, base_url: receiver.url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
      expect(conn.status, conn.text).toBe(201);
    }
    const created = await callAs(svc, ana, 'POST', '/cases', { title: 'Gated runs', severity: 'high', team: 'blue' });
    expect(created.status, created.text).toBe(201);
    caseId = created.body.id;
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  const getRun = async (id: string): Promise<Run> => (await callAs(svc, root, 'GET', `/runs/${id}`)).body;
  const until = async (id: string, status: string) => {
    await expect.poll(async () => (await getRun(id)).status, { timeout: 20_000, interval: 50 }).toBe(status);
    return getRun(id);
  };
  const startWaiting = async (slug: string) => {
    const queued = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, {});
    expect(queued.status, queued.text).toBe(202);
    return until(queued.body.id, 'waiting_approval');
  };

  it('waits at an approval step, lists it for approvers of the team only, and resumes on approve', async () => {
    const run = await startWaiting('approve-me');
    expect(hits('/approve-me/before')).toBe(1);
    expect(hits('/approve-me/gated')).toBe(0);
    expect(run.gates).toMatchObject([{ step_id: 'gated', status: 'pending', reason: 'approval', roles: ['approver'] }]);

    const queue = (await callAs(svc, apu, 'GET', '/approvals?status=pending')).body.items;
    expect(queue).toContainEqual(expect.objectContaining({ run_id: run.id, step_id: 'gated', message: 'Contain the host?', roles: ['approver'] }));
    expect((await callAs(svc, red, 'GET', '/approvals?status=pending')).body.items.map((i: { run_id: string }) => i.run_id)).not.toContain(run.id);
    expect((await callAs(svc, apu, 'GET', '/approvals?status=done')).body.detail[0].loc).toEqual(['query', 'status']);

    // Bad input names the field; no permission, another team and a wrong step decide nothing.
    const missing = await callAs(svc, apu, 'POST', `/runs/${run.id}/approve`, { note: 'ok' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'step_id']);
    expect((await callAs(svc, ana, 'POST', `/runs/${run.id}/approve`, { step_id: 'gated', note: null })).status).toBe(403);
    expect((await callAs(svc, red, 'POST', `/runs/${run.id}/approve`, { step_id: 'gated', note: null })).status).toBe(404);
    const wrongStep = await callAs(svc, apu, 'POST', `/runs/${run.id}/approve`, { step_id: 'before', note: null });
    expect(wrongStep.status).toBe(409);
    expect(wrongStep.body.code).toBe('gate_not_open');
    expect((await getRun(run.id)).status).toBe('waiting_approval');

    const approved = await callAs(svc, apu, 'POST', `/runs/${run.id}/approve`, { step_id: 'gated', note: 'go ahead' });
    expect(approved.status, approved.text).toBe(200);
    const done = await until(run.id, 'succeeded');
    expect(hits('/approve-me/gated')).toBe(1);
    expect(done.gates).toMatchObject([{ status: 'approved' }]);
    expect(done.action_log.map((r) => [r.step_id, r.status])).toEqual([
      ['before', 'ok'],
      ['gated', 'approved'],
      ['gated', 'ok'],
    ]);
    expect(done.action_log[1]?.input).toMatchObject({ by: apu.email, note: 'go ahead' });
    expect(done.chain.valid).toBe(true);
    const again = await callAs(svc, apu, 'POST', `/runs/${run.id}/approve`, { step_id: 'gated', note: null });
    expect(again.status).toBe(409);
  });

  it('refuses a caller without an accepted role, and ends the run denied on deny', async () => {
    const run = await startWaiting('admin-only');
    const wrongRole = await callAs(svc, apu, 'POST', `/runs/${run.id}/deny`, { step_id: 'gated', note: 'no' });
    expect(wrongRole.status).toBe(403);
    expect(wrongRole.body.code).toBe('approval_role_required');
    const denied = await callAs(svc, root, 'POST', `/runs/${run.id}/deny`, { step_id: 'gated', note: 'too risky' });
    expect(denied.status, denied.text).toBe(200);
    expect(denied.body.status).toBe('denied');
    const done = await getRun(run.id);
    expect(done.action_log.map((r) => r.status)).toEqual(['ok', 'denied']);
    expect(hits('/admin-only/gated')).toBe(0);
  });

  it('expires the gate at its deadline with runbook.approval_expired, after which it cannot be decided', async () => {
    const run = await startWaiting('expiring');
    const expired = await until(run.id, 'expired');
    expect(expired.gates).toMatchObject([{ status: 'expired' }]);
    expect(expired.action_log.map((r) => r.status)).toEqual(['ok', 'expired']);
    expect(expired.error).toMatch(/^runbook\.approval_expired: /);
    expect(expired.action_log.at(-1)?.error).toMatch(/^runbook\.approval_expired: /);
    const late = await callAs(svc, apu, 'POST', `/runs/${run.id}/approve`, { step_id: 'gated', note: null });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('approval_expired');
    expect(hits('/expiring/gated')).toBe(0);
    const expiries = await recordedEvents(svc.service.opened.db, (e) => e.type === 'runbook.approval_expired' && e.streamId.endsWith(run.id));
    expect(expiries).toHaveLength(1);
    expect((await callAs(svc, apu, 'GET', '/approvals')).body.items.map((i: { run_id: string }) => i.run_id)).not.toContain(run.id);
  });

  it('cancels a waiting run, once', async () => {
    const run = await startWaiting('approve-me');
    expect((await callAs(svc, red, 'POST', `/runs/${run.id}/cancel`)).status).toBe(404);
    const cancelled = await callAs(svc, ana, 'POST', `/runs/${run.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const again = await callAs(svc, ana, 'POST', `/runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('run_finished');
    expect((await callAs(svc, apu, 'POST', `/runs/${run.id}/approve`, { step_id: 'gated', note: null })).status).toBe(409);
  });

  it('logged no error while driving the runs above', () => {
    expect(svc.errors()).toEqual([]);
  });

  it('opens no gate in a dry run and calls nothing', async () => {
    const queued = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/approve-me/run`, { dry_run: true });
    expect(queued.status, queued.text).toBe(202);
    const done = await until(queued.body.id, 'succeeded');
    expect(done.gates).toEqual([]);
    expect(done.action_log.map((r) => r.status)).toEqual(['dry_run', 'dry_run']);
  });

  it('gates an arbitrary-risk action in an alert-triggered run unless the step is autonomous', async () => {
    const intake = await svc.request('/webhooks/detector', {
      method: 'POST',
      headers: { 'x-svc-token': 'e2e-bootstrap-secret', 'content-type': 'application/json' },
      body: JSON.stringify({ alert_id: `gate-${server ? 'pg' : 'lite'}`, rule: { id: 'r-gate', title: 'Gate test', severity: 'medium' } }),
    });
    expect(intake.status).toBeLessThan(300);
    const runIds = ((await intake.json()) as { runs: string[] }).runs;
    expect(runIds).toHaveLength(2);
    const runs = await Promise.all(runIds.map((id) => callAs(svc, root, 'GET', `/runs/${id}`).then((r) => r.body as Run & { runbook_id: string })));
    const risky = runs.find((r) => r.runbook_id === 'risky-call');
    const autonomous = runs.find((r) => r.runbook_id === 'autonomous-call');
    const waiting = await until(risky?.id ?? '', 'waiting_approval');
    expect(waiting.gates).toMatchObject([{ step_id: 'call', reason: 'risk', roles: ['approver', 'admin'] }]);
    await until(autonomous?.id ?? '', 'succeeded');
    expect(hits('/autonomous-call')).toBe(1);
    expect(hits('/risky-call')).toBe(0);
    await callAs(svc, root, 'POST', `/runs/${waiting.id}/approve`, { step_id: 'call', note: null });
    await until(waiting.id, 'succeeded');
    expect(hits('/risky-call')).toBe(1);
  });
});
