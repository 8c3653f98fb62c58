/**
 * The MCP tool server `POST, GET /peer/v1/mcp` (SPEC.md "Peer endpoints") on the real
 * service listening on 127.0.0.1, on every engine, driven by the official SDK client over
 * Streamable HTTP (initialize, tools/list, tools/call) with actor envelopes of several roles
 * and teams: input schemas are the routes' own; each call is checked by the REST route it
 * runs (role, permission, token scope, team, private-case visibility); effectful calls are
 * idempotent per `idempotency_key`; anything but an exchange-issued, audience-bound actor
 * envelope is refused before MCP; every call writes exactly one `mcp.tool_called` entry;
 * and the in-process principal handover cannot be reached from outside.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toJsonSchema } from '@valibot/to-json-schema';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, inProcessEnv } from '../../adapters/http/auth.ts';
import type { AppEnv } from '../../adapters/http/context.ts';
import { commentBody, idParam } from '../../adapters/shared/shapes.ts';
import type { Principal } from '../../adapters/identity/principal.ts';
import { unauthenticated } from '../../adapters/identity/verifier.ts';
import { argumentsDigest, createIdempotencyStore } from '../../adapters/http/mcp-server/idempotency.ts';
import { idempotencyKeySchema } from '../../adapters/http/mcp-server/input-schema.ts';
import { toolRoutes } from '../../adapters/http/mcp-server/tools.ts';
import { manualClock } from '../support/clock.ts';
import { engines } from '../support/engines.ts';
import { eventsOfType } from '../support/events.ts';
import { assertionAs, callAs, expectDeclared, startInProcessService, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { gatedStepRunbookYaml } from '../support/runbook-definitions.ts';
import { e2eEngines } from '../support/service-process.ts';

const WORKLOAD = 'agent-workload';
const ALL_SCOPES = ['cases', 'alerts', 'runbooks', 'runs'].flatMap((a) => [`svc:${a}:read`, `svc:${a}:write`]).join(' ');
const actor = (email: string, grants: TestPerson['grants']): TestPerson => ({ sub: randomUUID(), email, grants });

const admin = actor('mcp-admin@example.com', [{ team: null, role: 'admin' }]);
const viewer = actor('mcp-viewer@example.com', [{ team: 'blue', role: 'viewer' }]);
const blueAnalyst = actor('mcp-ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const otherBlueAnalyst = actor('mcp-bob@example.com', [{ team: 'blue', role: 'analyst' }]);
const redAnalyst = actor('mcp-red@example.com', [{ team: 'red', role: 'analyst' }]);
/** Sees every team's open cases (realm viewer) but manages only blue ones. */
const realmViewerBlueAnalyst = actor('mcp-wide@example.com', [
  { team: null, role: 'viewer' },
  { team: 'blue', role: 'analyst' },
]);
const blueApprover = actor('mcp-apu@example.com', [{ team: 'blue', role: 'approver' }]);

const GATED = 'mcp-gated';
const runbooks = { 'gated.yml': gatedStepRunbookYaml(GATED, 'case.update', '{ tags_add: [approved-through-mcp] }') };

type AuditRow = { action: string; actor: Record<string, unknown>; detail: Record<string, unknown> };
type Result = CallToolResult & { structuredContent?: any; _meta?: { 'svc/status'?: number; 'svc/replayed'?: boolean } };

