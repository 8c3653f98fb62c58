/**
 * The `ai.triage` action in a real run on every engine (SPEC.md "Generic actions"), against
 * a local stand-in speaking the OpenAI-style chat completions API: the verdict lands on the
 * bound case once with its `ai.triage` audit entry and one `ai.invocation`, later steps read
 * the step's output, nothing else of the case changes, and a refused call fails the step
 * under its AI code with one `ai.refusal` and no verdict.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiProviderServer, type AiProviderServer } from '../support/ai-provider-server.ts';
import { enableAi, TEST_PROVIDER_KEY } from '../support/ai-settings.ts';
import { callAs, runOnCase, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);

const TRIAGE_RUNBOOK = `
id: triage-it
name: Triage with AI
version: 1
trigger: { type: manual }
steps:
  - id: triage
    action: ai.triage
    with: { instructions: "Focus on the beaconing." }
  - id: tag
    action: case.update
    needs: [triage]
    with: { tags_add: ["ai-{{ steps.triage.output.verdict }}"] }
`;

describe.each(e2eEngines)('the ai.triage action on $name', ({ server }) => {
  let svc: InProcessService;
  let ai: AiProviderServer;

  const rows = async (action: string) => (await callAs(svc, root, 'GET', `/audit?action=${action}&limit=500`)).body.items;
  const openCase = async (title: string) => (await callAs(svc, ana, 'POST', '/cases', { title, severity: 'high', team: 'blue' })).body.id as string;

  beforeAll(async () => {
    ai = await startAiProviderServer({ apiKey: TEST_PROVIDER_KEY });
    svc = await startInProcessService({ server }, { runbooks: { 'triage-it.yml': TRIAGE_RUNBOOK } });
  }, 90_000);
  afterAll(async () => {
    await svc?.close();
    await ai?.close();
  });

  it('is listed as implemented', async () => {
    const actions: { name: string; implemented: boolean }[] = (await callAs(svc, root, 'GET', '/actions')).body;
    expect(actions.find((a) => a.name === 'ai.triage')?.implemented).toBe(true);
  });

  it('fails the step under the gate’s code while AI is off, with one ai.refusal and no verdict', async () => {
    const caseId = await openCase('Refused triage');
    const run = await runOnCase(svc, ana, caseId, 'triage-it');
    expect(run.status).toBe('failed');
    expect(run.action_log.find((r: { step_id: string }) => r.step_id === 'triage').error).toMatch(/^ai_disabled/);
    expect((await rows('ai.refusal')).map((r: { target: unknown; detail: { refusal_code: string } }) => [r.target, r.detail.refusal_code])).toEqual([
      [{ type: 'case', id: caseId }, 'ai_disabled'],
    ]);
    expect((await callAs(svc, ana, 'GET', `/cases/${caseId}`)).body.ai_triage).toBeNull();
  });

  it('records the verdict once on the bound case, with its audit rows, and hands it to the next step', async () => {
    await enableAi(svc, root, ai.url, ['cases', 'alerts', 'events']);

    const caseId = await openCase('Beaconing host');
    const before = (await callAs(svc, ana, 'GET', `/cases/${caseId}`)).body;
    ai.respondWith({
      kind: 'json',
      value: { verdict: 'true_positive', confidence: 0.9, rationale: 'Regular beacons.', evidence_refs: [caseId], suggested_runbook: 'triage-it' },
    });
    const run = await runOnCase(svc, ana, caseId, 'triage-it');
    expect(run.status, JSON.stringify(run.action_log)).toBe('succeeded');
    const output = run.action_log.find((r: { step_id: string }) => r.step_id === 'triage').output;
    expect(output).toMatchObject({ verdict: 'true_positive', summary: 'Regular beacons.', evidence_refs: [caseId], suggested_runbook: 'triage-it' });
    expect(JSON.stringify(ai.requests[0]?.body)).toContain('Focus on the beaconing.');

    const after = (await callAs(svc, ana, 'GET', `/cases/${caseId}`)).body;
    expect(after.ai_triage).toMatchObject({ state: 'complete', verdict: 'true_positive', confidence: 0.9, model: 'triage-model' });
    expect(after.tags).toEqual(['ai-true_positive']);
    for (const field of ['status', 'severity', 'owner_id', 'owner_email', 'title']) expect(after[field]).toEqual(before[field]);
    const timeline = (await callAs(svc, ana, 'GET', `/cases/${caseId}/timeline`)).body;
    expect((timeline.items ?? timeline).filter((e: { kind: string }) => e.kind === 'ai_triage')).toHaveLength(1);

    const invocations = (await rows('ai.invocation')).filter((r: { target: { id: string } }) => r.target.id === caseId);
    const triages = (await rows('ai.triage')).filter((r: { target: { id: string } }) => r.target.id === caseId);
    expect(invocations).toHaveLength(1);
    expect(triages).toHaveLength(1);
    expect(triages[0].actor).toMatchObject({ kind: 'system', via: 'runbook_run' });
    expect(triages[0].detail).toMatchObject({ invocation_id: invocations[0].id, verdict: 'true_positive' });
  });
});
