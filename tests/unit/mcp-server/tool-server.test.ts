/**
 * The MCP tool server's own rules on plain data, with the official SDK client over its
 * in-memory transport and an app that answers what the test says: a route's 5xx and a
 * dispatch that throws are tool results with `isError` and still exactly one audit entry
 * of outcome `error`; a catalogue whose route is missing from the OpenAPI document, or whose
 * parts share a name, fails to build.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { AuditInput } from '../../../adapters/commands/audit.ts';
import type { Principal } from '../../../adapters/identity/principal.ts';
import type { IdempotencyStore } from '../../../adapters/http/mcp-server/idempotency.ts';
import { toolInput } from '../../../adapters/http/mcp-server/input-schema.ts';
import { buildCatalogue, createToolServer } from '../../../adapters/http/mcp-server/server.ts';
import { toolRoutes } from '../../../adapters/http/mcp-server/tools.ts';

const principal: Principal = {
  tokenUse: 'exchange',
  subject: 'actor-subject',
  userId: 'user-1',
  email: 'actor@example.com',
  name: null,
  grants: [{ team: null, role: 'admin' }],
  scopes: [],
  workload: 'agent',
};

/** An OpenAPI document with every tool's operation: a UUID `id` or a `slug` per path parameter, no query, an empty body for non-GETs. */
function document() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const t of toolRoutes) {
    const path = t.path.replace(/:([a-z_]+)/g, '{$1}');
    paths[path] = { ...paths[path] };
    paths[path][t.method.toLowerCase()] = {
      parameters: [...t.path.matchAll(/:([a-z_]+)/g)].map((m) => ({ in: 'path', name: m[1], required: true, schema: { type: 'string' } })),
      ...(t.method === 'GET'
        ? {}
        : { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { note: { type: 'string' } } } } } } }),
    };
  }
  return { info: { version: '9.9.9' }, paths };
}

/** A store that owns every key: these tests are about outcomes, not repeats. */
const freshKeys: IdempotencyStore = { begin: async () => ({ kind: 'owner' }), finish: async () => undefined, release: async () => undefined };

async function connected(fetch: (request: Request) => Promise<Response>) {
  const audited: AuditInput[] = [];
  const logged: unknown[] = [];
  const deps = {
    app: { fetch, basePath: '' },
    openApi: async () => document(),
    idempotency: freshKeys,
    audit: {
      write: () => {
        throw new Error('not used');
      },
      record: async (input: AuditInput) => {
        audited.push(input);
        return 1;
      },
    },
    waitFor: async () => undefined,
    logError: (error: unknown) => void logged.push(error),
  };
  const server = createToolServer(deps, await buildCatalogue(deps.openApi), principal, 'http://svc.test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  return { client, audited, logged };
}

describe('the MCP tool server', () => {
  it("answers a route's 5xx as an error result, audited once with outcome error", async () => {
    const seen: string[] = [];
    const { client, audited } = await connected(async (request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      return Response.json({ detail: 'internal error', code: 'internal_error', params: {} }, { status: 500 });
    });
    const result = await client.callTool({ name: 'svc_cancel_run', arguments: { id: 'run-1', idempotency_key: 'k' } });
    expect(seen).toEqual(['POST /runs/run-1/cancel']);
    expect(result).toMatchObject({ isError: true, _meta: { 'svc/status': 500 }, structuredContent: { code: 'internal_error' } });
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      action: 'mcp.tool_called',
      target: { type: 'run', id: 'run-1' },
      detail: { tool: 'svc_cancel_run', outcome: 'error', status: 500, code: 'internal_error', idempotency_key: 'k', workload: 'agent' },
      actor: { id: 'user-1', email: 'actor@example.com', subject: 'actor-subject', kind: 'user', via: 'agent' },
    });
  });

  it('answers a dispatch that throws as internal_error, logged and audited once', async () => {
    const { client, audited, logged } = await connected(async () => {
      throw new Error('the app fell over');
    });
    const result = await client.callTool({ name: 'svc_get_run', arguments: { id: 'run-2' } });
    expect(result).toMatchObject({ isError: true, _meta: { 'svc/status': 500 }, structuredContent: { code: 'internal_error' } });
    expect(JSON.stringify(result)).not.toContain('fell over');
    expect(logged).toHaveLength(1);
    expect(audited.map((a) => a.detail)).toEqual([{ tool: 'svc_get_run', outcome: 'error', status: 500, code: 'internal_error', workload: 'agent' }]);
  });

  it('reports the version of the OpenAPI document and lists every tool', async () => {
    const { client } = await connected(async () => new Response(null, { status: 204 }));
    expect(client.getServerVersion()).toEqual({ name: 'svc', version: '9.9.9' });
    expect((await client.listTools()).tools).toHaveLength(toolRoutes.length);
    const empty = await client.callTool({ name: 'svc_acknowledge_case', arguments: { id: 'c', idempotency_key: 'k' } });
    expect(empty).toEqual({ content: [{ type: 'text', text: 'status 204, no body' }], _meta: { 'svc/status': 204 } });
  });
});

describe('tool inputs', () => {
  const tool = { name: 'svc_x', description: 'x', method: 'POST' as const, path: '/cases/:id/x' };
  const operation = (body: Record<string, unknown>) => ({
    paths: {
      '/cases/{id}/x': {
        post: {
          parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string' } }],
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: body } } } },
        },
      },
    },
  });

  it('refuses a route missing from the document, a part shared by two names, and a body that is not an object', () => {
    expect(() => toolInput(tool, { paths: {} })).toThrow(/is not an operation of \/openapi.json/);
    expect(() => toolInput(tool, operation({ id: { type: 'string' } }))).toThrow(/argument id is both path and body/);
    expect(() => toolInput(tool, operation({ idempotency_key: { type: 'string' } }))).toThrow(/argument idempotency_key is both body and key/);
    const arrayBody = { paths: { '/cases/{id}/x': { post: { requestBody: { content: { 'application/json': { schema: { type: 'array' } } } } } } } };
    expect(() => toolInput(tool, arrayBody)).toThrow(/the body is not a JSON object/);
  });
});
