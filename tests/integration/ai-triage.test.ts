/**
 * Advisory AI triage end to end on every engine (SPEC.md "Cases" ai-triage, "Audit rules
 * for AI", "AI gate order", "AI data-class gating"), against a local stand-in that speaks
 * the OpenAI-style chat completions API:
 * - each gate code in SPEC.md's order, each refusal 422 `{detail: {code, message}}`;
 * - exactly one AI audit row per call on every path (refusals, timeouts, provider errors,
 *   a connection that never answered, invalid answers);
 * - a planted secret of every class never reaches the provider, a log line, an answer or
 *   the audit log;
 * - a verdict changes no status, severity or owner; feedback, `my_feedback` and the SOC
 *   agreement metric.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiProviderServer, type AiProviderServer } from '../support/ai-provider-server.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const ben = testPerson('ben@example.com', [{ team: 'blue', role: 'analyst' }]);
const vera = testPerson('vera@example.com', [{ team: 'blue', role: 'viewer' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

const PROVIDER_KEY = 'sk-provider-key-0123456789abcdef';

/** One planted secret per class SPEC.md names; none may leave the service. */
const SECRETS = {
  bearer: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.cGxhbnRlZHNpZ25hdHVyZQ',
  apiKey: 'sk-proj-PlantedKeyAbCdEfGh0123456789',
  awsKeyId: 'AKIAPLANTED0EXAMPLE7',
  basicAuth: 'cGxhbnRlZDpiYXNpY3Bhc3N3b3Jk',
  privateKey: 'MIIEplantedPRIVATEkeyMATERIAL0123456789',
  connectionPassword: 'Planted-DB-Passw0rd',
};
const plantedText = [
  `Authorization: Bearer ${SECRETS.bearer}`,
  `openai key ${SECRETS.apiKey}`,
  `aws ${SECRETS.awsKeyId}`,
  `Authorization: Basic ${SECRETS.basicAuth}`,
  `-----BEGIN RSA PRIVATE KEY-----\n${SECRETS.privateKey}\n-----END RSA PRIVATE KEY-----`,
  `DATABASE_URL=postgres://svc:${SECRETS.connectionPassword}@db.internal/svc`,
].join('\n');
const leaks = (text: string) => Object.entries(SECRETS).filter(([, secret]) => text.includes(secret));

const verdict = (extra: Record<string, unknown> = {}) => ({
  verdict: 'true_positive',
  confidence: 0.85,
  rationale: 'Beaconing to a rare domain from a server that never talks out.',
  evidence_refs: [],
  suggested_runbook: null,
  ...extra,
});

