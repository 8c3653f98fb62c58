/**
 * AI authoring end to end on every engine (SPEC.md "AI authoring (proposals only)",
 * "Audit rules for AI", "AI data-class gating"), against a local stand-in speaking the
 * OpenAI-style chat completions API:
 * - `POST /ai/runbook-drafts`: a proposal whose state-changing steps carry approval
 *   blocks, validated and diffed against `base_yaml`, never saved; the 200 refusals
 *   `ai_draft_unknown_action` and `ai_draft_invalid_runbook`; the prompt carries only the
 *   description and action names;
 * - `POST /ai/runs/<id>/explanation`: built from the action log, `in_log` flags, scoped
 *   like run read, never stored;
 * - one AI audit row per call on every path, and the AI path's refusals as 422.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiProviderServer, type AiProviderServer } from '../support/ai-provider-server.ts';
import { putAiProvider, TEST_PROVIDER_KEY } from '../support/ai-settings.ts';
import { callAs, runOnCase, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

const PLANTED_KEY = 'sk-proj-PlantedKeyAbCdEfGh0123456789';

const TAG_RUNBOOK = `
id: tag-case
name: Tag the case
version: 1
trigger: { type: manual }
steps:
  - id: tag
    action: case.update
    with: { tags_add: ["explained"] }
`;

/** A drafted runbook as a model might write it: a containment step without a gate, marked autonomous and enabled. */
const draftedYaml = (action = 'response.ip_block', slug = 'block-beacon') => `id: ${slug}
name: Block a beaconing source
description: Blocks the source IP of a beaconing alert and reads the block back.
version: 1
enabled: true
trigger: { type: manual }
inputs:
  - { name: ip, type: string, required: true, description: the address to block }
steps:
  - id: block
    action: ${action}
    autonomous: true
    with:
      ip: "{{ inputs.ip }}"
      ttl_seconds: 600
      reason: beaconing
  - id: verify
    action: response.ip_status
    needs: [block]
    with:
      ip: "{{ inputs.ip }}"
`;

const explanation = (steps: { step_id: string; explanation: string }[]) => ({
  summary: 'The run tagged the case.',
  steps,
  outcome: 'succeeded',
  next_steps: ['Review the tag.'],
  risks: [],
});

