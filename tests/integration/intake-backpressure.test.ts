/**
 * Intake back-pressure (issue 23, docs/operations.md "Back-pressure"), on every engine:
 * while the oldest run waiting for a worker has waited longer than
 * SVC_INTAKE_MAX_RUN_LAG_S by the service clock, alert intake answers 429
 * `intake_backlog` with `Retry-After` and takes nothing in; once the worker catches up,
 * intake takes alerts again. The worker (concurrency 1) is held busy by a webhook
 * receiver that does not answer until the test lets it, so runs queue behind it.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import { callAs, detectorIntake, nativeAlert, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { listenRecording, type RecordingServer } from '../support/recording-server.ts';
import { e2eEngines } from '../support/service-process.ts';

const runbooks = {
  'page-out.yml': `
id: page-out
name: page-out
version: 1
trigger:
  type: alert
  conditions:
    source: detector
steps:
  - id: page
    action: notify.webhook
    autonomous: true
    with: { connection: hook, path: /page, body: { alert: "{{ trigger.alert_id }}" } }
`,
};
const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const alertOf = (n: number) => nativeAlert(`bp-${n}`, { rule: { id: `bp-rule-${n}`, title: `Back-pressure ${n}`, severity: 'high' } });

describe.each(e2eEngines)('intake back-pressure on $name', ({ server }) => {
  const clock = manualClock(new Date());
  const held: ServerResponse[] = [];
  let holding = true;
  let svc: InProcessService;
  let receiver: RecordingServer;
  beforeAll(async () => {
    receiver = await listenRecording((_req, _body, res) => {
      if (holding) held.push(res);
      else res.writeHead(204).end();
    });
    svc = await startInProcessService(
      { server },
      {
        runbooks,
        clock: clock.now,
        extraEnv: { SVC_INTAKE_MAX_RUN_LAG_S: '2', SVC_WORKER_CONCURRENCY: '1', SVC_ALLOW_PRIVATE_TARGETS: 'true' },
      },
    );
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'webhook',
      name: 'hook',
      base_url: receiver.url,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(conn.status, conn.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    holding = false;
    for (const res of held) res.writeHead(204).end();
    await svc?.close();
    await receiver?.close();
  });

  it('answers 429 with Retry-After while runs wait too long, stores nothing, and takes alerts again once the worker catches up', async () => {
    const first = await detectorIntake(svc, alertOf(1));
    expect(first.status, first.text).toBe(202);
    // The worker is inside run 1's webhook call: the runs queued after it wait.
    await expect.poll(() => receiver.requests.length, { timeout: 10_000 }).toBe(1);
    const second = await detectorIntake(svc, alertOf(2));
    expect(second.status, second.text).toBe(202);

    // The lag is sampled once per SVC_POLL_INTERVAL_MS (20 ms here) of elapsed time.
    const nextSample = () => new Promise((r) => setTimeout(r, 40));
    clock.advance(1_500);
    await nextSample();
    expect((await detectorIntake(svc, alertOf(3))).status).toBe(202);

    clock.advance(1_000);
    await nextSample();
    const refused = await svc.request('/webhooks/detector', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-token': svc.env.SVC_DETECTOR_BOOTSTRAP_SECRET ?? '' },
      body: JSON.stringify(alertOf(4)),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    const body = (await refused.json()) as { detail: string };
    expect(body).toMatchObject({ code: 'intake_backlog', params: { waiting_s: 2.5, limit_s: 2, retry_after_s: 2 } });
    expect(body.detail).toMatch(/runs are waiting 2\.5 s for a worker, over the 2 s limit/);
    // A batch is refused whole.
    expect((await detectorIntake(svc, [alertOf(5), alertOf(6)])).status).toBe(429);
    const alerts = await callAs(svc, root, 'GET', '/alerts?limit=50');
    expect(alerts.body.items.map((a: { external_id: string }) => a.external_id).sort()).toEqual(['bp-1', 'bp-2', 'bp-3']);

    holding = false;
    for (const res of held.splice(0)) res.writeHead(204).end();
    for (const id of [...first.body.runs, ...second.body.runs]) await runWhen(svc, root, id, /^succeeded$/);
    // Run 3 too: then nothing waits, and the next sample admits.
    await expect.poll(async () => (await detectorIntake(svc, alertOf(4))).status, { timeout: 10_000 }).toBe(202);
    const retried = await detectorIntake(svc, alertOf(4));
    expect(retried.body.deduplicated).toBe(true);
  }, 60_000);
});
