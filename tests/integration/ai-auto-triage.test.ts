/**
 * The `auto_ai_triage` case policy on every engine (SPEC.md "Generic actions": it "queues
 * one advisory triage out of band for the case it opens"), against a local stand-in speaking
 * the OpenAI-style chat completions API: a case opened with a template that sets it answers
 * at once with a pending triage, and the worker records one verdict (one `ai.invocation`,
 * one `ai.triage`); with AI off the triage ends `failed` under the gate's code with one
 * `ai.refusal`; a template without the policy queues nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiProviderServer, type AiProviderServer } from '../support/ai-provider-server.ts';
import { enableAi, TEST_PROVIDER_KEY } from '../support/ai-settings.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);

const template = (id: string, auto: boolean) => `
id: ${id}
name: ${id}
phases:
  - name: Triage
    tasks:
      - title: Look at it
${auto ? 'auto_ai_triage: true\n' : ''}`;

describe.each(e2eEngines)('auto_ai_triage on $name', ({ server }) => {
  let svc: InProcessService;
  let ai: AiProviderServer;
  const templates = mkdtempSync(join(tmpdir(), 'svc-auto-triage-'));

  const rows = async (action: string, caseId: string) =>
    (
      (await callAs(svc, root, 'GET', `/audit?action=${action}&limit=500`)).body.items as {
        target: { id: string } | null;
        actor: unknown;
        detail: Record<string, unknown>;
      }[]
    ).filter((r) => r.target?.id === caseId);
  const open = async (templateId: string) => {
    const res = await callAs(svc, ana, 'POST', '/cases', { title: 'Beaconing host', severity: 'high', team: 'blue', template_id: templateId });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  /** Polls the case (at most 15 s) until its triage is no longer pending. */
  const settled = async (caseId: string) => {
    for (let i = 0; i < 300; i++) {
      const c = (await callAs(svc, ana, 'GET', `/cases/${caseId}`)).body;
      if (c.ai_triage?.state !== 'pending') return c;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the triage of ${caseId} stayed pending`);
  };

  beforeAll(async () => {
    writeFileSync(join(templates, 'auto.yml'), template('auto-triaged', true));
    writeFileSync(join(templates, 'plain.yml'), template('plain', false));
    ai = await startAiProviderServer({ apiKey: TEST_PROVIDER_KEY });
    svc = await startInProcessService({ server }, { extraEnv: { SVC_CASE_TEMPLATES_DIR: templates } });
  }, 90_000);
  afterAll(async () => {
    await svc?.close();
    await ai?.close();
    rmSync(templates, { recursive: true, force: true });
  });

  it('ends the queued triage failed under the gate’s code while AI is off, with one ai.refusal', async () => {
    const opened = await open('auto-triaged');
    expect(opened.ai_triage).toMatchObject({ state: 'pending', verdict: null });
    const c = await settled(opened.id);
    expect(c.ai_triage).toMatchObject({ state: 'failed', verdict: null, error_code: 'ai_disabled' });
    const refusals = await rows('ai.refusal', opened.id);
    expect(refusals.map((r) => r.detail.refusal_code)).toEqual(['ai_disabled']);
    expect(refusals[0]?.actor).toMatchObject({ kind: 'system', via: 'case_policy' });
  });

  it('records one verdict out of band once AI is on, changing nothing else of the case', async () => {
    await enableAi(svc, root, ai.url, ['cases', 'alerts', 'events']);
    ai.respondWith({
      kind: 'json',
      value: { verdict: 'benign_positive', confidence: 0.7, rationale: 'A scheduled scan.', evidence_refs: [], suggested_runbook: null },
    });

    const opened = await open('auto-triaged');
    const c = await settled(opened.id);
    expect(c.ai_triage).toMatchObject({ state: 'complete', verdict: 'benign_positive', model: 'triage-model' });
    for (const field of ['status', 'severity', 'owner_id', 'title']) expect(c[field]).toEqual(opened[field]);
    expect(await rows('ai.invocation', opened.id)).toHaveLength(1);
    expect(await rows('ai.triage', opened.id)).toHaveLength(1);
    expect(ai.requests).toHaveLength(1);
  });

  it('queues nothing for a template without the policy', async () => {
    const opened = await open('plain');
    expect(opened.ai_triage).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect((await callAs(svc, ana, 'GET', `/cases/${opened.id}`)).body.ai_triage).toBeNull();
    expect(ai.requests).toHaveLength(1);
  });
});
