/**
 * Custom actions as runnable actions without a service (adapters/actions/custom-action.ts;
 * docs/configuration.md "Custom actions"): rendering (path segments, query, headers,
 * typed body fields), SSH quoting, output extraction, redaction, retries within an
 * attempt, previews, and the registry holding them.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { deliveryIdOf, type ActionContext, type ResolvedConnection } from '../../../adapters/actions/action.ts';
import { customActionDefinition, redactRow } from '../../../adapters/actions/custom-action.ts';
import { webhookId } from '../../../adapters/actions/notify-webhook.ts';
import { builtinActions, createActionRegistry } from '../../../adapters/action-registry/registry.ts';
import { extractOutputs, readJsonPath, renderPath } from '../../../domain/custom-actions/render.ts';
import { customActionSpecSchema, type StoredCustomActionSpec } from '../../../domain/custom-actions/spec.ts';

const specOf = (over: Record<string, unknown> = {}): StoredCustomActionSpec => {
  const { enabled: _enabled, ...spec } = v.parse(customActionSpecSchema, {
    name: 'custom.intel.lookup',
    title: 'Lookup',
    transport: 'http',
    inputs: [
      { name: 'ip', type: 'string', required: true },
      { name: 'key', type: 'string', secret: true },
      { name: 'n', type: 'integer' },
      { name: 'flag', type: 'boolean' },
    ],
    http: {
      method: 'POST',
      path: '/hosts/{{ inputs.ip }}',
      headers: { 'X-Key': '{{ inputs.key }}' },
      query: { n: '{{ inputs.n }}', fixed: 'a b&c' },
      body: { ip: '{{ inputs.ip }}', n: '{{ inputs.n }}', flag: '{{inputs.flag}}', text: 'n is {{ inputs.n }}' },
    },
    outputs: [
      { name: 'org', path: '$.data.org', type: 'string' },
      { name: 'first', path: '$.items[1].id', type: 'integer' },
      { name: 'gone', path: '$.data.nothing', type: 'string' },
      { name: 'wrong', path: '$.data.org', type: 'boolean' },
    ],
    redact: ['$.input.ip', '$.output.org'],
    effect_type: 'enrich',
    risk: 'read',
    ...over,
  });
  return spec;
};

const http: ResolvedConnection = {
  id: 'c1',
  kind: 'http',
  name: 'intel',
  base_url: 'https://intel.example/api/',
  config: {},
  secret: 's3cret',
  previous_secret: null,
  bot_token: null,
};
const contextOf = (connection: ResolvedConnection | null = http): ActionContext => ({
  runId: 'r1',
  stepId: 's1',
  attempt: 1,
  deliveryId: deliveryIdOf('r1', 's1', 1, null),
  caseId: null,
  connection,
  signal: new AbortController().signal,
  cases: null,
  approval: null,
  resume: null,
  now: () => new Date(0),
});

type Sent = { url: string; init: RequestInit };
const fetchAnswering = (answers: (() => Response)[]) => {
  const sent: Sent[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    const next = answers[Math.min(sent.length - 1, answers.length - 1)];
    if (!next) throw new Error('no answer');
    return next();
  };
  return { sent, fetch };
};
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('custom HTTP action', () => {
  it('encodes each path value as one segment and refuses an empty one, finally', async () => {
    expect(renderPath('a', '/hosts/{{ inputs.ip }}/x', { ip: '../../admin?x=1#y' })).toBe('/hosts/..%2F..%2Fadmin%3Fx%3D1%23y/x');
    expect(() => renderPath('a', '/hosts/{{ inputs.ip }}', { ip: '' })).toThrow(expect.objectContaining({ type: 'path_segment_empty' }));
    expect(() => renderPath('a', '/hosts/{{ inputs.ip }}', {})).toThrow(/empty/);
    const { sent, fetch } = fetchAnswering([() => json({})]);
    const action = customActionDefinition(specOf(), { fetch });
    await expect(action.execute({ ip: '' }, contextOf())).rejects.toMatchObject({ name: 'ActionFailure', type: 'path_segment_empty', retryable: false });
    expect(sent).toHaveLength(0);
  });

  it('sends the rendered request with the connection auth, typed body fields, a derived Idempotency-Key, and extracts typed outputs', async () => {
    const { sent, fetch } = fetchAnswering([() => json({ data: { org: 'ACME' }, items: [{ id: 1 }, { id: 7 }], secret_raw: 'x' })]);
    const action = customActionDefinition(specOf(), { fetch });
    const input = v.parse(action.input, { ip: '1.2.3.4', key: 'k', n: 5, flag: false });
    const output = await action.execute(input, contextOf());
    expect(output).toEqual({ org: 'ACME', first: 7, gone: null, wrong: null });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe('https://intel.example/api/hosts/1.2.3.4?n=5&fixed=a+b%26c');
    const headers = sent[0]?.init.headers as Record<string, string>;
    expect(headers).toMatchObject({ 'x-key': 'k', Authorization: 'Bearer s3cret', 'content-type': 'application/json' });
    // Without idempotency_key: the delivery id, as notify.webhook's webhook-id.
    expect(headers['idempotency-key']).toBe(webhookId(deliveryIdOf('r1', 's1', 1, null)));
    expect(JSON.parse(String(sent[0]?.init.body))).toEqual({ ip: '1.2.3.4', n: 5, flag: false, text: 'n is 5' });
  });

  it('leaves out fields whose inputs are all absent or null, and renders idempotency_key when declared', async () => {
    const { sent, fetch } = fetchAnswering([() => json({})]);
    const action = customActionDefinition(specOf({ idempotency_key: 'lookup-{{ inputs.ip }}' }), { fetch });
    // null (a template that rendered to nothing) is absent too.
    await action.execute(v.parse(action.input, { ip: 'h', n: null }), contextOf());
    expect(sent[0]?.url).toBe('https://intel.example/api/hosts/h?fixed=a+b%26c');
    const headers = sent[0]?.init.headers as Record<string, string>;
    expect(headers['x-key']).toBeUndefined();
    expect(headers['idempotency-key']).toBe('lookup-h');
    expect(JSON.parse(String(sent[0]?.init.body))).toEqual({ ip: 'h' });
  });

  it('refuses a header value with CR or LF, and a header that would be the auth header', async () => {
    const { sent, fetch } = fetchAnswering([() => json({})]);
    const action = customActionDefinition(specOf(), { fetch });
    await expect(action.execute({ ip: 'h', key: 'a\r\nX-Evil: 1' }, contextOf())).rejects.toMatchObject({ type: 'header_invalid', retryable: false });
    const auth = customActionDefinition(specOf({ http: { method: 'GET', path: '/x', headers: { Authorization: '{{ inputs.key }}' } } }), { fetch });
    await expect(auth.execute({ ip: 'h', key: 'k' }, contextOf())).rejects.toMatchObject({ type: 'header_refused' });
    expect(sent).toHaveLength(0);
  });

  it('tries a retryable failure again up to max_attempts within one attempt, a final one never', async () => {
    const flaky = fetchAnswering([() => json({}, 503), () => json({}, 503), () => json({ data: { org: 'ok' } })]);
    const action = customActionDefinition(specOf({ max_attempts: 3 }), { fetch: flaky.fetch, sleep: async () => undefined });
    expect(await action.execute({ ip: 'h' }, contextOf())).toMatchObject({ org: 'ok' });
    expect(flaky.sent).toHaveLength(3);
    const final = fetchAnswering([() => json({}, 404)]);
    const once = customActionDefinition(specOf({ max_attempts: 3 }), { fetch: final.fetch, sleep: async () => undefined });
    await expect(once.execute({ ip: 'h' }, contextOf())).rejects.toMatchObject({ type: 'http_status', retryable: false });
    expect(final.sent).toHaveLength(1);
  });

  it('previews the request with auth and secret or redacted inputs masked, sending nothing', async () => {
    const { sent, fetch } = fetchAnswering([() => json({})]);
    const action = customActionDefinition(specOf({ default_connection: 'intel' }), { fetch });
    expect(action.defaultConnection).toBe('intel');
    const preview = await action.preview({ ip: '1.2.3.4', key: 'k', n: 2 }, contextOf());
    expect(preview).toMatchObject({
      method: 'POST',
      url: 'https://intel.example/api/hosts/%5Bredacted%5D?n=2&fixed=a+b%26c',
      headers: { authorization: '[redacted]', 'x-key': '[redacted]' },
      query: { n: '2', fixed: 'a b&c' },
      body: { ip: '[redacted]', n: 2, text: 'n is 2' },
    });
    expect(JSON.stringify(preview)).not.toContain('s3cret');
    expect(sent).toHaveLength(0);
  });

  it('takes only the declared inputs, typed', () => {
    const action = customActionDefinition(specOf(), { fetch: async () => json({}) });
    expect(v.safeParse(action.input, { ip: 'h', n: 1.5 }).success).toBe(false);
    expect(v.safeParse(action.input, { ip: 'h', other: 1 }).success).toBe(false);
    expect(v.safeParse(action.input, { n: 1 }).success).toBe(false);
    expect(v.safeParse(action.input, { ip: 'h', n: 1, flag: true }).success).toBe(true);
  });
});

describe('output extraction and redaction', () => {
  it('reads $.a.b[0] paths, missing as null and typed', () => {
    const doc = { a: { b: [{ c: 'x' }], n: 3, s: '4' } };
    expect(readJsonPath(doc, '$.a.b[0].c')).toBe('x');
    expect(readJsonPath(doc, '$.a.b[1].c')).toBeUndefined();
    expect(readJsonPath(doc, '$.a.x.y')).toBeUndefined();
    expect(readJsonPath(doc, '$.a.b.c')).toBeUndefined();
    const spec = specOf({
      outputs: [
        { name: 'n', path: '$.a.n', type: 'string' },
        { name: 'm', path: '$.a.s', type: 'integer' },
      ],
    });
    expect(extractOutputs(spec, doc, {})).toEqual({ n: '3', m: null });
    expect(extractOutputs(spec, undefined, {})).toEqual({ n: null, m: null });
  });

  it('masks secret inputs and every redact path as [redacted], leaving what is absent', () => {
    const spec = specOf({ redact: ['$.input.ip', '$.output.deep.token'] });
    const row = { input: { ip: '1.2.3.4', key: 'k', n: 1, connection: 'c' }, output: { deep: { token: 't', keep: 1 }, other: 2 } };
    expect(redactRow(spec, row)).toEqual({
      input: { ip: '[redacted]', key: '[redacted]', n: 1, connection: 'c' },
      output: { deep: { token: '[redacted]', keep: 1 }, other: 2 },
    });
    expect(row.input.ip).toBe('1.2.3.4');
    expect(redactRow(spec, { input: { n: 1 }, output: null })).toEqual({ input: { n: 1 }, output: null });
  });
});

describe('custom SSH action', () => {
  const ssh = specOf({
    transport: 'ssh',
    http: null,
    ssh: { command: '/usr/bin/tool', args: ['--ip', '{{ inputs.ip }}', 'n={{ inputs.n }}', '{{ inputs.key }}'] },
    redact: [],
    outputs: [],
  });
  const connection: ResolvedConnection = { ...http, kind: 'ssh', base_url: null, config: { host: 'h', username: 'u', accept_unknown_host_key: true } };

  it('quotes each rendered argument on its own and leaves out one whose inputs are all absent', async () => {
    const action = customActionDefinition(ssh, { fetch: async () => json({}) });
    expect(action.connectionKind).toBe('ssh');
    const preview = await action.preview({ ip: `a'b"; rm -rf / $(id)`, n: 2 }, contextOf(connection));
    expect(preview).toEqual({ connection: 'intel', command_line: `/usr/bin/tool '--ip' 'a'\\''b"; rm -rf / $(id)' 'n=2'` });
    expect(await action.preview({ ip: 'x', key: 'k' }, contextOf(connection))).toEqual({
      connection: 'intel',
      command_line: `/usr/bin/tool '--ip' 'x' '[redacted]'`,
    });
  });
});

describe('the registry with custom actions', () => {
  it('answers for the enabled custom actions of the last snapshot, refuses disabled ones, never shadows a built-in', () => {
    const fetch = async () => json({});
    const registry = createActionRegistry(builtinActions(fetch));
    expect(registry.isKnownAction('custom.intel.lookup')).toBe(false);
    const arbitrary = customActionDefinition(specOf({ name: 'custom.jump.run', risk: 'arbitrary', effect_type: 'arbitrary' }), { fetch });
    registry.setCustomActions([customActionDefinition(specOf(), { fetch }), arbitrary], ['custom.old.one']);
    expect(registry.isKnownAction('custom.intel.lookup')).toBe(true);
    expect(registry.implementation('custom.intel.lookup')?.name).toBe('custom.intel.lookup');
    expect(registry.riskOf('custom.intel.lookup')).toBe('read');
    expect(registry.needsAdminGate('custom.jump.run')).toBe(true);
    expect(registry.needsAdminGate('custom.intel.lookup')).toBe(false);
    expect(registry.needsAdminGate('http.request')).toBe(false);
    expect(registry.entries().find((e) => e.name === 'custom.intel.lookup')).toMatchObject({ implemented: true, connection_kind: 'http', risk: 'read' });
    expect(registry.actionProblem('custom.old.one')).toBe("custom action 'custom.old.one' is disabled");
    expect(registry.actionProblem('custom.nope')).toBe("unknown action 'custom.nope'");
    expect(registry.checkInput('custom.intel.lookup', { connection: 'x', ip: 'h', n: 'three' })).toEqual([{ path: ['n'], msg: expect.any(String) }]);
    expect(registry.checkInput('custom.intel.lookup', { ip: 'h', n: '{{ inputs.n }}' })).toEqual([]);

    registry.setCustomActions([]);
    expect(registry.isKnownAction('custom.intel.lookup')).toBe(false);
    expect(registry.entries().some((e) => e.name.startsWith('custom.'))).toBe(false);
  });
});
