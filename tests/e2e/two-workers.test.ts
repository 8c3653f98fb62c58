/**
 * Durability with workers as separate processes on one PostgreSQL server (issue 4 "Real
 * parts"; SPEC.md "Runs, steps and gates"; docs/architecture.md "Run path"). One API
 * process (`SVC_ROLE=api`) and two worker processes (`SVC_ROLE=worker`), all started
 * before any work exists, so either worker may claim it:
 * - the worker that sent a step's request (found from the request's source port) is
 *   SIGKILLed while the receiver holds that request; the other worker takes the run
 *   over once the lease (`SVC_WORKER_LEASE_MS`) expires and finishes it. Completed steps
 *   are not executed again; the step in flight is, as a new attempt with a new webhook
 *   id, because its outcome was unknown.
 * - both workers tick one `interval_s` schedule: each fire time gets one run, and each
 *   run one delivery.
 * Server only: PGlite is one in-process database, and tests/e2e/crash-recovery.test.ts
 * covers a restart there.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../adapters/db/connect.ts';
import { createServerDatabase } from '../support/engines.ts';
import { eventsOfType } from '../support/events.ts';
import { startReceiver, type Received } from '../support/receiver.ts';
import { connectionOwner, createTestIdentity, engineEnv, startServiceProcess, startWorkerProcess, type ServiceProcess } from '../support/service-process.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const threeSteps = `
id: three-steps
name: Three chained notifications
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

// interval_s: 1 is the shortest interval the runbook validation allows.
const everySecond = `
id: every-second
name: Every second
version: 1
trigger: { type: schedule, interval_s: 1 }
steps:
  - id: ping
    action: notify.webhook
    with: { connection: hook, path: /tick, body: { run: "{{ run.id }}", fire_at: "{{ trigger.fire_at }}" } }
`;

/** Rejects after `ms` so that no wait in this file is unbounded. */
const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms).unref())]);

