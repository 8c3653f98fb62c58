/**
 * Cancelling a run while one of its actions is in flight, on every engine (SPEC.md
 * "Runs, steps and gates": POST cancel). The action is not interrupted (half a
 * containment is worse than a whole one); the run ends `cancelled` at once, no later
 * step runs, and the in-flight action's outcome still lands in the hash-chained action
 * log when it returns, because the action log must hold every action that ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../support/receiver.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const runbook = `
id: slow-then-more
name: Slow call, then another
version: 1
trigger: { type: manual }
steps:
  - id: slow
    action: notify.webhook
    with: { connection: hook, path: /slow, body: {} }
  - id: after
    needs: [slow]
    action: notify.webhook
    with: { connection: hook, path: /after, body: {} }
`;

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);

type Run = {
  id: string;
  status: string;
  steps: { id: string; status: string }[];
  action_log: { step_id: string; status: string }[];
  chain: { valid: boolean };
};

describe.each(e2eEngines)('cancelling a run mid-action on $name', ({ server }) => {
  let svc: InProcessService;
  let release: () => void = () => {};
  let inFlight: Promise<void>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    let reached: () => void = () => {};
    inFlight = new Promise<void>((resolve) => (reached = resolve));
    receiver = await startReceiver((req, res) => {
      if (req.path !== '/slow') return void res.writeHead(204).end();
      release = () => res.writeHead(204).end();
      reached();
    });
    svc = await startInProcessService({ server }, { runbooks: { 'slow.yml': runbook } });
    const admin = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
    const conn = await callAs(svc, admin, 'POST', '/connections', {
      kind: 'webhook',
      name: 'hook',
      base_url: receiver.url,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(conn.status, conn.text).toBe(201);
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  it('ends the run at once and still logs the action that was running', async () => {
    const created = await callAs(svc, ana, 'POST', '/cases', { title: 'Slow containment', severity: 'high', team: 'blue' });
    const queued = await callAs(svc, ana, 'POST', `/cases/${created.body.id}/runbooks/slow-then-more/run`, {});
    expect(queued.status, queued.text).toBe(202);
    await inFlight;

    const cancelled = await callAs(svc, ana, 'POST', `/runs/${queued.body.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    release();

    const getRun = async (): Promise<Run> => (await callAs(svc, ana, 'GET', `/runs/${queued.body.id}`)).body;
    await expect.poll(async () => (await getRun()).action_log.length, { timeout: 20_000, interval: 50 }).toBe(1);
    const run = await getRun();
    expect(run.status).toBe('cancelled');
    expect(run.action_log).toMatchObject([{ step_id: 'slow', status: 'ok' }]);
    expect(run.chain.valid).toBe(true);
    expect(run.steps.find((s) => s.id === 'after')?.status).toBe('pending');
    expect(receiver.received.filter((r) => r.path === '/after')).toHaveLength(0);
    expect(svc.errors()).toEqual([]);
  });
});
