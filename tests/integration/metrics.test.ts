/**
 * Metrics on the real service, on every engine (SPEC.md "Metrics, audit, retention,
 * diagnostics"): the API's and the worker's Prometheus expositions, read with a real
 * text-format parser, behind METRICS_TOKEN; `GET /metrics/overview` and `/metrics/gate`
 * within each caller's case scope.
 */
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startReceiver } from '../support/receiver.ts';
import { e2eEngines } from '../support/service-process.ts';

const TOKEN = 'metrics-token-5d1c0b9a';

const gated = `
id: gated-hook
name: gated-hook
version: 1
trigger: { type: manual }
steps:
  - id: call
    action: notify.webhook
    approval: { roles: [approver] }
    with: { connection: hook, path: /gated, body: {} }
`;

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blue = testPerson('blue@example.com', [{ team: 'blue', role: 'approver' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

const family = (families: ParsedFamily[], name: string) => families.find((f) => f.name === name);

describe.each(e2eEngines)('metrics on $name', ({ server }) => {
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startInProcessService(
      { server },
      { runbooks: { 'gated.yml': gated }, extraEnv: { METRICS_TOKEN: TOKEN, SVC_ACK_SLA_MINUTES: 'high:10,critical:60', SVC_SLA_AT_RISK_MINUTES: '15' } },
    );
    const hook = await callAs(svc, root, 'POST', '/connections', {
      kind: 'webhook',
      name: 'hook',
      base_url: receiver.url,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(hook.status, hook.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  /** Scrapes the API's `path` in process, or the worker's own endpoint at an absolute `http:` URL. */
  const scrape = async (target: string, token: string | null) => {
    const init = token === null ? {} : { headers: { authorization: `Bearer ${token}` } };
    const res = await (target.startsWith('http:') ? fetch(target, init) : svc.request(target, init));
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  it('serves the API exposition behind METRICS_TOKEN, with route patterns as labels', async () => {
    const opened = await callAs(svc, blue, 'POST', '/cases', { title: 'Exposition', severity: 'low', team: 'blue' });
    expect((await callAs(svc, blue, 'GET', `/cases/${opened.body.id}`)).status).toBe(200);
    expect((await scrape('/metrics', null)).status).toBe(401);
    expect((await scrape('/metrics', 'wrong')).status).toBe(401);
    expect((await scrape('/no-such-route', null)).status).toBe(401);
    const ok = await scrape('/metrics', TOKEN);
    expect(ok.status).toBe(200);
    expect(ok.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusTextFormat(ok.text);
    const requests = family(families, 'svc_http_requests_total');
    expect(requests?.type).toBe('COUNTER');
    expect(requests?.metrics).toContainEqual({ value: '1', labels: { method: 'GET', route: '/cases/:id', status: '200' } });
    expect(requests?.metrics.map((m) => m.labels?.route)).toEqual(expect.arrayContaining(['/metrics', '/cases', 'unmatched']));
    expect(requests?.metrics.every((m) => !m.labels?.route?.endsWith('*'))).toBe(true);
    expect(ok.text).not.toContain(opened.body.id);
    expect(ok.text).not.toContain('no-such-route');
    expect(family(families, 'svc_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(Number(family(families, 'svc_projector_position')?.metrics[0]?.value)).toBeGreaterThan(0);
    expect(family(families, 'process_cpu_seconds_total')).toBeDefined();
  });

  it('serves the worker run and heartbeat series on its own port with the same credential', async () => {
    const opened = await callAs(svc, blue, 'POST', '/cases', { title: 'Gate metrics', severity: 'low', team: 'blue' });
    const caseId = opened.body.id as string;
    const start = async (dry: boolean) => (await callAs(svc, blue, 'POST', `/cases/${caseId}/runbooks/gated-hook/run`, { dry_run: dry })).body.id as string;
    const waiting = async (id: string) =>
      expect.poll(async () => (await callAs(svc, root, 'GET', `/runs/${id}`)).body.status, { timeout: 20_000 }).toBe('waiting_approval');
    const approvedRun = await start(false);
    await waiting(approvedRun);
    expect((await callAs(svc, blue, 'POST', `/runs/${approvedRun}/approve`, { step_id: 'call', note: null })).status).toBe(200);
    const deniedRun = await start(false);
    await waiting(deniedRun);
    expect((await callAs(svc, blue, 'POST', `/runs/${deniedRun}/deny`, { step_id: 'call', note: null })).status).toBe(200);
    const dryRun = await start(true);
    await expect.poll(async () => (await callAs(svc, root, 'GET', `/runs/${dryRun}`)).body.status, { timeout: 20_000 }).toBe('succeeded');
    await expect.poll(async () => (await callAs(svc, root, 'GET', `/runs/${approvedRun}`)).body.status, { timeout: 20_000 }).toBe('succeeded');

    const workerUrl = svc.service.workerMetricsUrl();
    expect(workerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const refused = await scrape(workerUrl!, null);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text)).toEqual({ detail: 'metrics token required', code: 'unauthenticated', params: {} });
    // The container health check's endpoint: no credential, and nothing but the loop's liveness.
    const health = await fetch(workerUrl!.replace(/\/metrics$/, '/healthz'));
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { status: 'ok' } });
    const families = parsePrometheusTextFormat((await scrape(workerUrl!, TOKEN)).text);
    const runs = family(families, 'svc_worker_runs_finished_total')?.metrics ?? [];
    expect(runs).toContainEqual({ value: '2', labels: { status: 'succeeded' } });
    // Decisions are written by the API process that took them, not by the worker.
    expect(family(families, 'svc_worker_steps_total')?.metrics).toEqual(
      expect.arrayContaining([
        { value: '1', labels: { status: 'ok' } },
        { value: '1', labels: { status: 'dry_run' } },
      ]),
    );
    expect(runs.find((r) => r.labels?.status === 'denied')).toBeUndefined();
    const heartbeat = Number(family(families, 'svc_worker_heartbeat_timestamp_seconds')?.metrics[0]?.value);
    expect(Math.abs(heartbeat - Date.now() / 1000)).toBeLessThan(60);
    expect(Number(family(families, 'svc_worker_jobs_claimed_total')?.metrics[0]?.value)).toBeGreaterThanOrEqual(3);

    expect((await callAs(svc, blue, 'GET', '/metrics/gate')).body).toEqual({ approved_executions: 1, denied: 1, dry_runs: 1, window_days: 30 });
    expect((await callAs(svc, red, 'GET', '/metrics/gate?days=7')).body).toEqual({ approved_executions: 0, denied: 0, dry_runs: 0, window_days: 7 });
  }, 60_000);

  it('reports open cases, MTTA, MTTR and SLA risk within the caller scope', async () => {
    const open = async (who: typeof blue, severity: string, team: string) => {
      const r = await callAs(svc, who, 'POST', '/cases', { title: `${severity} in ${team}`, severity, team });
      expect(r.status, r.text).toBe(201);
      return r.body.id as string;
    };
    await open(red, 'high', 'red');
    await open(red, 'critical', 'red');
    const redLow = await open(red, 'low', 'red');
    const { db } = svc.service.opened;
    // An hour old: its 10-minute acknowledgement target has passed.
    const old = await open(red, 'high', 'red');
    await db
      .updateTable('cases')
      .set({ created_at: new Date(Date.now() - 3_600_000) })
      .where('id', '=', old)
      .execute();
    expect((await callAs(svc, red, 'POST', `/cases/${redLow}/acknowledge`)).status).toBe(200);
    expect((await callAs(svc, red, 'POST', `/cases/${redLow}/status`, { status: 'resolved' })).status).toBe(200);

    const redView = (await callAs(svc, red, 'GET', '/metrics/overview')).body;
    expect(redView).toMatchObject({
      window_days: 30,
      open_cases: { total: 3, by_severity: { low: 0, medium: 0, high: 2, critical: 1 } },
      sla_at_risk: 1,
      sla_breached: 1,
    });
    expect(redView.mtta_seconds).toBeGreaterThanOrEqual(0);
    expect(redView.mttr_seconds).toBeGreaterThanOrEqual(0);
    // Blue sees none of red's cases: its own two low cases, neither acknowledged.
    const blueView = (await callAs(svc, blue, 'GET', '/metrics/overview')).body;
    expect(blueView.open_cases).toEqual({ total: 2, by_severity: { low: 2, medium: 0, high: 0, critical: 0 } });
    expect(blueView).toMatchObject({ mtta_seconds: null, mttr_seconds: null, sla_at_risk: 0, sla_breached: 0 });
    expect((await callAs(svc, root, 'GET', '/metrics/overview')).body.open_cases.total).toBe(5);
    expect((await callAs(svc, red, 'GET', '/metrics/overview?days=0')).status).toBe(422);
  });
});
