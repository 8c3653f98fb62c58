/**
 * Every rule of `specProblems` (domain/custom-actions/templates.ts): placeholders are
 * `{{ inputs.<declared input> }}` and nothing else, a secret is never read, a path
 * placeholder fills a whole segment of a path that cannot be left, names are unique and
 * references name declared inputs.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { customActionSpecSchema, type CustomActionSpec } from '../../../domain/custom-actions/spec.ts';
import { extractOutputs, readJsonPath, renderBody } from '../../../domain/custom-actions/render.ts';
import { placeholderInputs, specProblems } from '../../../domain/custom-actions/templates.ts';

const inputs = [
  { name: 'ip', type: 'string' },
  { name: 'note', type: 'string' },
  { name: 'api_key', type: 'string', secret: true },
];
const http = (over: Record<string, unknown> = {}): CustomActionSpec =>
  v.parse(customActionSpecSchema, {
    name: 'custom.vendor.block_ip',
    title: 'Block an IP',
    transport: 'http',
    inputs,
    http: { method: 'POST', path: '/v1/ips/{{ inputs.ip }}' },
    effect_type: 'none',
    risk: 'write',
    ...over,
  });
const ssh = (args: string[]): CustomActionSpec =>
  v.parse(customActionSpecSchema, {
    name: 'custom.fw.ban',
    title: 'Ban',
    transport: 'ssh',
    inputs,
    ssh: { command: '/usr/local/bin/ban', args },
    effect_type: 'none',
    risk: 'write',
  });
const withPath = (path: string) => http({ http: { method: 'GET', path } });
const body = (value: string) => http({ http: { method: 'POST', path: '/v1/x', body: { note: value } } });
const types = (spec: CustomActionSpec) => specProblems(spec).map((p) => p.type);

describe('templates', () => {
  it('accepts {{ inputs.<declared> }} with or without whitespace, in every template field', () => {
    const spec = http({
      http: {
        method: 'POST',
        path: '/v1/ips/{{inputs.ip}}/notes',
        headers: { 'X-Api-Key': '{{ inputs.api_key }}' },
        query: { reason: 'soc: {{ inputs.note }}' },
        body: { ip: '{{   inputs.ip   }}', note: 'literal text' },
      },
      idempotency_key: 'block-{{ inputs.ip }}',
      compensation: { action: 'custom.vendor.unblock_ip', with: { ip: '{{ inputs.ip }}' } },
    });
    expect(specProblems(spec)).toEqual([]);
    expect(specProblems(ssh(['--ip', '{{ inputs.ip }}', '--note={{ inputs.note }}']))).toEqual([]);
    expect(placeholderInputs('a {{ inputs.ip }} b {{inputs.note}}')).toEqual(['ip', 'note']);
  });

  it('refuses a template reading a secret, a connection or the environment (template_reads_secret)', () => {
    for (const text of [
      '{{ secrets.api }}',
      '{{ secret }}',
      '{{ connection.secret }}',
      '{{ env.HOME }}',
      '{{ inputs.ip | append: secrets.x }}',
      '{{ SECRETS.x }}',
    ]) {
      expect(specProblems(body(text)), text).toEqual([{ loc: ['http', 'body', 'note'], msg: expect.any(String), type: 'template_reads_secret' }]);
    }
  });

  it('does not take an input whose name merely contains one of those words for a secret', () => {
    const spec = http({
      inputs: [...inputs, { name: 'env_name', type: 'string' }],
      http: { method: 'POST', path: '/x', body: { e: '{{ inputs.env_name }}' } },
    });
    expect(specProblems(spec)).toEqual([]);
  });

  it('refuses filters, tags, other variables, undeclared inputs and unclosed placeholders', () => {
    expect(types(body('{{ inputs.ip | upcase }}'))).toEqual(['template_filter']);
    expect(types(body('{% if inputs.ip %}x{% endif %}'))).toEqual(['template_tag']);
    expect(types(body('{{ case.title }}'))).toEqual(['template_invalid']);
    expect(types(body('{{- inputs.ip -}}'))).toEqual(['template_invalid']);
    expect(types(body('{{ inputs["ip"] }}'))).toEqual(['template_invalid']);
    expect(types(body('{{ inputs.host }}'))).toEqual(['template_unknown_input']);
    expect(types(body('{{ inputs.ip'))).toEqual(['template_invalid']);
  });

  it('holds ssh arguments, the idempotency key and compensation inputs to the same rules, each at its own loc', () => {
    expect(specProblems(ssh(['ok', '{{ env.PATH }}']))).toEqual([{ loc: ['ssh', 'args', 1], msg: expect.any(String), type: 'template_reads_secret' }]);
    expect(specProblems(http({ idempotency_key: '{{ inputs.nope }}' }))).toEqual([
      { loc: ['idempotency_key'], msg: expect.any(String), type: 'template_unknown_input' },
    ]);
    expect(specProblems(http({ compensation: { action: 'custom.vendor.unblock_ip', with: { ip: '{{ secrets.ip }}' } } }))).toEqual([
      { loc: ['compensation', 'with', 'ip'], msg: expect.any(String), type: 'template_reads_secret' },
    ]);
    expect(specProblems(http({ http: { method: 'GET', path: '/x', query: { q: '{{ inputs.ip | url_encode }}' } } }))).toEqual([
      { loc: ['http', 'query', 'q'], msg: expect.any(String), type: 'template_filter' },
    ]);
  });
});

describe('the http path', () => {
  it('takes placeholders that fill whole segments, and a trailing slash', () => {
    for (const path of ['/v1/ips/{{ inputs.ip }}', '/v1/{{ inputs.ip }}/notes/{{ inputs.note }}/', '/', "/a-b_c.d~!$&'()*+,;=:@/%20x"]) {
      expect(specProblems(withPath(path)), path).toEqual([]);
    }
  });

  it('refuses what would let a rendered value leave the declared path (path_escapes)', () => {
    for (const path of [
      '/v1/ips/ip-{{ inputs.ip }}',
      '/v1/{{ inputs.ip }}.json',
      '/v1/{{ inputs.ip }}{{ inputs.note }}',
      '/v1/../admin/{{ inputs.ip }}',
      '/v1/./x',
      '/v1/%2e%2E/x',
      '/v1/.%2e/x',
      '/v1/x?force=1',
      '/v1/x#frag',
      '/v1\\x',
      '//evil.example/x',
      '/v1//x',
    ]) {
      expect(types(withPath(path)), path).toContain('path_escapes');
      expect(
        specProblems(withPath(path)).every((p) => p.loc.join('.') === 'http.path'),
        path,
      ).toBe(true);
    }
  });

  it('refuses characters a path does not take as they are, and a stray %', () => {
    expect(types(withPath('/v1/a b'))).toEqual(['path_invalid']);
    expect(types(withPath('/v1/100%'))).toEqual(['path_invalid']);
    expect(types(withPath('/v1/"x"'))).toEqual(['path_invalid']);
  });

  it('reads a secret in the path as a secret read', () => {
    expect(types(withPath('/v1/{{ secrets.token }}'))).toEqual(['template_reads_secret']);
  });
});

describe('names and references', () => {
  it('refuses an input or output declared twice', () => {
    const spec = http({
      inputs: [...inputs, { name: 'ip', type: 'integer' }],
      outputs: [
        { name: 'id', path: '$.id', type: 'string' },
        { name: 'id', path: '$.data.id', type: 'string' },
      ],
    });
    expect(specProblems(spec)).toEqual([
      { loc: ['inputs', 3, 'name'], msg: expect.any(String), type: 'duplicate_name' },
      { loc: ['outputs', 1, 'name'], msg: expect.any(String), type: 'duplicate_name' },
    ]);
  });

  it('refuses a target or redaction naming an input the spec does not declare', () => {
    expect(specProblems(http({ target: { type: 'ip', input: 'address' } }))).toEqual([
      { loc: ['target', 'input'], msg: expect.any(String), type: 'unknown_input' },
    ]);
    expect(specProblems(http({ target: { type: 'ip', input: 'ip' }, redact: ['$.input.api_key', '$.output.token.value'] }))).toEqual([]);
    expect(specProblems(http({ redact: ['$.input.password', '$.input.api_key.inner'] }))).toEqual([
      { loc: ['redact', 0], msg: expect.any(String), type: 'unknown_input' },
      { loc: ['redact', 1], msg: expect.any(String), type: 'redact_invalid' },
    ]);
  });

  it('refuses headers the transport sets itself', () => {
    for (const name of ['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Idempotency-Key']) {
      expect(specProblems(http({ http: { method: 'GET', path: '/x', headers: { [name]: 'x' } } }))).toEqual([
        { loc: ['http', 'headers', name], msg: expect.any(String), type: 'header_reserved' },
      ]);
    }
  });
});

describe('nested body fields', () => {
  const nested = (fields: Record<string, string>) => http({ http: { method: 'POST', path: '/v1/x', body: fields } });
  it('takes dotted paths and refuses an empty or __proto__ segment and a value that is also a parent', () => {
    expect(types(nested({ mode: 'block', 'configuration.target': 'ip', 'configuration.value': '{{ inputs.ip }}' }))).toEqual([]);
    expect(types(nested({ 'configuration..value': 'x' }))).toEqual(['body_field_invalid']);
    expect(types(nested({ '__proto__.polluted': 'x' }))).toEqual(['body_field_invalid']);
    expect(types(nested({ configuration: 'x', 'configuration.value': 'y' }))).toEqual(['body_field_conflict']);
  });

  it('takes [n] into arrays and refuses a bad index and a place given two shapes', () => {
    expect(types(nested({ 'append[0].value': '{{ inputs.ip }}', 'append[0].description': 'svc', 'filter.ids[0]': 'x', 'remove[1]': 'y' }))).toEqual([]);
    for (const bad of ['ids[]', 'ids[-1]', 'ids[100]', 'ids[0', '[0]', 'ids[0]x', 'a.[0]'])
      expect(types(nested({ [bad]: 'x' })), bad).toEqual(['body_field_invalid']);
    expect(types(nested({ ids: 'x', 'ids[0]': 'y' }))).toEqual(['body_field_conflict']);
    expect(types(nested({ 'ids[0]': 'x', 'ids.first': 'y' }))).toEqual(['body_field_conflict']);
    expect(types(nested({ 'ids[0]': 'x', 'ids[0].id': 'y' }))).toEqual(['body_field_conflict']);
  });

  it('renders a dotted field into nested objects, typed values kept', () => {
    const spec = v.parse(customActionSpecSchema, {
      name: 'custom.waf.block',
      title: 'Block',
      transport: 'http',
      inputs: [
        { name: 'ip', type: 'string' },
        { name: 'ttl', type: 'integer' },
      ],
      http: {
        method: 'POST',
        path: '/rules',
        body: { mode: 'block', 'configuration.target': 'ip', 'configuration.value': '{{ inputs.ip }}', 'limits.ttl': '{{ inputs.ttl }}' },
      },
      effect_type: 'none',
      risk: 'write',
    });
    const { enabled: _enabled, ...stored } = spec;
    expect(renderBody(stored, spec.http?.body ?? {}, { ip: '198.51.100.4', ttl: 600 })).toEqual({
      mode: 'block',
      configuration: { target: 'ip', value: '198.51.100.4' },
      limits: { ttl: 600 },
    });
  });

  it('renders [n] fields into arrays, an element whose fields are all absent left out and the rest closed up', () => {
    const spec = v.parse(customActionSpecSchema, {
      name: 'custom.dns.block',
      title: 'Block',
      transport: 'http',
      inputs: [
        { name: 'domain', type: 'string', required: true },
        { name: 'also', type: 'string' },
        { name: 'count', type: 'integer' },
      ],
      http: {
        method: 'PATCH',
        path: '/lists/1',
        body: {
          'append[0].value': '{{ inputs.also }}',
          'append[1].value': '{{ inputs.domain }}',
          'append[1].description': 'svc',
          'filter.ids[0]': '{{ inputs.domain }}',
          'filter.ids[1]': '{{ inputs.count }}',
        },
      },
      effect_type: 'none',
      risk: 'write',
    });
    const { enabled: _enabled, ...stored } = spec;
    expect(renderBody(stored, spec.http?.body ?? {}, { domain: 'evil.example', count: 3 })).toEqual({
      append: [{ value: 'evil.example', description: 'svc' }],
      filter: { ids: ['evil.example', 3] },
    });
    expect(renderBody(stored, spec.http?.body ?? {}, { domain: 'evil.example', also: 'bad.example' })).toEqual({
      append: [{ value: 'bad.example' }, { value: 'evil.example', description: 'svc' }],
      filter: { ids: ['evil.example'] },
    });
  });
});

describe('ssh exit wording', () => {
  const sshWith = (effect: unknown, transport: 'ssh' | 'http' = 'ssh') =>
    v.parse(customActionSpecSchema, {
      name: 'custom.fw.unban',
      title: 'Unban',
      transport,
      inputs,
      ...(transport === 'ssh' ? { ssh: { command: '/usr/sbin/nft', args: ['{{ inputs.ip }}'] } } : { http: { method: 'POST', path: '/x' } }),
      effect,
      effect_type: 'none',
      risk: 'write',
    });
  it('is declared on ssh actions only, and one exit code and wording cannot mean both present and absent', () => {
    const exit = { already_absent: [{ exit_code: 1, wording: ['No such file or directory'] }] };
    expect(types(sshWith({ exit }))).toEqual([]);
    expect(types(sshWith({ exit }, 'http'))).toEqual(['effect_not_applicable']);
    expect(types(sshWith({ exit: { ...exit, already_present: [{ exit_code: 1, wording: ['no such FILE or directory'] }] } }))).toEqual(['effect_ambiguous']);
    expect(types(sshWith({ exit: { ...exit, already_present: [{ exit_code: 2, wording: ['No such file or directory'] }] } }))).toEqual([]);
    expect(() => sshWith({ exit: { already_absent: [{ exit_code: 0, wording: ['x'] }] } })).toThrow();
    expect(() => sshWith({ exit: { already_absent: [{ exit_code: 1, wording: [] }] } })).toThrow();
  });
});

describe('output path filters', () => {
  const listRead = (path: string, effect: Record<string, unknown> = {}) =>
    v.safeParse(customActionSpecSchema, {
      name: 'custom.fw.listed',
      title: 'Listed',
      transport: 'http',
      inputs,
      http: { method: 'GET', path: '/list' },
      outputs: [{ name: 'entry', path, type: 'string' }],
      effect: { enforced_output: 'entry', enforced_values: ['{{ inputs.ip }}'], ...effect },
      effect_type: 'enrich',
      risk: 'read',
    });
  const problemTypes = (path: string, effect?: Record<string, unknown>) => {
    const parsed = listRead(path, effect);
    return parsed.success ? specProblems(parsed.output).map((p) => p.type) : ['schema'];
  };

  it('takes an equality filter whose text may name declared inputs, in paths and in enforced values', () => {
    expect(problemTypes('$.rows[?@.ip=="{{ inputs.ip }}"].ip')).toEqual([]);
    expect(problemTypes('$.matches[?@=="blocklist_svc"]')).toEqual([]);
    expect(problemTypes('$.rows[?@.ip=="{{ inputs.nope }}"].ip')).toEqual(['template_unknown_input']);
    expect(problemTypes('$.rows[0].ip', { enforced_values: ['{{ inputs.nope }}'] })).toEqual(['template_unknown_input']);
    for (const bad of ['$.rows[?@.ip=={{ inputs.ip }}]', '$.rows[?(@.ip=="x")]', '$.rows[?@.ip!="x"]', '$.rows[?@.ip=="x"'])
      expect(problemTypes(bad), bad).toEqual(['schema']);
  });

  it('reads the first element whose field or self equals the rendered text exactly, never a text match', () => {
    const parsed = listRead('$.rows[?@.ip=="{{ inputs.ip }}"].ip');
    if (!parsed.success) throw new Error('spec refused');
    const { enabled: _enabled, ...spec } = parsed.output;
    const rows = { rows: [{ ip: '203.0.113.70' }, { ip: '1203.0.113.7' }, { ip: '203.0.113.7' }, { ip: 7 }] };
    expect(extractOutputs(spec, rows, { ip: '203.0.113.7' })).toEqual({ entry: '203.0.113.7' });
    expect(extractOutputs(spec, rows, { ip: '203.0.113.8' })).toEqual({ entry: null });
    expect(extractOutputs(spec, { rows: { ip: '203.0.113.7' } }, { ip: '203.0.113.7' })).toEqual({ entry: null });
    expect(readJsonPath({ matches: ['bogons', 'blocklist_svc'] }, '$.matches[?@=="blocklist_svc"]')).toBe('blocklist_svc');
    expect(readJsonPath({ matches: ['blocklist_svc_old'] }, '$.matches[?@=="blocklist_svc"]')).toBeUndefined();
    expect(readJsonPath({ rows: [{ id: 7, name: 'a' }] }, '$.rows[?@.id=="{{ inputs.id }}"].name', { id: 7 })).toBe('a');
  });
});
