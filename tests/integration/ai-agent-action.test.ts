/**
 * The bounded `ai.agent` loop in real runs (SPEC.md "Generic actions", "outbound MCP",
 * "AI data-class gating"), against an OpenAI-style stand-in and a real MCP server built with
 * the official SDK, both on 127.0.0.1: read-only tools are called unattended; a write intent
 * stops the loop and opens an approval gate on the step, listed to approvers by
 * `GET /peer/v1/approvals` (identity's stand-in serves their live grants); approved, the
 * tool is called exactly once, denied, never, and no AI path decides the gate; the loop ends
 * at `max_steps`, each turn is one audited AI call, and the step's declared data classes
 * are gated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiProviderServer, type AiProviderServer } from '../support/ai-provider-server.ts';
import { identityServiceEnv, startIdentityServer, type IdentityServer } from '../support/identity-server.ts';
import { enableAi, TEST_PROVIDER_KEY } from '../support/ai-settings.ts';
import { startMcpServer, type TestMcpServer } from '../support/mcp-server.ts';
import { callAs, runOnCase, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
/** An approver of every team, by the live grants identity's stand-in serves. */
const bob = testPerson('bob@example.com', []);
const MCP_TOKEN = 'mcp-bearer-0123456789';
const EXCHANGE_SECRET = 'xs_ai-agent-gate-secret-7c1d';

const agentRunbook = (slug: string, extra = '') => `
id: ${slug}
name: ${slug}
version: 1
trigger: { type: manual }
steps:
  - id: agent
    action: ai.agent
    with:
      connection: edr-mcp
      goal: "Find out what host web-01 talked to."
      data_classes: [cases]${extra}
`;

const turn = (next: string, tool: string | null, args: Record<string, unknown> | null, summary: string) => ({
  kind: 'json' as const,
  value: { next, tool, arguments: args, summary },
});