describe.skipIf(!process.env.TEST_DATABASE_URL)('two worker processes on one PostgreSQL server', () => {
  const processes: ServiceProcess[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.allSettled(processes.map((p) => p.kill()));
    await Promise.allSettled(closers.map((close) => close()));
  });

  /** A fresh database with `runbook` as its only runbook, the API process, a `hook` connection to `receiverUrl`, and two workers. */
  const start = async (runbook: string, receiverUrl: string, extra: Record<string, string>) => {
    const runbooksDir = mkdtempSync(join(tmpdir(), 'svc-runbooks-'));
    writeFileSync(join(runbooksDir, 'runbook.yml'), runbook);
    const identity = await createTestIdentity();
    const databaseUrl = await createServerDatabase();
    const env = { ...engineEnv(identity, databaseUrl), SVC_RUNBOOKS_DIR: runbooksDir, ...extra };
    const api = await startServiceProcess({ ...env, SVC_ROLE: 'api' });
    processes.push(api);
    const token = await identity.mint([{ team: null, role: 'admin' }]);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const get = async (path: string) => (await (await fetch(`${api.url}${path}`, { headers })).json()) as any;
    const conn = await fetch(`${api.url}/connections`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ kind: 'webhook', name: 'hook', base_url: receiverUrl, secret }),
    });
    expect(conn.status).toBe(201);
    const workers = [startWorkerProcess(env), startWorkerProcess(env)];
    processes.push(...workers);
    return { api, workers, get, databaseUrl };
  };

  it('finishes a run on the other worker after the one driving it is SIGKILLed mid-step', async () => {
    const pids: number[] = [];
    const sender = new Map<Received, number | null>();
    let secondCalls = 0;
    let reached: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => (reached = resolve));
    const receiver = await startReceiver((req, res) => {
      // Looked up while the request's connection is certainly open: before answering.
      sender.set(req, connectionOwner(req.remotePort, receiverPort, pids));
      if (req.path === '/second' && ++secondCalls === 1) return reached(); // never answered: its worker dies holding it
      res.writeHead(204).end();
    });
    closers.push(receiver.close);
    const receiverPort = Number(new URL(receiver.url).port);
    const { api, workers, get } = await start(threeSteps, receiver.url, { SVC_WORKER_LEASE_MS: '1500' });
    pids.push(...[api, ...workers].map((p) => p.child.pid ?? -1));

    const intake = await fetch(`${api.url}/webhooks/detector`, {
      method: 'POST',
      headers: { 'x-svc-token': 'e2e-bootstrap-secret', 'content-type': 'application/json' },
      body: JSON.stringify({ alert_id: 'two-workers-1', rule: { id: 'r-two-workers', title: 'Two workers', severity: 'high' } }),
    });
    expect(intake.status).toBe(202);
    const [runId] = ((await intake.json()) as { runs: string[] }).runs;
    await within(inFlight, 30_000, 'the second step reaching the receiver');

    const hits = (path: string) => receiver.received.filter((r) => r.path === path);
    const holder = sender.get(hits('/second')[0] as Received);
    const doomed = workers.find((w) => w.child.pid === holder);
    const survivor = workers.find((w) => w.child.pid !== holder);
    if (!doomed || !survivor) throw new Error(`the second step was sent by pid ${holder}, not by a worker (${pids.join(', ')})`);
    expect(sender.get(hits('/first')[0] as Received)).toBe(holder);
    await doomed.kill();
    expect(doomed.child.signalCode).toBe('SIGKILL');

    await expect.poll(async () => (await get(`/runs/${runId}`)).status, { timeout: 30_000, interval: 200 }).toBe('succeeded');
    const run = await get(`/runs/${runId}`);
    expect(hits('/first')).toHaveLength(1);
    expect(hits('/second')).toHaveLength(2);
    // The survivor's redelivery is the same message: the same webhook-id as the doomed worker's, so the receiver can drop it.
    expect(hits('/second')[0]?.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
    expect(hits('/second')[1]?.headers['webhook-id']).toBe(hits('/second')[0]?.headers['webhook-id']);
    expect(hits('/third')[0]?.headers['webhook-id']).not.toBe(hits('/second')[0]?.headers['webhook-id']);
    expect(hits('/third')).toHaveLength(1);
    // The survivor, not the API process (SVC_ROLE=api drives no runs), sent everything after the kill.
    expect(sender.get(hits('/second')[1] as Received)).toBe(survivor.child.pid);
    expect(sender.get(hits('/third')[0] as Received)).toBe(survivor.child.pid);
    expect(survivor.child.exitCode).toBeNull();
    expect(run.steps.map((s: { id: string; attempt: number; status: string }) => [s.id, s.attempt, s.status])).toEqual([
      ['first', 1, 'ok'],
      ['second', 2, 'ok'],
      ['third', 1, 'ok'],
    ]);
    expect(run.chain.valid).toBe(true);
    expect((await get('/runs/chain/verify')).valid).toBe(true);
  }, 90_000);

  it('gives each fire time of a schedule one run and each run one delivery with two workers ticking', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    // Both workers tick every 10 ms (the least SVC_SCHEDULE_TICK_MS allows), so each fire time is
    // found due by both in the same few milliseconds: a fire time queued twice would show.
    const { workers, get, databaseUrl } = await start(everySecond, receiver.url, { SVC_SCHEDULE_TICK_MS: '10' });
    const ticks = () => receiver.received.filter((r) => r.path === '/tick');
    await expect.poll(() => ticks().length, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(4);
    await Promise.all(workers.map((w) => w.stop()));

    const opened = await openDatabase({ databaseUrl, poolSize: 1 });
    closers.push(opened.close);
    const queued = (await eventsOfType(opened.db, 'run.queued')).map((e) => ({
      run_id: String(e.data.run_id),
      fire_at: String((e.data.trigger as { fire_at: string }).fire_at),
    }));
    const fireTimes = queued.map((q) => q.fire_at);
    expect(new Set(fireTimes).size).toBe(queued.length);
    expect(new Set(queued.map((q) => q.run_id)).size).toBe(queued.length);
    // Each fire time is computed from the tick that fired the one before it, so none is less than the interval after it.
    const sorted = fireTimes.map((t) => Date.parse(t)).sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) expect((sorted[i] ?? 0) - (sorted[i - 1] ?? 0)).toBeGreaterThanOrEqual(1000);

    await expect.poll(async () => (await get('/runs?limit=200')).items.length, { timeout: 30_000, interval: 200 }).toBe(queued.length);
    const runs = (await get('/runs?limit=200')).items as { id: string; status: string; trigger_type: string }[];
    expect(runs.every((r) => r.trigger_type === 'schedule')).toBe(true);
    const fireAtOf = new Map(queued.map((q) => [q.run_id, q.fire_at]));
    const deliveries = ticks().map((r) => JSON.parse(r.body) as { run: string; fire_at: string });
    expect(new Set(deliveries.map((d) => d.run)).size).toBe(deliveries.length);
    for (const d of deliveries) expect(d.fire_at).toBe(fireAtOf.get(d.run));
    const succeeded = runs.filter((r) => r.status === 'succeeded');
    expect(succeeded.length).toBeGreaterThanOrEqual(4);
    for (const r of succeeded) expect(deliveries.filter((d) => d.run === r.id)).toHaveLength(1);
  }, 90_000);
});