describe.each(e2eEngines)('AI triage on $name', ({ server }) => {
  let svc: InProcessService;
  let ai: AiProviderServer;
  let caseId: string;
  let bigCaseId: string;

  const peerPut = async (body: unknown) => {
    const token = await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:ai:write' });
    const res = await svc.request('/peer/v1/settings/ai', {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const usage = async (data_classes: string[], timeout_seconds = 5) => {
    const res = await callAs(svc, root, 'PUT', '/settings/ai', { data_classes, max_tokens: 400, temperature: 0.1, timeout_seconds });
    expect(res.status, res.text).toBe(200);
  };
  /** The AI audit rows (`ai.invocation`, `ai.refusal`, `ai.triage`) so far, oldest first. */
  const aiRows = async () => {
    const rows: { action: string; detail: Record<string, unknown>; target: unknown }[] = [];
    for (const action of ['ai.invocation', 'ai.refusal', 'ai.triage']) {
      const page = await callAs(svc, root, 'GET', `/audit?action=${action}&limit=500`);
      expect(page.status, page.text).toBe(200);
      rows.push(...page.body.items);
    }
    return rows;
  };
  /** Triage `id` as `who`, and the AI audit rows the call added. */
  const triage = async (id: string, who = ana, body: unknown = {}) => {
    const before = await aiRows();
    const res = await callAs(svc, who, 'POST', `/cases/${id}/ai-triage`, body);
    const after = await aiRows();
    const seen = new Set(before.map((r) => JSON.stringify(r)));
    return { res, added: after.filter((r) => !seen.has(JSON.stringify(r))) };
  };
  const expectRefused = async (id: string, code: string, reached: boolean) => {
    const { res, added } = await triage(id);
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toEqual({ code, message: expect.any(String) });
    expect(res.body.code).toBe(code);
    expect(added.map((r) => r.action)).toEqual([reached ? 'ai.invocation' : 'ai.refusal']);
    expect(added[0]?.detail.refusal_code).toBe(code);
    return { res, row: added[0] };
  };

  beforeAll(async () => {
    ai = await startAiProviderServer({ apiKey: PROVIDER_KEY });
    svc = await startInProcessService({ server }, { extraEnv: { SVC_AI_MAX_PROMPT_CHARS: '8000' } });
    const opened = await callAs(svc, ana, 'POST', '/cases', { title: 'Beaconing host', severity: 'high', team: 'blue', description: plantedText });
    expect(opened.status, opened.text).toBe(201);
    caseId = opened.body.id;
    const big = await callAs(svc, ana, 'POST', '/cases', { title: 'Huge case', severity: 'low', team: 'blue', description: 'x'.repeat(9000) });
    bigCaseId = big.body.id;
  }, 90_000);
  afterAll(async () => {
    await svc?.close();
    await ai?.close();
  });

  it('refuses in SPEC.md gate order, each with one ai.refusal row and nothing sent', async () => {
    await expectRefused(caseId, 'ai_disabled', false);
    await peerPut({ enabled: true });
    await expectRefused(caseId, 'ai_not_configured', false);
    await peerPut({ enabled: true, provider: 'compatible_api', base_url: `${ai.url}/v1`, model: 'triage-model', api_key: PROVIDER_KEY });
    await usage(['cases', 'alerts']);
    const denied = await expectRefused(caseId, 'ai_data_class_denied', false);
    expect(denied.res.body.detail.message).toContain('events');
    await usage(['cases', 'alerts', 'events']);
    await expectRefused(bigCaseId, 'ai_invalid_request', false);
    expect(ai.requests).toHaveLength(0);
  });

  it('records a verdict without touching status, severity or owner, with one ai.invocation and one ai.triage row', async () => {
    ai.respondWith({
      kind: 'json',
      value: verdict({ evidence_refs: [caseId, 'made-up-id'], suggested_runbook: 'no-such-runbook' }),
      usage: { input: 321, output: 45 },
    });
    const before = (await callAs(svc, ana, 'GET', `/cases/${caseId}`)).body;
    const { res, added } = await triage(caseId);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      state: 'complete',
      verdict: 'true_positive',
      confidence: 0.85,
      evidence_refs: [caseId],
      unverified_evidence_refs: ['made-up-id'],
      suggested_runbook: null,
      error_code: 'suggested_runbook_rejected',
      provider: 'compatible_api',
      model: 'triage-model',
      output_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      my_feedback: null,
    });
    expect(added.map((r) => r.action).sort()).toEqual(['ai.invocation', 'ai.triage']);
    const invocation = added.find((r) => r.action === 'ai.invocation');
    expect(invocation?.detail).toMatchObject({
      feature: 'triage',
      prompt_tokens: 321,
      completion_tokens: 45,
      provider: 'compatible_api',
      model: 'triage-model',
    });
    expect(invocation?.detail).not.toHaveProperty('refusal_code');
    expect(invocation?.detail.prompt_digest).toMatch(/^sha256:/);

    const after = (await callAs(svc, ana, 'GET', `/cases/${caseId}`)).body;
    for (const field of ['status', 'severity', 'owner_id', 'owner_email', 'title', 'tags', 'acknowledged_at', 'updated_at'])
      expect(after[field]).toEqual(before[field]);
    expect(after.ai_triage).toEqual(res.body);
    const timeline = (await callAs(svc, ana, 'GET', `/cases/${caseId}/timeline`)).body;
    const items: { kind: string }[] = timeline.items ?? timeline;
    expect(items.filter((e) => e.kind === 'ai_triage')).toHaveLength(1);
    expect((await callAs(svc, ana, 'GET', `/cases/${caseId}/ai-triage`)).body).toEqual(res.body);
  });

  it('sends no planted secret to the provider, and keeps none in answers, logs or the audit log', async () => {
    ai.reset();
    ai.respondWith({ kind: 'error', status: 400, message: `bad request for key ${SECRETS.apiKey} and ${SECRETS.awsKeyId}` });
    const { res } = await triage(caseId, ana, { note: `see also Bearer ${SECRETS.bearer}` });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('ai_provider_error');
    expect(leaks(res.text)).toEqual([]);
    expect(ai.requests).toHaveLength(1);
    const sent = JSON.stringify(ai.requests[0]?.body);
    expect(sent).toContain('Beaconing host');
    expect(sent).toContain('[redacted]');
    expect(leaks(sent)).toEqual([]);
    expect(leaks(JSON.stringify(await aiRows()))).toEqual([]);
    expect(leaks(JSON.stringify(svc.errors()))).toEqual([]);
  });

  it('audits each failure once with its code, keeping the previous verdict', async () => {
    ai.respondWith({ kind: 'text', text: 'I think it is bad.' });
    await expectRefused(caseId, 'ai_structured_output_invalid', true);
    ai.respondWith({ kind: 'json', value: { verdict: 'bad' } });
    await expectRefused(caseId, 'ai_structured_output_invalid', true);
    ai.respondWith({ kind: 'json', value: verdict({ verdict: 'malicious' }), usage: { input: 10, output: 5 } });
    const invalid = await expectRefused(caseId, 'ai_triage_output_invalid', true);
    expect(invalid.row?.detail).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    ai.respondWith({ kind: 'error', status: 500, message: 'overloaded' });
    await expectRefused(caseId, 'ai_provider_error', true);
    ai.respondWith({ kind: 'destroy' });
    await expectRefused(caseId, 'provider_request_failed', true);
    await usage(['cases', 'alerts', 'events'], 1);
    ai.respondWith({ kind: 'json', value: verdict(), delay_ms: 2500 });
    await expectRefused(caseId, 'ai_timeout', true);
    await usage(['cases', 'alerts', 'events']);
    expect((await callAs(svc, ana, 'GET', `/cases/${caseId}/ai-triage`)).body.verdict).toBe('true_positive');
  });

  it('lets a viewer read but not triage, and hides another team’s case', async () => {
    expect((await callAs(svc, vera, 'GET', `/cases/${caseId}/ai-triage`)).status).toBe(200);
    expect((await callAs(svc, vera, 'POST', `/cases/${caseId}/ai-triage`, {})).status).toBe(403);
    expect((await callAs(svc, red, 'GET', `/cases/${caseId}/ai-triage`)).status).toBe(404);
    expect((await callAs(svc, red, 'POST', `/cases/${caseId}/ai-triage`, {})).status).toBe(404);
  });

  it('keeps one feedback per analyst, shows my_feedback, and counts agreement in the SOC metrics', async () => {
    const none = await callAs(svc, ana, 'POST', `/cases/${bigCaseId}/ai-triage/feedback`, { analyst_verdict: 'false_positive' });
    expect(none.status, none.text).toBe(409);
    expect(none.body.code).toBe('ai_triage_missing');
    const bad = await callAs(svc, ana, 'POST', `/cases/${caseId}/ai-triage/feedback`, { analyst_verdict: 'maybe' });
    expect(bad.status).toBe(422);

    const first = await callAs(svc, ana, 'POST', `/cases/${caseId}/ai-triage/feedback`, { analyst_verdict: 'false_positive', note: 'test traffic' });
    expect(first.status, first.text).toBe(200);
    expect(first.body.my_feedback).toEqual({ analyst_verdict: 'false_positive', note: 'test traffic' });
    const again = await callAs(svc, ana, 'POST', `/cases/${caseId}/ai-triage/feedback`, { analyst_verdict: 'true_positive' });
    expect(again.body.my_feedback).toEqual({ analyst_verdict: 'true_positive', note: null });
    expect((await callAs(svc, ben, 'POST', `/cases/${caseId}/ai-triage/feedback`, { analyst_verdict: 'benign_positive' })).status).toBe(200);
    expect((await callAs(svc, ben, 'GET', `/cases/${caseId}`)).body.ai_triage.my_feedback).toEqual({ analyst_verdict: 'benign_positive', note: null });
    expect((await callAs(svc, root, 'GET', `/cases/${caseId}/ai-triage`)).body.my_feedback).toBeNull();

    const soc = await callAs(svc, root, 'GET', '/metrics/soc');
    expect(soc.status, soc.text).toBe(200);
    expect(soc.body.ai_triage_agreement).toEqual({ total_feedback: 2, agreed: 1, disagreed: 1, agreement_rate: 0.5 });
    expect((await callAs(svc, red, 'GET', '/metrics/soc')).body.ai_triage_agreement.total_feedback).toBe(0);
    expect(soc.body.ai_spend.refusals_by_code).toMatchObject({ ai_disabled: 1, ai_timeout: 1, provider_request_failed: 1 });
  });
});

describe('the operator kill switch', () => {
  it('refuses every call first with ai_kill_switch, whatever the settings say', async () => {
    const svc = await startInProcessService({ server: false }, { extraEnv: { SVC_AI_KILL_SWITCH: 'true' } });
    try {
      const token = await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:ai:write' });
      const put = await svc.request('/peer/v1/settings/ai', {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ enabled: true, provider: 'local_daemon', base_url: 'http://127.0.0.1:9', model: 'm' }),
      });
      expect(put.status).toBe(200);
      const opened = await callAs(svc, ana, 'POST', '/cases', { title: 'Case', severity: 'low', team: 'blue' });
      const res = await callAs(svc, ana, 'POST', `/cases/${opened.body.id}/ai-triage`, {});
      expect(res.status).toBe(422);
      expect(res.body.detail.code).toBe('ai_kill_switch');
      const rows = await callAs(svc, root, 'GET', '/audit?action=ai.refusal');
      expect(rows.body.items.map((r: { detail: { refusal_code: string } }) => r.detail.refusal_code)).toEqual(['ai_kill_switch']);
    } finally {
      await svc.close();
    }
  }, 60_000);
});
