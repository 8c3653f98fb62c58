/**
 * A second, independent MCP client against the real `svc serve` process (SPEC.md "Peer
 * endpoints", `/peer/v1/mcp`): the MCP Inspector's command-line client
 * (`@modelcontextprotocol/inspector-cli`, the `--cli` mode of the inspector) lists the
 * tools and calls a read tool over Streamable HTTP with an actor envelope as its bearer
 * header. Each CLI run is bounded by a timeout; loopback only.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../support/engines.ts';
import { createTestIdentity, e2eEngines, engineEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.ts';

const run = promisify(execFile);
const cli = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli');

describe.each(e2eEngines)('the MCP Inspector CLI against svc on $name', ({ server }) => {
  let svc: ServiceProcess;
  let token = '';
  let caseId = '';

  /** Runs the inspector CLI on the tool server with `args`; its JSON answer. */
  const inspector = async (...args: string[]) => {
    // The CLI finds its own package.json relative to the working directory: run it from its build folder.
    const { stdout } = await run(
      process.execPath,
      [cli, '--cli', `${svc.url}/peer/v1/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args],
      { cwd: dirname(cli), timeout: 60_000 },
    );
    return JSON.parse(stdout);
  };

  beforeAll(async () => {
    const identity = await createTestIdentity();
    svc = await startServiceProcess(engineEnv(identity, server ? await createServerDatabase() : null));
    token = await identity.mint([{ team: null, role: 'admin' }]);
    const created = await fetch(`${svc.url}/cases`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Seen by the inspector', severity: 'high' }),
    });
    expect(created.status).toBe(201);
    caseId = ((await created.json()) as { id: string }).id;
  }, 90_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('lists the tools with their input schemas', async () => {
    const { tools } = await inspector('--method', 'tools/list');
    const names = tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['svc_list_cases', 'svc_get_case', 'svc_approve_run']));
    expect(tools.find((t: { name: string }) => t.name === 'svc_get_case').inputSchema).toMatchObject({
      type: 'object',
      properties: { id: { type: 'string', format: 'uuid' } },
      required: ['id'],
    });
  }, 90_000);

  it('calls a read tool', async () => {
    const result = await inspector('--method', 'tools/call', '--tool-name', 'svc_get_case', '--tool-arg', `id=${caseId}`);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ id: caseId, title: 'Seen by the inspector' });
    const listed = await inspector('--method', 'tools/call', '--tool-name', 'svc_list_cases', '--tool-arg', 'limit=5');
    expect(listed.structuredContent.items.map((c: { id: string }) => c.id)).toContain(caseId);
  }, 90_000);
});