describe.each(e2eEngines)('AI authoring on $name', ({ server }) => {
  let svc: InProcessService;
  let ai: AiProviderServer;
  let runId: string;

  const usage = async (data_classes: string[]) => {
    const res = await callAs(svc, root, 'PUT', '/settings/ai', { data_classes, max_tokens: 800, temperature: 0.1, timeout_seconds: 5 });
    expect(res.status, res.text).toBe(200);
  };
  /** The AI audit rows so far, as `GET /audit` answers them. */
  const aiRows = async () => {
    const rows: { id: string; action: string; detail: Record<string, unknown>; target: unknown }[] = [];
    for (const action of ['ai.invocation', 'ai.refusal']) rows.push(...(await callAs(svc, root, 'GET', `/audit?action=${action}&limit=500`)).body.items);
    return rows;
  };
  /** Calls `path` as `who` and answers it with the AI audit rows the call added. */
  const call = async (path: string, body: unknown, who = root) => {
    const before = new Set((await aiRows()).map((r) => r.id));
    const res = await callAs(svc, who, 'POST', path, body);
    return { res, added: (await aiRows()).filter((r) => !before.has(r.id)) };
  };

  beforeAll(async () => {
    ai = await startAiProviderServer({ apiKey: TEST_PROVIDER_KEY });
    svc = await startInProcessService({ server }, { runbooks: { 'tag-case.yml': TAG_RUNBOOK } });
    const opened = await callAs(svc, ana, 'POST', '/cases', { title: 'Beaconing host', severity: 'high', team: 'blue' });
    expect(opened.status, opened.text).toBe(201);
    const run = await runOnCase(svc, ana, opened.body.id, 'tag-case');
    expect(run.status).toBe('succeeded');
    runId = run.id;
  }, 90_000);
  afterAll(async () => {
    await svc?.close();
    await ai?.close();
  });

  it('refuses both features with 422 and one ai.refusal row while AI is off, sending nothing', async () => {
    const draft = await call('/ai/runbook-drafts', { description: 'Block a beaconing source' });
    expect(draft.res.status, draft.res.text).toBe(422);
    expect(draft.res.body.detail).toEqual({ code: 'ai_disabled', message: expect.any(String) });
    expect(draft.added.map((r) => [r.action, r.detail.feature, r.detail.refusal_code])).toEqual([['ai.refusal', 'runbook_draft', 'ai_disabled']]);
    const explained = await call(`/ai/runs/${runId}/explanation`, {});
    expect(explained.res.status, explained.res.text).toBe(422);
    expect(explained.added.map((r) => [r.action, r.detail.feature, r.detail.refusal_code])).toEqual([['ai.refusal', 'run_explanation', 'ai_disabled']]);
    expect(ai.requests).toHaveLength(0);

    await putAiProvider(svc, { enabled: true, provider: 'compatible_api', base_url: `${ai.url}/v1`, model: 'author-model', api_key: TEST_PROVIDER_KEY });
  });

  it('proposes a gated, disabled, validated draft with its diff, saving nothing and sending only the description and action names', async () => {
    const runbooksBefore = (await callAs(svc, root, 'GET', '/runbooks')).body.items;
    ai.reset();
    ai.respondWith({
      kind: 'json',
      value: { yaml_text: draftedYaml(), summary: 'Blocks the source.', notes: ['Check the TTL.'] },
      usage: { input: 200, output: 90 },
    });
    const base = 'id: block-beacon\nname: BASE-ONLY-MARKER\nversion: 1\n';
    const { res, added } = await call('/ai/runbook-drafts', { description: `Block a beaconing source; our key is ${PLANTED_KEY}`, base_yaml: base });
    expect(res.status, res.text).toBe(200);
    const { proposal } = res.body;
    expect(res.body.refusal).toBeNull();
    expect(proposal).toMatchObject({
      slug: 'block-beacon',
      name: 'Block a beaconing source',
      summary: 'Blocks the source.',
      notes: ['Check the TTL.'],
      actions_used: ['response.ip_block', 'response.ip_status'],
      approval_steps: ['block'],
    });
    expect(proposal.yaml_text).toContain('approval:');
    expect(proposal.yaml_text).not.toContain('autonomous');
    expect(proposal.yaml_text).toMatch(/^enabled: false$/m);
    expect((await callAs(svc, root, 'POST', '/runbooks/validate', { yaml_text: proposal.yaml_text })).body.errors).toEqual([]);
    expect(proposal.diff).toContain('--- a/block-beacon.yml');
    expect(proposal.diff).toContain('+++ b/block-beacon.yml');
    expect(proposal.diff).toContain('-name: BASE-ONLY-MARKER');
    expect(proposal.diff).toContain('+  - id: block');

    expect(added).toHaveLength(1);
    expect(res.body.audit).toEqual({ id: added[0]?.id, action: 'ai.invocation' });
    expect(added[0]?.detail).toMatchObject({ feature: 'runbook_draft', prompt_tokens: 200, completion_tokens: 90, model: 'author-model' });
    expect(added[0]?.detail).not.toHaveProperty('refusal_code');

    const sent = JSON.stringify(ai.requests[0]?.body);
    expect(sent).toContain('Block a beaconing source');
    expect(sent).toContain('response.ip_block');
    expect(sent).toContain('case.update');
    expect(sent).not.toContain('BASE-ONLY-MARKER');
    expect(sent).not.toContain(PLANTED_KEY);
    expect((await callAs(svc, root, 'GET', '/runbooks')).body.items).toEqual(runbooksBefore);
  });

  it('diffs a draft without base_yaml against nothing', async () => {
    ai.respondWith({ kind: 'json', value: { yaml_text: draftedYaml(), summary: 'Blocks the source.', notes: [] } });
    const { res } = await call('/ai/runbook-drafts', { description: 'Block a beaconing source' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.proposal.diff).toContain('--- /dev/null');
    expect(res.body.proposal.diff).toContain('+id: block-beacon');
  });

  it('answers 200 with the draft’s own refusal for an unknown action or an invalid runbook, each audited once with its code', async () => {
    ai.respondWith({ kind: 'json', value: { yaml_text: draftedYaml('firewall.nuke_everything'), summary: 's', notes: [] } });
    const unknown = await call('/ai/runbook-drafts', { description: 'Block it' });
    expect(unknown.res.status, unknown.res.text).toBe(200);
    expect(unknown.res.body.proposal).toBeNull();
    expect(unknown.res.body.refusal).toEqual({
      code: 'ai_draft_unknown_action',
      message: expect.any(String),
      details: { unknown_actions: ['firewall.nuke_everything'] },
    });
    expect(unknown.added.map((r) => r.detail.refusal_code)).toEqual(['ai_draft_unknown_action']);
    expect(unknown.res.body.audit).toEqual({ id: unknown.added[0]?.id, action: 'ai.invocation' });

    ai.respondWith({ kind: 'json', value: { yaml_text: draftedYaml('response.ip_block', 'Not A Slug'), summary: 's', notes: [] } });
    const invalid = await call('/ai/runbook-drafts', { description: 'Block it' });
    expect(invalid.res.status, invalid.res.text).toBe(200);
    expect(invalid.res.body.proposal).toBeNull();
    expect(invalid.res.body.refusal.code).toBe('ai_draft_invalid_runbook');
    expect(invalid.res.body.refusal.details.errors).toContainEqual({ loc: ['id'], msg: expect.any(String) });
    expect(invalid.added.map((r) => r.detail.refusal_code)).toEqual(['ai_draft_invalid_runbook']);

    ai.respondWith({ kind: 'text', text: 'Here is your runbook!' });
    const malformed = await call('/ai/runbook-drafts', { description: 'Block it' });
    expect(malformed.res.status).toBe(422);
    expect(malformed.res.body.detail.code).toBe('ai_structured_output_invalid');
    expect(malformed.added.map((r) => [r.action, r.detail.refusal_code])).toEqual([['ai.invocation', 'ai_structured_output_invalid']]);
  });

  it('takes drafts from runbook managers only, and refuses a bad body before any call', async () => {
    const before = ai.requests.length;
    expect((await callAs(svc, ana, 'POST', '/ai/runbook-drafts', { description: 'x' })).status).toBe(403);
    const empty = await callAs(svc, root, 'POST', '/ai/runbook-drafts', { description: '   ' });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'description']);
    expect((await callAs(svc, root, 'POST', '/ai/runbook-drafts', { description: 'x'.repeat(4001) })).status).toBe(422);
    expect(ai.requests.length).toBe(before);
  });

  it('explains a run from its action log, flagging steps the log lacks, gated on alerts and cases and never stored', async () => {
    await usage(['alerts']);
    const denied = await call(`/ai/runs/${runId}/explanation`, {}, ana);
    expect(denied.res.status).toBe(422);
    expect(denied.res.body.detail).toEqual({ code: 'ai_data_class_denied', message: expect.stringContaining('cases') });
    expect(denied.added.map((r) => r.action)).toEqual(['ai.refusal']);
    await usage(['alerts', 'cases']);

    const runBefore = (await callAs(svc, ana, 'GET', `/runs/${runId}`)).body;
    ai.reset();
    ai.respondWith({
      kind: 'json',
      value: explanation([
        { step_id: 'tag', explanation: 'Tagged the case.' },
        { step_id: 'ghost', explanation: 'A step the model made up.' },
      ]),
    });
    const { res, added } = await call(`/ai/runs/${runId}/explanation`, {}, ana);
    expect(res.status, res.text).toBe(200);
    expect(res.body.explanation).toEqual({
      summary: 'The run tagged the case.',
      steps: [
        { step_id: 'tag', explanation: 'Tagged the case.', in_log: true },
        { step_id: 'ghost', explanation: 'A step the model made up.', in_log: false },
      ],
      outcome: 'succeeded',
      next_steps: ['Review the tag.'],
      risks: [],
    });
    expect(added.map((r) => [r.action, r.detail.feature])).toEqual([['ai.invocation', 'run_explanation']]);
    expect(added[0]?.target).toEqual({ type: 'run', id: runId });
    expect(res.body.audit).toEqual({ id: added[0]?.id, action: 'ai.invocation' });
    const sent = JSON.stringify(ai.requests[0]?.body);
    expect(sent).toContain('case.update');
    expect(sent).toContain(runId);
    expect((await callAs(svc, ana, 'GET', `/runs/${runId}`)).body).toEqual(runBefore);
  });

  it('scopes explanations like run read: another team’s run is 404 and nothing is called or audited', async () => {
    const before = ai.requests.length;
    const { res, added } = await call(`/ai/runs/${runId}/explanation`, {}, red);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('run_not_found');
    expect(added).toEqual([]);
    expect(ai.requests.length).toBe(before);
  });
});
