/**
 * The main job end to end (issue 2): a real Elastic Security alert, mapped to the
 * native detector shape, is posted to the running service; a case opens, the
 * shipped runbook runs in the worker, a signed webhook reaches a real receiver and
 * verifies with the `standardwebhooks` package, and the action-log chain verifies.
 * Runs on PGlite and, when TEST_DATABASE_URL is set, on a PostgreSQL server.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../support/engines.ts';
import { readFixtureJson } from '../support/fixtures.ts';
import { startReceiver } from '../support/receiver.ts';
import { createTestIdentity, e2eEngines, engineEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
type ElasticDoc = { value: { source: Record<string, unknown> } };

/** Maps an Elastic Security alert document to the native detector shape (CONTRACTS.md section 5). */
function elasticToNative(doc: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  const { ...matchedLog } = doc;
  return {
    alert_id: doc['kibana.alert.uuid'],
    rule: { id: doc['kibana.alert.rule.uuid'], title: doc['kibana.alert.rule.name'], severity: doc['kibana.alert.severity'] },
    detected_at: doc['@timestamp'],
    matched_log: matchedLog,
    ...overrides,
  };
}

describe.each(e2eEngines)('detector alert to signed webhook on $name', ({ server }) => {
  let svc: ServiceProcess;
  let token: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const source = readFixtureJson<ElasticDoc>('vendors', 'elastic_security', 'alert_doc.threat_match.8.1.0.json').value.source;

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${svc.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as any };
  };
  const postAlert = (alert: unknown) =>
    fetch(`${svc.url}/webhooks/detector`, {
      method: 'POST',
      headers: { 'x-svc-token': 'e2e-bootstrap-secret', 'content-type': 'application/json' },
      body: JSON.stringify(alert),
    });

  beforeAll(async () => {
    receiver = await startReceiver();
    const identity = await createTestIdentity();
    // This suite keeps a first start's path: initdb and every migration on an empty database.
    svc = await startServiceProcess(engineEnv(identity, server ? await createServerDatabase({ empty: true }) : null, { emptyDataDir: true }));
    token = await identity.mint([{ team: null, role: 'admin' }]);
    const created = await api('/connections', {
      method: 'POST',
      body: JSON.stringify({ kind: 'webhook', name: 'soc-webhook', base_url: `${receiver.url}/hook`, secret }),
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(secret);
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.close();
  });

  it('opens a case, runs the shipped runbook, delivers a verifiable signed webhook, and keeps a valid chain', async () => {
    // The detector escalated this indicator match to high: the native shape's `severity` overrides the rule's.
    const res = await postAlert(elasticToNative(source, { severity: 'high' }));
    expect(res.status).toBe(202);
    const intake = (await res.json()) as { case_id: string; case_key: string; deduplicated: boolean; correlated: boolean; runs: string[] };
    expect(intake).toMatchObject({ deduplicated: false, correlated: false });
    expect(intake.case_key).toMatch(/^SVC-\d+$/);
    expect(intake.runs).toHaveLength(1);

    const kase = await api(`/cases/${intake.case_id}`);
    expect(kase.body).toMatchObject({ title: 'threat-match-rule', severity: 'high', alert_count: 1, status: 'new' });

    await expect.poll(async () => (await api(`/runs/${intake.runs[0]}`)).body.status, { timeout: 20_000 }).toBe('succeeded');
    const run = (await api(`/runs/${intake.runs[0]}`)).body;
    expect(run.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ['annotate', 'ok'],
      ['notify', 'ok'],
    ]);
    expect(run.action_log).toHaveLength(2);
    expect(run.chain.valid).toBe(true);

    expect(receiver.received).toHaveLength(1);
    const delivery = receiver.received[0]!;
    const verified = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as { data: Record<string, unknown> };
    expect(verified.data).toMatchObject({ case_key: intake.case_key, severity: 'high', rule: 'threat-match-rule', alert_id: expect.any(String) });

    const timeline = (await api(`/cases/${intake.case_id}/timeline`)).body.items.map((i: { kind: string }) => i.kind);
    expect(timeline).toEqual(['opened', 'alert_appended', 'updated', 'comment_added']);
    expect((await api(`/cases/${intake.case_id}`)).body.tags).toEqual(['detector', source['kibana.alert.rule.uuid']]);

    const verify = await api('/runs/chain/verify');
    expect(verify.body).toEqual({ valid: true, checked: 2, first_broken_index: null });
  });

  it('de-duplicates a repeat of the same alert and does not run the runbook again', async () => {
    const res = await postAlert(elasticToNative(source, { severity: 'high' }));
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ deduplicated: true, runs: [] });
    const alerts = (await api('/alerts?source=detector')).body.items;
    expect(alerts).toHaveLength(1);
    expect(alerts[0].repeat_count).toBe(1);
  });

  it('correlates a second alert of the same rule into the open case; a low alert triggers no run', async () => {
    const res = await postAlert(elasticToNative(source, { alert_id: 'second-alert-of-rule' }));
    const body = (await res.json()) as { case_id: string };
    expect(body).toMatchObject({ deduplicated: false, correlated: true, runs: [] });
    expect((await api(`/cases/${body.case_id}`)).body.alert_count).toBe(2);
  });
});
