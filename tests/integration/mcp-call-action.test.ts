/**
 * The `mcp.call` action in real runs on every engine (SPEC.md "Generic actions", "outbound
 * MCP"), against a real MCP server built with the official SDK on 127.0.0.1: the
 * connection's `allowed_tools` and `read_only_tools` are the authority (a tool outside the
 * allowlist is never sent; one outside the read-only tools waits at a gate even in an
 * `autonomous` step, and is called once approved), every call carries the delivery's
 * idempotency key in `_meta`, and a tool's error answer fails the step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpServer, type TestMcpServer } from '../support/mcp-server.ts';
import { callAs, runOnCase, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const MCP_TOKEN = 'mcp-bearer-0123456789';

const callRunbook = (slug: string, tool: string) => `
id: ${slug}
name: ${slug}
version: 1
trigger: { type: manual }
steps:
  - id: call
    action: mcp.call
    autonomous: true
    with:
      connection: edr-mcp
      tool: ${tool}
      arguments: { ip: "203.0.113.9", case: "{{ case.key }}" }
`;

describe.each(e2eEngines)('the mcp.call action on $name', ({ server }) => {
  let svc: InProcessService;
  let mcp: TestMcpServer;
  let caseId: string;
  const step = (run: { action_log: { step_id: string; error: string | null; output: unknown }[] }) => run.action_log.find((r) => r.step_id === 'call');

  beforeAll(async () => {
    mcp = await startMcpServer(MCP_TOKEN, [
      { name: 'lookup_host', readOnly: true },
      { name: 'isolate_host', readOnly: true },
      { name: 'broken_lookup', readOnly: true, fails: true },
      { name: 'wipe_host', readOnly: true },
    ]);
    svc = await startInProcessService(
      { server },
      {
        runbooks: {
          'lookup.yml': callRunbook('mcp-lookup', 'lookup_host'),
          'isolate.yml': callRunbook('mcp-isolate', 'isolate_host'),
          'broken.yml': callRunbook('mcp-broken', 'broken_lookup'),
          'wipe.yml': callRunbook('mcp-wipe', 'wipe_host'),
        },
      },
    );
    // The server calls every tool read-only; the connection, not the server, says which are.
    const created = await callAs(svc, root, 'POST', '/connections', {
      kind: 'mcp',
      name: 'edr-mcp',
      base_url: mcp.url,
      secret: MCP_TOKEN,
      config: { allowed_tools: ['lookup_host', 'isolate_host', 'broken_lookup'], read_only_tools: ['lookup_host', 'broken_lookup'] },
    });
    expect(created.status, created.text).toBe(201);
    caseId = (await callAs(svc, ana, 'POST', '/cases', { title: 'Host beaconing', severity: 'high', team: 'blue' })).body.id;
  }, 90_000);
  afterAll(async () => {
    // The service first: its shutdown must not wait on a stream the MCP server still holds open.
    await svc?.close();
    await mcp?.close();
  });

  it('calls a read-only tool unattended, with its arguments and the delivery’s idempotency key', async () => {
    const run = await runOnCase(svc, ana, caseId, 'mcp-lookup');
    expect(run.status, JSON.stringify(run.action_log)).toBe('succeeded');
    const call = mcp.seen.find((c) => c.name === 'lookup_host');
    expect(call?.args).toEqual({ ip: '203.0.113.9', case: 'SVC-1' });
    expect(call?.meta?.idempotency_key).toMatch(/^svc-[A-Za-z0-9_-]{32}$/);
    expect(step(run)?.output).toEqual({
      content: [{ type: 'text', text: 'done' }],
      structured_content: { echo: { ip: '203.0.113.9', case: 'SVC-1' } },
    });
  });

  it('waits at a gate for a tool outside read_only_tools, autonomous or not, and calls it once approved', async () => {
    const queued = await callAs(svc, ana, 'POST', `/cases/${caseId}/runbooks/mcp-isolate/run`, {});
    expect(queued.status, queued.text).toBe(202);
    const waiting = await runWhen(svc, ana, queued.body.run_id ?? queued.body.id, /^waiting_approval$/);
    expect(waiting.gates).toMatchObject([{ step_id: 'call', status: 'pending', message: expect.stringContaining('read_only_tools') }]);
    expect(mcp.seen.some((c) => c.name === 'isolate_host')).toBe(false);
    const approved = await callAs(svc, root, 'POST', `/runs/${waiting.id}/approve`, { step_id: 'call', note: 'isolate it' });
    expect(approved.status, approved.text).toBe(200);
    const done = await runWhen(svc, ana, waiting.id, /^(succeeded|failed)$/);
    expect(done.status, JSON.stringify(done.action_log)).toBe('succeeded');
    expect(mcp.seen.filter((c) => c.name === 'isolate_host')).toHaveLength(1);
  });

  it('never sends a tool outside allowed_tools, whatever the server advertises', async () => {
    const run = await runOnCase(svc, ana, caseId, 'mcp-wipe');
    expect(run.status).toBe('failed');
    expect(step(run)?.error).toMatch(/^mcp_tool_not_allowed: /);
    expect(mcp.seen.some((c) => c.name === 'wipe_host')).toBe(false);
  });

  it('fails the step on a tool’s error answer, with the tool’s text', async () => {
    const run = await runOnCase(svc, ana, caseId, 'mcp-broken');
    expect(run.status).toBe('failed');
    expect(step(run)?.error).toMatch(/^mcp_tool_error: .*tool broke/);
  });
});
