/**
 * Workers as separate processes on one PostgreSQL server (issue 4 "Real parts"; SPEC.md
 * "Runs, steps and gates"): an API process and two worker processes. The worker that
 * took a run is SIGKILLed while a step's action is in flight; the other worker finishes
 * the run after the lease expires, and a real HTTP receiver shows each completed step
 * executed once (the in-flight one again, as a new attempt with a new webhook id). Two
 * worker processes ticking one `interval_s` schedule queue each fire time once.
 * Server only: PGlite is one in-process database (tests/e2e/crash-recovery.test.ts
 * covers a restart there).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../support/engines.ts';
import { startReceiver } from '../support/receiver.ts';
import { createTestIdentity, engineEnv, startServiceProcess, startWorkerProcess, type ServiceProcess } from '../support/service-process.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const threeSteps = `
id: three-step-notify
name: Three notifications
version: 1
trigger: { type: alert, conditions: { source: detector } }
steps:
  - id: first
    action: notify.webhook
    with: { connection: hook, path: /first, body: { case: "{{ case.key }}" } }
  - id: second
    action: notify.webhook
    needs: [first]
    timeout_s: 600
    with: { connection: hook, path: /second, body: { case: "{{ case.key }}" } }
  - id: third
    action: notify.webhook
    needs: [second]
    with: { connection: hook, path: /third, body: { case: "{{ case.key }}" } }
`;

const everySecond = `
id: every-second
name: Every second
version: 1
trigger: { type: schedule, interval_s: 1 }
steps:
  - id: ping
    action: notify.webhook
    with: { connection: hook, path: /tick, body: { run: "{{ trigger.fire_at }}" } }
`;

describe.skipIf(!process.env.TEST_DATABASE_URL)('two worker processes on one PostgreSQL server', () => {
  const processes: ServiceProcess[] = [];
  const receivers: { close: () => Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(processes.splice(0).map((p) => p.kill()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  /** An API process and the environment workers share with it, with `runbook` as the only runbook. */
  const setUp = async (runbook: string, extra: Record<string, string>) => {
    const runbooksDir = mkdtempSync(join(tmpdir(), 'svc-runbooks-'));
    writeFileSync(join(runbooksDir, 'runbook.yml'), runbook);
    const identity = await createTestIdentity();
    const env = { ...engineEnv(identity, await createServerDatabase()), SVC_RUNBOOKS_DIR: runbooksDir, ...extra };
    const api = await startServiceProcess({ ...env, SVC_ROLE: 'api' });
    processes.push(api);
    const token = await identity.mint([{ team: null, role: 'admin' }]);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const get = async (path: string) => (await (await fetch(`${api.url}${path}`, { headers })).json()) as any;
    return { api, env, headers, get };
  };
  const worker = (env: Record<string, string>) => {
    const p = startWorkerProcess(env);
    processes.push(p);
    return p;
  };

  it('finishes a run on the surviving worker after the one driving it is SIGKILLed mid-step', async () => {
    let secondCalls = 0;
    let reached: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => (reached = resolve));
    const receiver = await startReceiver((req, res) => {
      if (req.path === '/second' && ++secondCalls === 1) return reached(); // never answered: its worker dies with it
      res.writeHead(204).end();
    });
    receivers.push(receiver);
    const { api, env, headers, get } = await setUp(threeSteps, { SVC_WORKER_LEASE_MS: '1500' });
    const conn = await fetch(`${api.url}/connections`, { method: 'POST', headers, body: JSON.stringify({ kind: 'webhook', name: 'hook', base_url: receiver.url, secret }) });
    expect(conn.status).toBe(201);

    const doomed = worker(env);
    const intake = await fetch(`${api.url}/webhooks/detector`, {
      method: 'POST',
      headers: { 'x-svc-token': 'e2e-bootstrap-secret', 'content-type': 'application/json' },
      body: JSON.stringify({ alert_id: 'failover-1', rule: { id: 'r-failover', title: 'Failover test', severity: 'high' } }),
    });
    const [runId] = ((await intake.json()) as { runs: string[] }).runs;
    await inFlight;
    // The run is held by the only worker there was; the second joins, then the first dies.
    const survivor = worker(env);
    await doomed.kill();
    expect(doomed.child.signalCode).toBe('SIGKILL');

    await expect.poll(async () => (await get(`/runs/${runId}`)).status, { timeout: 30_000, interval: 200 }).toBe('succeeded');
    const run = await get(`/runs/${runId}`);
    const hits = (path: string) => receiver.received.filter((r) => r.path === path);
    expect(hits('/first')).toHaveLength(1);
    expect(hits('/second')).toHaveLength(2);
    expect(hits('/second')[0]?.headers['webhook-id']).not.toBe(hits('/second')[1]?.headers['webhook-id']);
    expect(hits('/third')).toHaveLength(1);
    expect(run.steps.map((s: { id: string; attempt: number; status: string }) => [s.id, s.attempt, s.status])).toEqual([
      ['first', 1, 'ok'],
      ['second', 2, 'ok'],
      ['third', 1, 'ok'],
    ]);
    expect(run.chain.valid).toBe(true);
    expect(survivor.child.exitCode).toBeNull();
  });

  it('queues each fire time of a schedule once with two workers ticking', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const { api, env, headers, get } = await setUp(everySecond, { SVC_SCHEDULE_TICK_MS: '100' });
    const conn = await fetch(`${api.url}/connections`, { method: 'POST', headers, body: JSON.stringify({ kind: 'webhook', name: 'hook', base_url: receiver.url, secret }) });
    expect(conn.status).toBe(201);
    worker(env);
    worker(env);

    await expect.poll(() => receiver.received.filter((r) => r.path === '/tick').length, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(4);
    await Promise.all(processes.splice(1).map((p) => p.stop()));
    const runs = ((await get('/runs?limit=200')).items as { id: string; trigger_type: string; queued_at: string }[]).filter((r) => r.trigger_type === 'schedule');
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(new Set(runs.map((r) => r.queued_at)).size).toBe(runs.length);
    const bodies = receiver.received.filter((r) => r.path === '/tick').map((r) => r.body);
    expect(new Set(bodies).size).toBe(bodies.length);
  });
});
