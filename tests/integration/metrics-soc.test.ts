/**
 * `GET /metrics/soc` on the real service, on every engine (SPEC.md "Metrics, audit,
 * retention, diagnostics"): weekly case metrics, top rules, automation rate and approval
 * turnaround within the caller's case scope and the `team` narrowing; `ai_spend` from the
 * audited AI rows for global administrators (and their operator-report workloads) only,
 * zeroed for everyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../adapters/commands/audit.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { callAs, detectorIntake, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { gatedTagRunbook } from '../support/runbooks.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blue = testPerson('blue@example.com', [{ team: 'blue', role: 'approver' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

const alert = (id: string, rule: string, team: string) => ({
  alert_id: id,
  rule: { id: rule, title: `Rule ${rule}`, severity: 'high' },
  detected_at: new Date().toISOString(),
  correlation_root: id,
  team,
});

describe.each(e2eEngines)('SOC metrics on $name', ({ server }) => {
  let svc: InProcessService;
  let blueCase = '';

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks: { 'gated.yml': gatedTagRunbook } });
    for (const [id, rule, team] of [
      ['a1', 'rule-a', 'blue'],
      ['a2', 'rule-a', 'blue'],
      ['a3', 'rule-a', 'red'],
      ['b1', 'rule-b', 'blue'],
    ] as const) {
      expect((await detectorIntake(svc, alert(id, rule, team))).status).toBe(202);
    }
    blueCase = (await callAs(svc, blue, 'POST', '/cases', { title: 'Blue high', severity: 'high', team: 'blue' })).body.id;
    expect((await callAs(svc, blue, 'POST', `/cases/${blueCase}/acknowledge`, {})).status).toBe(200);
    const run = await callAs(svc, blue, 'POST', `/cases/${blueCase}/runbooks/gated-tag/run`, {});
    expect(run.status, run.text).toBe(202);
    const runId = run.body.run_id ?? run.body.id;
    for (let i = 0; i < 300 && (await callAs(svc, blue, 'GET', `/runs/${runId}`)).body?.status !== 'waiting_approval'; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await callAs(svc, blue, 'POST', `/runs/${runId}/approve`, { step_id: 'tag', note: null })).status).toBe(200);
    for (let i = 0; i < 300 && (await callAs(svc, blue, 'GET', `/runs/${runId}`)).body?.status !== 'succeeded'; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect((await callAs(svc, blue, 'POST', `/cases/${blueCase}/status`, { status: 'resolved' })).status).toBe(200);
    expect((await callAs(svc, red, 'POST', '/cases', { title: 'Red low', severity: 'low', team: 'red' })).status).toBe(201);
    expect((await callAs(svc, root, 'POST', '/cases', { title: 'Private', severity: 'critical', private: true })).status).toBe(201);

    // What the AI features will audit (docs/operations.md "SOC metrics"), written as they will write it.
    const store = new PostgresEventStore(svc.service.opened.db);
    const audit = createAuditLog({ store, ids: () => crypto.randomUUID(), now: () => new Date() });
    const system = { id: null, email: null, subject: null, kind: 'system', via: null } as const;
    const ai = [
      { action: 'ai.invocation', detail: { feature: 'triage', model: 'm-large', prompt_tokens: 1000, completion_tokens: 200 } },
      { action: 'ai.invocation', detail: { feature: 'explain', model: 'm-small', prompt_tokens: 300, completion_tokens: 100 } },
      { action: 'ai.refusal', detail: { feature: 'triage', refusal_code: 'ai_data_class_denied' } },
      {
        action: 'ai.invocation',
        detail: { feature: 'triage', model: 'm-large', prompt_tokens: 40, completion_tokens: 10, refusal_code: 'ai_structured_output_invalid' },
      },
    ] as const;
    let position = 0;
    for (const a of ai) position = await audit.record({ action: a.action, actor: system, target: null, team: null, detail: a.detail });
    await svc.service.projector.waitFor(position);
  }, 90_000);
  afterAll(async () => svc?.close());

  const soc = (who: typeof root, query = '') => callAs(svc, who, 'GET', `/metrics/soc${query}`);

  it('gives a global administrator every case, top rules, automation, approvals and AI spend', async () => {
    const answer = await soc(root);
    expect(answer.status, answer.text).toBe(200);
    const doc = answer.body;
    expect(doc).toMatchObject({ window_days: 30, team: null });
    expect(doc.weeks.length).toBeGreaterThanOrEqual(5);
    expect(doc.weeks.at(-1).opened).toBe(7);
    expect(doc.totals).toMatchObject({ opened: 7, closed: 1, approvals_decided: 1, automation_rate: 0.1429, alerts_received: 4 });
    expect(doc.totals.runs_finished).toEqual({ succeeded: 1, failed: 0, denied: 0, expired: 0, cancelled: 0 });
    expect(doc.weeks.at(-1)).toMatchObject({ alerts_received: 4, runs_finished: { succeeded: 1 } });
    expect(doc.totals.mtta_seconds).toEqual(expect.any(Number));
    expect(doc.totals.approval_turnaround_seconds).toEqual(expect.any(Number));
    expect(doc.by_team.map((t: { team: string | null; opened: number }) => [t.team, t.opened])).toEqual([
      [null, 1],
      ['blue', 4],
      ['red', 2],
    ]);
    expect(doc.by_severity.high).toMatchObject({ opened: 5, closed: 1 });
    expect(doc.top_rules).toEqual([
      { rule_id: 'rule-a', title: 'Rule rule-a', alerts: 3, cases: 3 },
      { rule_id: 'rule-b', title: 'Rule rule-b', alerts: 1, cases: 1 },
    ]);
    expect(doc.ai_triage_agreement).toEqual({ total_feedback: 0, agreed: 0, disagreed: 0, agreement_rate: null });
    expect(doc.ai_spend).toEqual({
      invocations: 3,
      refusals: 2,
      refusals_by_code: { ai_data_class_denied: 1, ai_structured_output_invalid: 1 },
      prompt_tokens: 1340,
      completion_tokens: 310,
      total_tokens: 1650,
      by_feature: [
        { feature: 'triage', total_tokens: 1250, invocations: 2 },
        { feature: 'explain', total_tokens: 400, invocations: 1 },
      ],
      by_model: [
        { model: 'm-large', total_tokens: 1250, invocations: 2 },
        { model: 'm-small', total_tokens: 400, invocations: 1 },
      ],
    });
  });

  it('keeps case metrics team- and private-case-scoped and zeroes AI spend for everyone else', async () => {
    const zeroed = { invocations: 0, refusals: 0, refusals_by_code: {}, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, by_feature: [], by_model: [] };
    const ofBlue = (await soc(blue)).body;
    expect(ofBlue.totals).toMatchObject({ opened: 4, closed: 1, approvals_decided: 1, alerts_received: 3, runs_finished: { succeeded: 1 } });
    expect(ofBlue.by_team.map((t: { team: string | null }) => t.team)).toEqual(['blue']);
    expect(ofBlue.top_rules).toEqual([
      { rule_id: 'rule-a', title: 'Rule rule-a', alerts: 2, cases: 2 },
      { rule_id: 'rule-b', title: 'Rule rule-b', alerts: 1, cases: 1 },
    ]);
    expect(ofBlue.ai_spend).toEqual(zeroed);
    expect((await soc(blueAdmin)).body.ai_spend).toEqual(zeroed);
    const ofRed = (await soc(red)).body;
    expect(ofRed.totals).toMatchObject({ opened: 2, closed: 0, approvals_decided: 0, mttr_seconds: null, alerts_received: 1, runs_finished: { succeeded: 0 } });
    expect(ofRed.ai_spend).toEqual(zeroed);
  });

  it('narrows to one team, and answers an operator-report workload of an administrator with AI spend', async () => {
    const narrowed = (await soc(root, '?team=red&days=7')).body;
    expect(narrowed).toMatchObject({ window_days: 7, team: 'red', totals: { opened: 2, alerts_received: 1, runs_finished: { succeeded: 0 } } });
    expect(narrowed.top_rules).toEqual([{ rule_id: 'rule-a', title: 'Rule rule-a', alerts: 1, cases: 1 }]);
    expect((await soc(blue, '?team=red')).body.totals.opened).toBe(0);
    const report = async (scope: string) => {
      const token = await svc.identity.sign({
        token_use: 'exchange',
        sub: 'soc-report',
        scope,
        act: { sub: root.sub, email: root.email, grants: root.grants },
      });
      return (await svc.request('/metrics/soc', { headers: { authorization: `Bearer ${token}` } })).json() as Promise<{
        ai_spend: { invocations: number };
      }>;
    };
    expect((await report('svc:cases:read svc:admin:read')).ai_spend.invocations).toBe(3);
    expect((await report('svc:cases:read')).ai_spend.invocations).toBe(0);
  });

  it('refuses a bad window or team with the field named', async () => {
    const bad = await soc(root, '?days=0&team=');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'days'],
        ['query', 'team'],
      ]),
    );
  });
});