describe('the ai.agent action', () => {
  let svc: InProcessService;
  let ai: AiProviderServer;
  let mcp: TestMcpServer;
  let identity: IdentityServer;
  let caseId: string;
  const agentStep = (run: { action_log: { step_id: string; output: any; error: string | null }[] }) => run.action_log.findLast((r) => r.step_id === 'agent');
  const invocations = async () =>
    ((await callAs(svc, root, 'GET', '/audit?action=ai.invocation&limit=500')).body.items as { detail: { feature: string } }[]).filter(
      (r) => r.detail.feature === 'agent',
    ).length;

  beforeAll(async () => {
    ai = await startAiProviderServer({ apiKey: TEST_PROVIDER_KEY });
    mcp = await startMcpServer(MCP_TOKEN, [
      { name: 'lookup_host', readOnly: true },
      { name: 'isolate_host', readOnly: true },
    ]);
    identity = await startIdentityServer('svc', EXCHANGE_SECRET);
    identity.setUser(bob.sub, { active: true, grants: [{ team: null, role: 'approver' }], four_eyes_exception: false });
    svc = await startInProcessService(
      { server: false },
      {
        runbooks: {
          'agent.yml': agentRunbook('agent-look'),
          'agent-short.yml': agentRunbook('agent-short', '\n      max_steps: 2'),
          'agent-events.yml': agentRunbook('agent-events').replace('data_classes: [cases]', 'data_classes: [events]'),
        },
        // The AI and MCP stand-ins listen on 127.0.0.1 too.
        extraEnv: { ...identityServiceEnv(identity, EXCHANGE_SECRET), SVC_ALLOW_PRIVATE_TARGETS: 'true' },
      },
    );
    const created = await callAs(svc, root, 'POST', '/connections', {
      kind: 'mcp',
      name: 'edr-mcp',
      base_url: mcp.url,
      secret: MCP_TOKEN,
      config: { allowed_tools: ['lookup_host', 'isolate_host'], read_only_tools: ['lookup_host'] },
    });
    expect(created.status, created.text).toBe(201);
    caseId = (await callAs(svc, ana, 'POST', '/cases', { title: 'Host beaconing', severity: 'high', team: 'blue' })).body.id;
    await enableAi(svc, root, ai.url, ['cases']);
  }, 90_000);
  afterAll(async () => {
    await svc?.close();
    await mcp?.close();
    await ai?.close();
    await identity?.close();
  });

  /** The gates identity's approvals listing shows `who` (as the suite shell asks for them). */
  const approvalsOf = async (who: typeof bob) => {
    const token = await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:status:read' });
    const res = await svc.request(`/peer/v1/approvals?user=${who.sub}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { approvals: { id: string; step_id: string; summary: string }[] }).approvals;
  };
  const queueOnCase = async (slug: string) => {
    const queued = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, {});
    expect(queued.status, queued.text).toBe(202);
    return queued.body.id as string;
  };

  it('calls read-only tools unattended and finishes, one audited AI call per turn', async () => {
    const before = await invocations();
    ai.respondWith(turn('call_tool', 'lookup_host', { host: 'web-01' }, 'Looking the host up.'), turn('finish', null, null, 'web-01 talked to 203.0.113.9.'));
    const run = await runOnCase(svc, ana, caseId, 'agent-look');
    expect(run.status, JSON.stringify(run.action_log)).toBe('succeeded');
    expect(agentStep(run)?.output).toEqual({
      summary: 'web-01 talked to 203.0.113.9.',
      tool_calls: [{ tool: 'lookup_host', ok: true }],
      stopped_for_approval: false,
      stop_reason: 'finished',
    });
    expect(mcp.seen.map((c) => [c.name, c.args])).toEqual([['lookup_host', { host: 'web-01' }]]);
    expect(mcp.seen[0]?.meta?.idempotency_key).toMatch(/^svc-[A-Za-z0-9_-]{32}-1$/);
    // The tool's answer reached the second turn's prompt.
    expect(JSON.stringify(ai.requests.at(-1)?.body)).toContain('web-01');
    expect((await invocations()) - before).toBe(2);
  });

  it('stops at a write intent and waits at a gate on its step, listed to approvers; approved, the tool is called exactly once', async () => {
    const calls = mcp.seen.length;
    ai.respondWith(
      turn('call_tool', 'lookup_host', { host: 'web-01' }, 'Looking.'),
      turn('call_tool', 'isolate_host', { host: 'web-01' }, 'web-01 should be isolated.'),
    );
    const runId = await queueOnCase('agent-look');
    const waiting = await runWhen(svc, ana, runId, /^(waiting_approval|succeeded|failed)$/);
    expect(waiting.status, JSON.stringify(waiting.action_log)).toBe('waiting_approval');
    expect(waiting.gates).toMatchObject([{ step_id: 'agent', status: 'pending', reason: 'risk', roles: ['approver', 'admin'] }]);
    expect(mcp.seen.slice(calls).map((c) => c.name)).toEqual(['lookup_host']);
    const listed = (await approvalsOf(bob)).find((a) => a.id === runId);
    expect(listed).toMatchObject({ step_id: 'agent', summary: expect.stringContaining('isolate_host on edr-mcp with {"host":"web-01"}') });

    // Explaining the waiting run is one more AI call; the gate stays as it was.
    ai.respondWith({ kind: 'json', value: { summary: 's', steps: [], outcome: 'waiting', next_steps: [], risks: [] } });
    await enableAi(svc, root, ai.url, ['cases', 'alerts']);
    expect((await callAs(svc, ana, 'POST', `/ai/runs/${runId}/explanation`, {})).status).toBe(200);
    expect((await callAs(svc, ana, 'GET', `/runs/${runId}`)).body.gates).toMatchObject([{ step_id: 'agent', status: 'pending' }]);
    await enableAi(svc, root, ai.url, ['cases']);
    expect(mcp.seen.length).toBe(calls + 1);

    const sent = ai.requests.length;
    expect((await callAs(svc, root, 'POST', `/runs/${runId}/approve`, { step_id: 'agent', note: 'isolate it' })).status).toBe(200);
    const done = await runWhen(svc, ana, runId, /^(succeeded|failed)$/);
    expect(done.status, JSON.stringify(done.action_log)).toBe('succeeded');
    expect(agentStep(done)?.output).toEqual({
      summary: 'web-01 should be isolated.',
      tool_calls: [
        { tool: 'lookup_host', ok: true },
        { tool: 'isolate_host', ok: true },
      ],
      stopped_for_approval: true,
      stop_reason: 'write_intent',
    });
    const writes = mcp.seen.slice(calls).filter((c) => c.name === 'isolate_host');
    expect(writes.map((c) => c.args)).toEqual([{ host: 'web-01' }]);
    // The key of the turn that asked for the write; the model was not asked again.
    expect(writes[0]?.meta?.idempotency_key).toMatch(/^svc-[A-Za-z0-9_-]{32}-2$/);
    expect(ai.requests.length).toBe(sent);
  });

  it('denied at its gate, the write is never called and the run ends denied', async () => {
    const calls = mcp.seen.length;
    ai.respondWith(turn('call_tool', 'isolate_host', { host: 'web-02' }, 'web-02 should be isolated.'));
    const runId = await queueOnCase('agent-look');
    expect((await runWhen(svc, ana, runId, /^(waiting_approval|succeeded|failed)$/)).status).toBe('waiting_approval');
    expect((await callAs(svc, root, 'POST', `/runs/${runId}/deny`, { step_id: 'agent', note: 'not that host' })).status).toBe(200);
    const done = await runWhen(svc, ana, runId, /^(denied|succeeded|failed)$/);
    expect(done.status).toBe('denied');
    expect(mcp.seen.length).toBe(calls);
    expect((await approvalsOf(bob)).map((a) => a.id)).not.toContain(runId);
  });

  it('refuses a tool outside the offer back to the model, and ends at max_steps', async () => {
    const calls = mcp.seen.length;
    ai.respondWith(turn('call_tool', 'wipe_host', {}, 'Trying something.'), turn('call_tool', 'lookup_host', { host: 'web-02' }, 'Still looking.'));
    const run = await runOnCase(svc, ana, caseId, 'agent-short');
    expect(run.status).toBe('succeeded');
    expect(agentStep(run)?.output).toMatchObject({
      stop_reason: 'max_steps',
      stopped_for_approval: false,
      tool_calls: [
        { tool: 'wipe_host', ok: false },
        { tool: 'lookup_host', ok: true },
      ],
    });
    expect(mcp.seen.slice(calls).map((c) => c.name)).toEqual(['lookup_host']);
  });

  it('fails the step when its declared data classes are not allowed, sending nothing', async () => {
    const sent = ai.requests.length;
    const run = await runOnCase(svc, ana, caseId, 'agent-events');
    expect(run.status).toBe('failed');
    expect(agentStep(run)?.error).toMatch(/^ai_data_class_denied/);
    expect(ai.requests.length).toBe(sent);
  });
});
