/**
 * A gate expires when the service clock passes its deadline, on every engine (SPEC.md
 * "Runs, steps and gates": the deadline ends the run `expired`): the worker claims the
 * run's job by the service clock, not the database's, so moving the injected clock is
 * enough, with no sleeping through an hour. Before the deadline the run waits and the
 * approver queue lists it; after it, the run is expired and the queue does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import { callAs, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startReceiver } from '../support/receiver.ts';
import { e2eEngines } from '../support/service-process.ts';

const runbooks = {
  'hour-gate.yml': `
id: hour-gate
name: hour-gate
version: 1
trigger: { type: manual }
steps:
  - id: gated
    action: notify.webhook
    approval: { roles: [approver], timeout_h: 1 }
    with: { connection: hook, path: /gated, body: {} }
`,
};
const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

describe.each(e2eEngines)('gate expiry by the service clock on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now });
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'webhook',
      name: 'hook',
      base_url: receiver.url,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(conn.status, conn.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  it('waits until the clock passes the deadline, then expires the run and drops it from the queue', async () => {
    const kase = await callAs(svc, root, 'POST', '/cases', { title: 'Gate expiry', severity: 'low', team: null });
    const queued = await callAs(svc, root, 'POST', `/cases/${kase.body.id}/runbooks/hour-gate/run`, {});
    expect(queued.status, queued.text).toBe(202);
    const id = queued.body.id as string;
    await runWhen(svc, root, id, /^waiting_approval$/);

    clock.advance(59 * 60_000);
    // Several worker polls (20 ms each) at 59 minutes: still waiting, still in the queue.
    await new Promise((r) => setTimeout(r, 300));
    expect((await callAs(svc, root, 'GET', `/runs/${id}`)).body.status).toBe('waiting_approval');
    expect((await callAs(svc, root, 'GET', '/approvals')).body.items.map((i: { run_id: string }) => i.run_id)).toContain(id);

    clock.advance(2 * 60_000);
    const expired = await runWhen(svc, root, id, /^expired$/);
    expect(expired.error).toMatch(/^runbook\.approval_expired: /);
    expect((await callAs(svc, root, 'GET', '/approvals')).body.items.map((i: { run_id: string }) => i.run_id)).not.toContain(id);
    expect(receiver.received).toEqual([]);
  });
});