describe.each(e2eEngines)('MCP tool server on $name', ({ server }) => {
  let svc: InProcessService;
  let blueCase = '';
  let redCase = '';
  let privateCase = '';
  const clients: Client[] = [];

  const envelope = (who: TestPerson, scope = ALL_SCOPES, claims: Record<string, unknown> = {}) =>
    svc.identity.sign({ token_use: 'exchange', sub: WORKLOAD, scope, act: { sub: who.sub, email: who.email, grants: who.grants }, ...claims });

  const connect = async (who: TestPerson, scope = ALL_SCOPES): Promise<Client> => {
    const token = await envelope(who, scope);
    const client = new Client({ name: 'svc-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/peer/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;
  const status = (r: Result) => r._meta?.['svc/status'];

  const db = () => svc.service.opened.db;
  const auditRows = async () =>
    (
      await db().selectFrom('audit_log').select(['row', 'target_type', 'target_id']).where('action', '=', 'mcp.tool_called').orderBy('chain_index').execute()
    ).map((r) => ({ ...(r.row as AuditRow), target_type: r.target_type, target_id: r.target_id }));
  /** The bodies of the comments recorded on `caseId`, oldest first. */
  const comments = async (caseId: string) =>
    (await eventsOfType(db(), 'case.comment_added'))
      .filter((e) => (e.data as { case_id: string }).case_id === caseId)
      .map((e) => (e.data as { body: string }).body);

  /** A raw POST of `body` with `token`, its answer checked against /openapi.json. */
  const rawPost = async (token: string | null, body: string, accept = 'application/json, text/event-stream') => {
    const res = await svc.request('/peer/v1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body,
    });
    const text = await res.text();
    await expectDeclared(svc, 'POST', '/peer/v1/mcp', res, text);
    return { status: res.status, body: JSON.parse(text) };
  };
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const rawInitialize = (token: string | null) => rawPost(token, initialize);

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks, listen: true });
    const open = async (who: TestPerson, body: Record<string, unknown>) => {
      const r = await callAs(svc, who, 'POST', '/cases', { severity: 'high', ...body });
      expect(r.status, r.text).toBe(201);
      return r.body.id as string;
    };
    blueCase = await open(admin, { title: 'Blue case', team: 'blue' });
    redCase = await open(admin, { title: 'Red case', team: 'red' });
    // Opened by the blue analyst: a member of this private case; other blue analysts are not.
    privateCase = await open(blueAnalyst, { title: 'Private blue case', team: 'blue', private: true });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await svc?.close();
  });

  it('initialize and tools/list: every tool, with the input schema its route validates with, and neither is audited', async () => {
    const before = (await auditRows()).length;
    const client = await connect(blueAnalyst);
    expect(client.getServerVersion()?.name).toBe('svc');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(toolRoutes.map((t) => t.name));
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['svc_get_case', 'svc_list_cases', 'svc_approve_run', 'svc_comment_case', 'svc_run_runbook']),
    );

    const doc: any = await (await svc.request('/openapi.json')).json();
    for (const route of toolRoutes) {
      const tool = tools.find((t) => t.name === route.name);
      const op = doc.paths[route.path.replace(/:([a-z_]+)/g, '{$1}')][route.method.toLowerCase()];
      const expected: Record<string, unknown> = {};
      for (const p of op.parameters ?? []) expected[p.name] = p.schema;
      Object.assign(expected, op.requestBody?.content['application/json'].schema.properties ?? {});
      const effectful = route.method !== 'GET';
      if (effectful) expected.idempotency_key = { type: 'string', minLength: 1, maxLength: 200 };
      expect(tool?.inputSchema.properties, route.name).toEqual(expected);
      expect(tool?.inputSchema.additionalProperties, route.name).toBe(false);
      expect(tool?.inputSchema.required ?? [], route.name).toEqual(expect.arrayContaining(effectful ? ['idempotency_key'] : []));
      expect(tool?.annotations?.readOnlyHint, route.name).toBe(!effectful);
    }
    // Straight from the valibot schemas the routes validate with.
    const json = (schema: Parameters<typeof toJsonSchema>[0]) => toJsonSchema(schema, { errorMode: 'ignore' }) as { properties: Record<string, unknown> };
    const comment = tools.find((t) => t.name === 'svc_comment_case')?.inputSchema;
    expect(comment?.properties).toEqual({
      id: json(idParam).properties.id,
      ...json(commentBody(20_000)).properties,
      idempotency_key: (({ $schema: _, ...s }) => s)(json(idempotencyKeySchema) as Record<string, unknown>),
    });
    expect(comment?.required).toEqual(['id', 'idempotency_key']);
    expect((await auditRows()).length).toBe(before);
  });

  it('reads through the case routes: a private case answers a non-member exactly as an absent one, and its member sees it', async () => {
    const member = await connect(blueAnalyst);
    const outsider = await connect(otherBlueAnalyst);

    const seen = await call(member, 'svc_get_case', { id: privateCase });
    expect(seen.isError, JSON.stringify(seen)).toBeFalsy();
    expect(seen.structuredContent).toMatchObject({ id: privateCase, private: true, team: 'blue' });
    expect(JSON.parse((seen.content[0] as { text: string }).text)).toEqual(seen.structuredContent);
    expect((await call(member, 'svc_list_cases', { limit: 200 })).structuredContent.items.map((c: { id: string }) => c.id)).toContain(privateCase);

    const hidden = await call(outsider, 'svc_get_case', { id: privateCase });
    const absentId = randomUUID();
    const absent = await call(outsider, 'svc_get_case', { id: absentId });
    expect(hidden.isError).toBe(true);
    expect(status(hidden)).toBe(404);
    expect(hidden.structuredContent).toEqual({ ...absent.structuredContent, params: { case_id: privateCase } });
    expect(absent.structuredContent).toEqual({ detail: 'case not found', code: 'case_not_found', params: { case_id: absentId } });
    const listed = (await call(outsider, 'svc_list_cases', { limit: '200' })).structuredContent.items.map((c: { id: string }) => c.id);
    expect(listed).toContain(blueCase);
    expect(listed).not.toContain(privateCase);
    expect(listed).not.toContain(redCase);

    // A query value out of its schema is the route's own 422, passed through.
    const bad = await call(member, 'svc_list_cases', { limit: 0 });
    expect(status(bad)).toBe(422);
    expect(bad.structuredContent.detail[0].loc).toEqual(['query', 'limit']);
    for (const id of [undefined, '', '..']) {
      const refused = await call(member, 'svc_get_case', id === undefined ? {} : { id });
      expect(refused.structuredContent).toMatchObject({ code: 'invalid_arguments', params: { argument: 'id' } });
    }
    const notAnId = await call(member, 'svc_get_case', { id: '../runs' });
    expect(notAnId.structuredContent.detail[0].loc).toEqual(['path', 'id']);
  });

  it("refuses a viewer's envelope on an effectful tool, and nothing changes", async () => {
    const client = await connect(viewer);
    const before = await comments(blueCase);
    expect((await call(client, 'svc_get_case', { id: blueCase })).isError).toBeFalsy();
    const refused = await call(client, 'svc_comment_case', { id: blueCase, text: 'viewer was here', idempotency_key: 'viewer-1' });
    expect(refused.isError).toBe(true);
    expect(status(refused)).toBe(403);
    expect(refused.structuredContent).toMatchObject({ code: 'forbidden', params: { permission: 'manage_cases' } });
    const acked = await call(client, 'svc_acknowledge_case', { id: blueCase, idempotency_key: 'viewer-2' });
    expect(status(acked)).toBe(403);
    expect(await comments(blueCase)).toEqual(before);
    expect((await callAs(svc, admin, 'GET', `/cases/${blueCase}`)).body.acknowledged_at).toBeNull();
  });

  it("keeps a team's analyst off another team's case: invisible, or visible but not theirs to change", async () => {
    const blue = await connect(blueAnalyst);
    const hidden = await call(blue, 'svc_comment_case', { id: redCase, text: 'not my team', idempotency_key: 'team-1' });
    expect(hidden.structuredContent).toMatchObject({ code: 'case_not_found' });
    const wide = await connect(realmViewerBlueAnalyst);
    expect((await call(wide, 'svc_get_case', { id: redCase })).isError).toBeFalsy();
    const refused = await call(wide, 'svc_set_case_status', { id: redCase, status: 'in_progress', idempotency_key: 'team-2' });
    expect(status(refused)).toBe(403);
    expect(refused.structuredContent).toMatchObject({ code: 'forbidden', params: { permission: 'manage_cases', team: 'red' } });
    expect(await comments(redCase)).toEqual([]);
    expect((await callAs(svc, admin, 'GET', `/cases/${redCase}`)).body.status).toBe('new');

    const red = await connect(redAnalyst);
    const done = await call(red, 'svc_set_case_status', { id: redCase, status: 'in_progress', note: 'on it', idempotency_key: 'team-3' });
    expect(done.isError, JSON.stringify(done)).toBeFalsy();
    expect(done.structuredContent.status).toBe('in_progress');
  });

  it("holds the token's scope to the route's: a read-only envelope cannot write", async () => {
    const client = await connect(blueAnalyst, 'svc:cases:read');
    const before = await comments(blueCase);
    expect((await call(client, 'svc_get_case', { id: blueCase })).isError).toBeFalsy();
    const refused = await call(client, 'svc_comment_case', { id: blueCase, text: 'out of scope', idempotency_key: 'scope-1' });
    expect(refused.structuredContent).toMatchObject({ code: 'forbidden', params: { scope: 'svc:cases:write' } });
    expect((await call(client, 'svc_list_runs', {})).structuredContent).toMatchObject({ code: 'forbidden', params: { scope: 'svc:runs:read' } });
    expect(await comments(blueCase)).toEqual(before);
  });

  it('decides a real waiting gate with svc_approve_run, only for a person who may approve it', async () => {
    const analyst = await connect(blueAnalyst);
    const queued = await call(analyst, 'svc_run_runbook', { id: blueCase, slug: GATED, idempotency_key: 'run-1' });
    expect(status(queued), JSON.stringify(queued)).toBe(202);
    const runId = queued.structuredContent.id as string;
    const approver = await connect(blueApprover);
    const runStatus = async () => (await call(approver, 'svc_get_run', { id: runId })).structuredContent.status;
    await expect.poll(runStatus, { timeout: 20_000, interval: 50 }).toBe('waiting_approval');
    const pending = (await call(approver, 'svc_list_approvals', {})).structuredContent.items;
    expect(pending).toContainEqual(expect.objectContaining({ run_id: runId, step_id: 'gated' }));

    const notAllowed = await call(analyst, 'svc_approve_run', { id: runId, step_id: 'gated', idempotency_key: 'approve-1' });
    expect(notAllowed.structuredContent).toMatchObject({ code: 'forbidden', params: { permission: 'approve_runbooks' } });
    const outsider = await call(await connect(redAnalyst), 'svc_get_run', { id: runId });
    expect(outsider.structuredContent).toMatchObject({ code: 'run_not_found' });

    const approved = await call(approver, 'svc_approve_run', { id: runId, step_id: 'gated', note: 'go', idempotency_key: 'approve-1' });
    expect(approved.isError, JSON.stringify(approved)).toBeFalsy();
    expect(approved.structuredContent.gates).toContainEqual(expect.objectContaining({ step_id: 'gated', status: 'approved' }));
    const again = await call(approver, 'svc_approve_run', { id: runId, step_id: 'gated', note: 'go', idempotency_key: 'approve-1' });
    expect(again._meta?.['svc/replayed']).toBe(true);
    expect(again.structuredContent).toEqual(approved.structuredContent);
    await expect.poll(runStatus, { timeout: 20_000, interval: 50 }).toBe('succeeded');
    const decided = (await eventsOfType(db(), 'gate.decided')).filter((e) => (e.data as { run_id: string }).run_id === runId);
    expect(decided).toHaveLength(1);
    expect(decided[0]?.data).toMatchObject({ decision: 'approved', by: blueApprover.email });
    expect((await callAs(svc, admin, 'GET', `/cases/${blueCase}`)).body.tags).toContain('approved-through-mcp');
    const log = await call(approver, 'svc_get_run_log', { id: runId });
    expect(log.structuredContent.items.length).toBeGreaterThan(0);
  });

  it('makes an effectful call once per idempotency_key: repeats replay, other arguments and a missing key are refused', async () => {
    const client = await connect(otherBlueAnalyst);
    const before = await comments(blueCase);
    const added = async () => (await comments(blueCase)).slice(before.length);
    const first = await call(client, 'svc_comment_case', { id: blueCase, text: 'once only', idempotency_key: 'comment-1' });
    expect(status(first), JSON.stringify(first)).toBe(201);
    expect(first._meta?.['svc/replayed']).toBeUndefined();
    const repeat = await call(client, 'svc_comment_case', { idempotency_key: 'comment-1', text: 'once only', id: blueCase });
    expect(repeat._meta).toEqual({ 'svc/status': 201, 'svc/replayed': true });
    expect(repeat.content).toEqual(first.content);
    expect(await added()).toEqual(['once only']);

    const reused = await call(client, 'svc_comment_case', { id: blueCase, text: 'something else', idempotency_key: 'comment-1' });
    expect(reused.isError).toBe(true);
    expect(reused.structuredContent).toMatchObject({ code: 'idempotency_key_reused' });
    const keyless = await call(client, 'svc_comment_case', { id: blueCase, text: 'no key' });
    expect(keyless.structuredContent).toMatchObject({ code: 'idempotency_key_required' });
    expect(status(keyless)).toBe(422);
    const tooLong = await call(client, 'svc_comment_case', { id: blueCase, text: 'long key', idempotency_key: 'k'.repeat(201) });
    expect(tooLong.structuredContent).toMatchObject({ code: 'idempotency_key_invalid' });
    const unknown = await call(client, 'svc_comment_case', { id: blueCase, text: 'extra', extra: 1, idempotency_key: 'comment-2' });
    expect(unknown.structuredContent).toMatchObject({ code: 'invalid_arguments', params: { unknown: ['extra'] } });
    expect(await added()).toEqual(['once only']);

    // Concurrent repeats of one new key: exactly one runs the route.
    const racing = await Promise.all(
      Array.from({ length: 5 }, () => call(client, 'svc_comment_case', { id: blueCase, text: 'raced', idempotency_key: 'comment-race' })),
    );
    expect(racing.filter((r) => status(r) === 201 && r._meta?.['svc/replayed'] === undefined)).toHaveLength(1);
    for (const r of racing) expect(r.structuredContent.code === 'idempotency_key_in_progress' || status(r) === 201, JSON.stringify(r)).toBe(true);
    expect(await added()).toEqual(['once only', 'raced']);

    // The key belongs to its actor: another person's call with the same key acts.
    const mine = await call(await connect(blueAnalyst), 'svc_comment_case', { id: blueCase, text: 'once only', idempotency_key: 'comment-1' });
    expect(mine._meta).toEqual({ 'svc/status': 201 });
    expect(await added()).toEqual(['once only', 'raced', 'once only']);
    const stored = await db().selectFrom('mcp_idempotency').selectAll().where('idempotency_key', '=', 'comment-1').execute();
    expect(stored.map((r) => r.actor_subject).sort()).toEqual([blueAnalyst.sub, otherBlueAnalyst.sub].sort());
  });

  it('refuses every envelope but an exchange-issued, audience-bound actor one before MCP, and audits none of them', async () => {
    const before = (await auditRows()).length;
    const refusals = [
      [null, 401, 'unauthenticated'],
      [await assertionAs(svc, admin, 'POST', '/peer/v1/mcp'), 403, 'mcp_envelope_required'],
      [await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:status:read' }), 403, 'mcp_envelope_required'],
      [await svc.identity.sign({ token_use: 'exchange', sub: WORKLOAD, scope: ALL_SCOPES }), 403, 'mcp_actor_required'],
      [await envelope(admin, ALL_SCOPES, { aud: 'another-service' }), 401, 'unauthenticated'],
    ] as const;
    for (const [token, code, name] of refusals) {
      const answer = await rawInitialize(token);
      expect(answer.status, name).toBe(code);
      expect(answer.body).toMatchObject({ code: name, params: expect.any(Object), detail: expect.any(String) });
      expect(answer.body.jsonrpc).toBeUndefined();
    }
    const accepted = await rawInitialize(await envelope(admin));
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'svc' } } });
    // Past the envelope, transport errors are the protocol's own JSON-RPC errors.
    expect(await rawPost(await envelope(admin), '{"jsonrpc":')).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
    expect(await rawPost(await envelope(admin), initialize, 'application/json')).toMatchObject({ status: 406, body: { error: { code: -32000 } } });
    // A hostile body meets the JSON guard every route has, whoever sends it.
    expect((await rawPost(await envelope(admin), '{"\\u0000":1}')).status).toBe(422);

    const client = new Client({ name: 'svc-test', version: '1' });
    const noActor = await svc.identity.sign({ token_use: 'exchange', sub: WORKLOAD, scope: ALL_SCOPES });
    const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/peer/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${noActor}` } },
    });
    await expect(client.connect(transport)).rejects.toMatchObject({ code: 403, message: expect.stringMatching(/mcp_actor_required/) });
    expect((await auditRows()).length).toBe(before);
  });

  it('answers GET with 405 (Allow: POST), once the envelope passed', async () => {
    const get = async (token: string | null) => {
      const res = await svc.request('/peer/v1/mcp', {
        headers: { accept: 'text/event-stream', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      });
      const text = await res.text();
      await expectDeclared(svc, 'GET', '/peer/v1/mcp', res, text);
      return { status: res.status, allow: res.headers.get('allow'), body: JSON.parse(text) };
    };
    expect(await get(await envelope(viewer))).toMatchObject({ status: 405, allow: 'POST', body: { jsonrpc: '2.0', error: { code: -32000 } } });
    expect((await get(null)).status).toBe(401);
    expect((await get(await assertionAs(svc, admin, 'GET', '/peer/v1/mcp'))).status).toBe(403);
  });

  it('writes exactly one mcp.tool_called entry per call, whatever its outcome, naming the actor, never argument text', async () => {
    const client = await connect(blueAnalyst);
    const before = await auditRows();
    const absent = randomUUID();
    await call(client, 'svc_get_case', { id: blueCase });
    await call(client, 'svc_get_case', { id: absent });
    await call(client, 'svc_comment_case', { id: blueCase, text: 'secret-ish words', idempotency_key: 'audit-1' });
    await call(client, 'svc_comment_case', { id: blueCase, text: 'secret-ish words', idempotency_key: 'audit-1' });
    await call(client, 'svc_comment_case', { id: blueCase, text: 'keyless words' });
    await expect(client.callTool({ name: 'svc_no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool/);
    const rows = (await auditRows()).slice(before.length);
    expect(rows).toHaveLength(6);
    expect(rows.map((r) => r.detail)).toEqual([
      { tool: 'svc_get_case', outcome: 'ok', status: 200, workload: WORKLOAD },
      { tool: 'svc_get_case', outcome: 'refused', status: 404, code: 'case_not_found', workload: WORKLOAD },
      { tool: 'svc_comment_case', outcome: 'ok', status: 201, idempotency_key: 'audit-1', workload: WORKLOAD },
      { tool: 'svc_comment_case', outcome: 'ok', status: 201, idempotency_key: 'audit-1', replayed: true, workload: WORKLOAD },
      { tool: 'svc_comment_case', outcome: 'refused', status: 422, code: 'idempotency_key_required', workload: WORKLOAD },
      { tool: 'svc_no_such_tool', outcome: 'refused', status: 404, code: 'tool_not_found', workload: WORKLOAD },
    ]);
    for (const row of rows) {
      expect(row.action).toBe('mcp.tool_called');
      expect(row.actor).toMatchObject({ email: blueAnalyst.email, subject: blueAnalyst.sub, kind: 'user', via: WORKLOAD });
      expect(JSON.stringify(row)).not.toMatch(/words/);
    }
    expect(rows.slice(0, 5).map((r) => [r.target_type, r.target_id])).toEqual([
      ['case', blueCase],
      ['case', absent],
      ['case', blueCase],
      ['case', blueCase],
      ['case', blueCase],
    ]);
    expect(rows[5]?.target_type).toBeNull();
    expect((await callAs(svc, admin, 'GET', '/audit/verify')).body.valid).toBe(true);
  });
});

describe.each(engines)('the MCP idempotency store on $name', (engine) => {
  it('lets one call own a key, replays its answer, refuses other arguments and a pending key, and forgets keys past the window', async () => {
    const opened = await engine.open();
    try {
      const clock = manualClock();
      const store = createIdempotencyStore(opened.db, { now: clock.now, keepMs: 3_600_000, sweepIntervalMs: 0 });
      const call = { subject: 'actor', tool: 'svc_comment_case', key: 'k', digest: argumentsDigest({ id: 'a', text: 'x' }) };
      expect(argumentsDigest({ text: 'x', id: 'a' })).toBe(call.digest);
      expect(await store.begin(call)).toEqual({ kind: 'owner' });
      expect(await store.begin(call)).toEqual({ kind: 'in_progress' });
      expect(await store.begin({ ...call, digest: argumentsDigest({ id: 'a', text: 'y' }) })).toEqual({ kind: 'reused' });
      await store.finish(call, { status: 201, text: '{"id":"c"}' });
      expect(await store.begin(call)).toEqual({ kind: 'replay', answer: { status: 201, text: '{"id":"c"}' } });
      expect(await store.begin({ ...call, subject: 'someone else' })).toEqual({ kind: 'owner' });
      expect(await store.begin({ ...call, tool: 'svc_update_case' })).toEqual({ kind: 'owner' });

      clock.advance(3_600_000);
      expect(await store.begin(call)).toEqual({ kind: 'replay', answer: { status: 201, text: '{"id":"c"}' } });
      clock.advance(1);
      expect(await store.begin({ ...call, digest: argumentsDigest({ id: 'a', text: 'y' }) })).toEqual({ kind: 'owner' });
    } finally {
      await opened.close();
    }
  });
});

describe('the in-process principal handover', () => {
  it('is reachable only by code in this process: over HTTP a route still needs a verified token', async () => {
    const person: Principal = {
      tokenUse: 'exchange',
      subject: 'in-process-subject',
      userId: randomUUID(),
      email: 'p@example.com',
      name: null,
      grants: [{ team: null, role: 'admin' }],
      scopes: [],
      workload: WORKLOAD,
    };
    const envs: unknown[] = [];
    const app = new Hono<AppEnv>();
    app.use('*', async (c, next) => {
      envs.push(c.env);
      await next();
    });
    app.use(
      '*',
      authenticate({
        verifier: {
          verify: async () => {
            throw unauthenticated('no token is valid here');
          },
        },
        users: { resolve: async (p) => p },
        basePath: '',
      }),
    );
    app.onError((error, c) => c.json({ code: (error as { code?: string }).code }, 401));
    app.get('/whoami', (c) => c.json({ subject: c.get('principal').subject }));

    const inside = await app.fetch(new Request('http://in-process/whoami'), inProcessEnv(person));
    expect(await inside.json()).toEqual({ subject: 'in-process-subject' });

    const listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const { port } = listening.address() as AddressInfo;
      const outside = await fetch(`http://127.0.0.1:${port}/whoami`, {
        headers: { 'x-svc-principal': JSON.stringify(person), 'svc.in-process-principal': 'in-process-subject' },
      });
      expect(outside.status).toBe(401);
      expect(await outside.json()).toEqual({ code: 'unauthenticated' });
      const served = envs.at(-1) as object;
      expect(Object.keys(served).sort()).toEqual(['incoming', 'outgoing']);
      expect(Object.getOwnPropertySymbols(served)).toEqual([]);
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });
});
