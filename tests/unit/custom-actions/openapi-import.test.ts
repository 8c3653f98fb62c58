/**
 * OpenAPI import (SPEC.md "OpenAPI import rules"; domain/custom-actions/openapi-import.ts):
 * every rule on small hand-written documents, then the real vendor documents of
 * tests/fixtures/openapi (README there: sources and licences), dereferenced by the
 * adapter's library. Every draft of every test is a valid custom action spec.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../../../adapters/custom-actions/openapi-document.ts';
import { importOpenApi, OPENAPI_IMPORT_MAX_DRAFTS, readOpenApiText, snakeCase, type OpenApiImport } from '../../../domain/custom-actions/openapi-import.ts';
import { CUSTOM_ACTION_NAME, customActionSpecSchema } from '../../../domain/custom-actions/spec.ts';
import { specProblems } from '../../../domain/custom-actions/templates.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { loadConfig } from '../../../runtime/config.ts';

type Doc = Record<string, unknown>;
const fixtures = join(import.meta.dirname, '../../fixtures/openapi');
const fixture = (file: string) => readFileSync(join(fixtures, file), 'utf8');

const ok = { '200': { description: 'ok' } };
const doc = (paths: Doc, extra: Doc = {}): Doc => ({ openapi: '3.1.0', info: { title: 'Acme EDR', version: '2.4' }, paths, ...extra });

/** Imports `document` (as text, through the same reading and dereferencing as the API) and checks every draft is a valid spec. */
async function importDoc(document: Doc | string, options: { namePrefix?: string; maxDrafts?: number } = {}): Promise<OpenApiImport> {
  const loaded = await loadOpenApiDocument(typeof document === 'string' ? document : JSON.stringify(document));
  const result = importOpenApi(loaded, { namePrefix: options.namePrefix ?? 'custom.acme', ...(options.maxDrafts ? { maxDrafts: options.maxDrafts } : {}) });
  expectValidDrafts(result);
  return result;
}

/** Each spec parses unchanged, breaks no template rule, is disabled, arbitrary, unbounded, tried once, with no secret input and a unique name. */
function expectValidDrafts(result: OpenApiImport) {
  const names = new Set<string>();
  for (const draft of result.drafts) {
    const parsed = v.parse(customActionSpecSchema, draft.spec);
    expect(parsed).toEqual(draft.spec);
    expect(specProblems(parsed), draft.spec.name).toEqual([]);
    expect(draft.spec).toMatchObject({ enabled: false, risk: 'arbitrary', effect_type: 'arbitrary', max_targets: null, max_attempts: 1, transport: 'http' });
    expect(draft.spec.name).toMatch(CUSTOM_ACTION_NAME);
    expect(draft.spec.inputs.every((i) => i.secret === false)).toBe(true);
    expect(Object.keys(draft.spec.http?.headers ?? {}).map((h) => h.toLowerCase())).not.toContain('authorization');
    expect(names.has(draft.spec.name)).toBe(false);
    names.add(draft.spec.name);
  }
}

const draftAt = (result: OpenApiImport, location: string) => {
  const found = result.drafts.find((d) => `${d.method} ${d.path}` === location);
  if (!found) throw new Error(`no draft for ${location}: ${JSON.stringify(result.skipped.filter((s) => s.location.startsWith(location)))}`);
  return found;
};
const skipsAt = (result: OpenApiImport, location: string) => result.skipped.filter((s) => s.location === location).map((s) => s.reason);

/** The DomainError `fn` throws (sync or async). */
async function refusal(fn: () => unknown): Promise<DomainError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('reading the document', () => {
  it('caps documents at SVC_MAX_OPENAPI_KB, 512 KiB unless set', () => {
    expect(loadConfig({}).maxOpenApiKb).toBe(512);
    expect(loadConfig({ SVC_MAX_OPENAPI_KB: '2048' }).maxOpenApiKb).toBe(2048);
    expect(() => loadConfig({ SVC_MAX_OPENAPI_KB: '0' })).toThrow('SVC_MAX_OPENAPI_KB');
  });

  it('reads the same document from JSON and from YAML', () => {
    const yaml =
      "openapi: 3.0.3\ninfo:\n  title: Acme\n  version: '1'\npaths:\n  /hosts:\n    get:\n      responses:\n        '200':\n          description: ok\n";
    expect(readOpenApiText(yaml)).toEqual(
      readOpenApiText(JSON.stringify({ openapi: '3.0.3', info: { title: 'Acme', version: '1' }, paths: { '/hosts': { get: { responses: ok } } } })),
    );
  });

  it.each([
    ['an empty text', '  \n', 'openapi_malformed'],
    ['broken JSON', '{"openapi": "3.1.0",', 'openapi_malformed'],
    ['broken YAML', 'openapi: 3.1.0\ninfo: [unclosed\n', 'openapi_malformed'],
    ['a YAML list', '- a\n- b\n', 'openapi_not_a_document'],
    ['a JSON scalar', '"openapi"', 'openapi_not_a_document'],
    ['a mapping without a version', 'title: not an API\n', 'openapi_not_a_document'],
    ['a version as a YAML number', 'openapi: 3.1\ninfo: {title: x, version: "1"}\npaths: {}\n', 'openapi_not_a_document'],
    ['paths that are not a mapping', '{"openapi": "3.0.0", "info": {}, "paths": []}', 'openapi_not_a_document'],
    ['Swagger 2.0', 'swagger: "2.0"\ninfo: {title: x, version: "1"}\npaths: {}\n', 'openapi_version_unsupported'],
    ['OpenAPI 3.2', '{"openapi": "3.2.0", "info": {}, "paths": {}}', 'openapi_version_unsupported'],
    ['OpenAPI 2.0 spelled as openapi', '{"openapi": "2.0", "info": {}, "paths": {}}', 'openapi_version_unsupported'],
    ['a YAML alias inside its own anchor', 'openapi: 3.1.0\ninfo: &a\n  title: x\n  self: *a\npaths: {}\n', 'openapi_malformed'],
    ['nesting 300 deep', `{"openapi": "3.1.0", "x": ${'['.repeat(300)}${']'.repeat(300)}}`, 'openapi_malformed'],
  ])('refuses %s with 422 %s', async (_what, text, code) => {
    const error = await refusal(() => readOpenApiText(text));
    expect({ status: error.status, code: error.code }).toEqual({ status: 422, code });
  });

  it('names the version it refuses, Swagger 2.0 included', async () => {
    const error = await refusal(() => readOpenApiText('swagger: "2.0"\ninfo: {title: x, version: "1"}\npaths: {}\n'));
    expect(error.params).toEqual({ version: '2.0', supported: ['3.0', '3.1'] });
    expect(error.detail).toContain('Swagger 2.0');
  });

  it('refuses remote, relative and file $refs before anything resolves them, naming them', async () => {
    const document = doc({
      '/hosts': {
        get: {
          parameters: [
            { name: 'a', in: 'query', schema: { $ref: 'https://schemas.example.invalid/host.json' } },
            { name: 'b', in: 'query', schema: { $ref: './common.yaml#/components/schemas/B' } },
            { name: 'c', in: 'query', schema: { $ref: 'file:///etc/passwd' } },
            { name: 'd', in: 'query', schema: { $ref: '#/components/schemas/D' } },
          ],
          responses: ok,
        },
      },
    });
    const error = await refusal(() => loadOpenApiDocument(JSON.stringify(document)));
    expect({ status: error.status, code: error.code }).toEqual({ status: 422, code: 'openapi_external_ref' });
    expect(error.params).toEqual({
      refs: ['https://schemas.example.invalid/host.json', './common.yaml#/components/schemas/B', 'file:///etc/passwd'],
      count: 3,
    });
  });

  it('refuses a $ref cycle naming where it closes, and a pointer to nothing', async () => {
    const node = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } };
    const cyclic = doc({ '/tree': { get: { responses: ok } } }, { components: { schemas: { Node: node } } });
    const cycle = await refusal(() => loadOpenApiDocument(JSON.stringify(cyclic)));
    expect({ status: cycle.status, code: cycle.code }).toEqual({ status: 422, code: 'openapi_ref_cycle' });
    expect(cycle.params).toEqual({ cycles: ['#/components/schemas/Node/properties/children/items'], count: 1 });

    const dangling = doc({ '/hosts': { get: { parameters: [{ $ref: '#/components/parameters/Nope' }], responses: ok } } });
    const missing = await refusal(() => loadOpenApiDocument(JSON.stringify(dangling)));
    expect({ status: missing.status, code: missing.code }).toEqual({ status: 422, code: 'openapi_invalid' });
    expect(missing.detail).toContain('#/components/parameters/Nope');
    expect(missing.detail).not.toContain(process.cwd());
  });
});

describe('mapping operations to drafts', () => {
  const hostLookup = doc(
    {
      '/hosts/{host_id}': {
        parameters: [{ $ref: '#/components/parameters/HostId' }],
        get: {
          operationId: 'getHostById',
          summary: 'Look a host up',
          description: 'Returns one host.',
          parameters: [
            { name: 'include_tags', in: 'query', schema: { type: 'boolean' } },
            { name: 'limit', in: 'query', required: true, schema: { type: 'integer', default: 10 } },
            { name: 'score', in: 'query', schema: { type: ['number', 'null'] } },
            { name: 'view', in: 'query', schema: { type: 'string', enum: ['basic', 'full'] } },
            { name: 'X-Request-Id', in: 'header', schema: { type: 'string', format: 'uuid' } },
          ],
          responses: {
            '201': { description: 'never', content: { 'text/plain': { schema: { type: 'string' } } } },
            '200': { description: 'the host', content: { 'application/json': { schema: { $ref: '#/components/schemas/Host' } } } },
            '404': { description: 'none', content: { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string' } } } } } },
          },
        },
      },
    },
    {
      servers: [{ url: 'https://{region}.api.acme.test/edr/v2/', variables: { region: { default: 'eu', enum: ['eu', 'us'] } } }, { url: 'https://other.test' }],
      components: {
        parameters: { HostId: { name: 'host_id', in: 'path', required: true, description: 'The host.', schema: { type: 'string' } } },
        schemas: {
          Host: {
            allOf: [
              { type: 'object', properties: { id: { type: 'string' }, hostname: { type: 'string' } } },
              {
                type: 'object',
                properties: {
                  riskScore: { type: 'number' },
                  online: { type: 'boolean' },
                  ports: { type: 'integer' },
                  tags: { type: 'array', items: { type: 'string' } },
                  os: { type: 'object', properties: { name: { type: 'string' } } },
                  'last-seen': { type: 'string', format: 'date-time' },
                  '@odata.type': { type: 'string' },
                },
              },
            ],
          },
        },
      },
    },
  );

  it('types inputs from path, query and header parameters, rewrites the path, folds the server prefix in and lifts outputs', async () => {
    const result = await importDoc(hostLookup);
    expect(result).toMatchObject({
      title: 'Acme EDR',
      openapi_version: '3.1.0',
      server_url: 'https://eu.api.acme.test/edr/v2/',
      server_path_prefix: '/edr/v2',
    });
    const draft = draftAt(result, 'GET /hosts/{host_id}');
    expect(draft.suggested_risk).toBe('read');
    expect(draft.spec).toEqual({
      name: 'custom.acme.get_host_by_id',
      title: 'Look a host up',
      description: 'Returns one host.\n\nImported from the OpenAPI document "Acme EDR" version 2.4: GET /hosts/{host_id}.',
      transport: 'http',
      enabled: false,
      default_connection: null,
      inputs: [
        { name: 'host_id', type: 'string', required: true, description: 'The host. (Path parameter host_id.)', secret: false },
        { name: 'include_tags', type: 'boolean', required: false, description: '(Query parameter include_tags.)', secret: false },
        { name: 'limit', type: 'integer', required: true, description: 'Default: 10. (Query parameter limit.)', secret: false },
        { name: 'score', type: 'number', required: false, description: '(Query parameter score.)', secret: false },
        { name: 'view', type: 'string', required: false, description: 'One of: "basic", "full". (Query parameter view.)', secret: false },
        { name: 'x_request_id', type: 'string', required: false, description: '(Header X-Request-Id.)', secret: false },
      ],
      http: {
        method: 'GET',
        path: '/edr/v2/hosts/{{ inputs.host_id }}',
        headers: { 'X-Request-Id': '{{ inputs.x_request_id }}' },
        query: { include_tags: '{{ inputs.include_tags }}', limit: '{{ inputs.limit }}', score: '{{ inputs.score }}', view: '{{ inputs.view }}' },
        body: null,
      },
      ssh: null,
      outputs: [
        { name: 'id', path: '$.id', type: 'string' },
        { name: 'hostname', path: '$.hostname', type: 'string' },
        { name: 'risk_score', path: '$.riskScore', type: 'number' },
        { name: 'online', path: '$.online', type: 'boolean' },
        { name: 'ports', path: '$.ports', type: 'integer' },
        { name: 'last_seen', path: '$.last-seen', type: 'string' },
      ],
      timeout_s: 30,
      max_attempts: 1,
      redact: [],
      effect_type: 'arbitrary',
      risk: 'arbitrary',
      target: null,
      max_targets: null,
      idempotency_key: null,
      compensation: null,
    });
    expect(draft.notes[0]).toContain('the draft is disabled, its risk and effect_type are arbitrary, its blast radius is unbounded');
    expect(draft.notes).toContain(
      "Connection: the path already starts with the server's path /edr/v2; give the connection the base URL https://eu.api.acme.test.",
    );
    expect(draft.notes.some((n) => n.includes('@odata.type'))).toBe(true);
    expect(result.skipped).toEqual([]);
  });

  it('takes the first 2xx answer with a JSON body, lowest status first and 2XX last', async () => {
    const answer = (property: string) => ({
      description: property,
      content: { 'application/json': { schema: { type: 'object', properties: { [property]: { type: 'string' } } } } },
    });
    const result = await importDoc(
      doc({
        '/a': { get: { responses: { '2XX': answer('range'), '202': answer('accepted'), '204': { description: 'none' } } } },
        '/b': { get: { responses: { '2XX': answer('range'), default: answer('default') } } },
        '/c': { get: { responses: { '204': { description: 'none' } } } },
        '/d': {
          get: { responses: { '200': { description: 'list', content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } } } } },
        },
        '/e': {
          get: {
            responses: {
              '200': {
                description: 'vendor json',
                content: { 'application/vnd.acme+json; charset=utf-8': { schema: answer('vendor').content['application/json'].schema } },
              },
            },
          },
        },
      }),
    );
    expect(draftAt(result, 'GET /a').spec.outputs).toEqual([{ name: 'accepted', path: '$.accepted', type: 'string' }]);
    expect(draftAt(result, 'GET /b').spec.outputs).toEqual([{ name: 'range', path: '$.range', type: 'string' }]);
    expect(draftAt(result, 'GET /c').spec.outputs).toEqual([]);
    expect(draftAt(result, 'GET /c').notes).toContain('No 2xx answer has a JSON body: the draft declares no outputs.');
    expect(draftAt(result, 'GET /d').notes.some((n) => n.includes('is a JSON array: no outputs were lifted'))).toBe(true);
    expect(draftAt(result, 'GET /e').spec.outputs).toEqual([{ name: 'vendor', path: '$.vendor', type: 'string' }]);
  });

  it('types body inputs from the scalar properties of a JSON body, all of allOf, and skips array- and object-valued ones', async () => {
    const result = await importDoc(
      doc({
        '/hosts/{id}/isolate': {
          post: {
            operationId: 'isolateHost',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    allOf: [
                      { type: 'object', required: ['reason'], properties: { reason: { type: 'string', description: 'Why.' }, id: { type: 'string' } } },
                      {
                        properties: {
                          notify: { type: 'boolean', nullable: true },
                          ttl: { oneOf: [{ type: 'integer' }, { type: 'number' }] },
                          exclusions: { type: 'array', items: { type: 'string' } },
                          policy: { type: 'object', properties: { level: { type: 'string' } } },
                          created_at: { type: 'string', readOnly: true },
                          mode: { enum: ['full', 'partial'] },
                        },
                      },
                    ],
                  },
                },
                'application/xml': { schema: { type: 'object' } },
              },
            },
            responses: ok,
          },
        },
      }),
    );
    const draft = draftAt(result, 'POST /hosts/{id}/isolate');
    expect(draft.suggested_risk).toBe('write');
    expect(draft.spec.inputs.map((i) => [i.name, i.type, i.required])).toEqual([
      ['id', 'integer', true],
      ['reason', 'string', true],
      ['body_id', 'string', false],
      ['notify', 'boolean', false],
      ['ttl', 'number', false],
      ['mode', 'string', false],
    ]);
    expect(draft.spec.http).toEqual({
      method: 'POST',
      path: '/hosts/{{ inputs.id }}/isolate',
      headers: {},
      query: {},
      body: { reason: '{{ inputs.reason }}', id: '{{ inputs.body_id }}', notify: '{{ inputs.notify }}', ttl: '{{ inputs.ttl }}', mode: '{{ inputs.mode }}' },
    });
    expect(result.skipped).toEqual([
      { location: 'POST /hosts/{id}/isolate body property exclusions', reason: 'an array-valued body property: only scalar properties are imported' },
      { location: 'POST /hosts/{id}/isolate body property policy', reason: 'an object-valued body property: only scalar properties are imported' },
    ]);
  });

  it('skips a non-JSON body: the body when it is optional, the whole operation when it is required', async () => {
    const form = { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { To: { type: 'string' } } } } };
    const result = await importDoc(
      doc({
        '/messages': { post: { requestBody: { content: form }, responses: ok } },
        '/uploads': { post: { requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } }, responses: ok } },
        '/batch': {
          post: { requestBody: { required: true, content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } }, responses: ok },
        },
      }),
    );
    expect(draftAt(result, 'POST /messages').spec.http?.body).toBeNull();
    expect(skipsAt(result, 'POST /messages body')).toEqual(['a non-JSON request body (application/x-www-form-urlencoded): only JSON bodies are imported']);
    expect(skipsAt(result, 'POST /uploads')).toEqual(['a non-JSON request body (multipart/form-data), required: only JSON bodies are imported']);
    expect(skipsAt(result, 'POST /batch')).toEqual(["its required JSON body is a JSON array: only an object's scalar properties are imported"]);
    expect(result.drafts.map((d) => d.path)).toEqual(['/messages']);
  });

  it('skips cookie, array- and object-valued parameters with their location, and notes a required one', async () => {
    const result = await importDoc(
      doc({
        '/alerts': {
          get: {
            parameters: [
              { name: 'session', in: 'cookie', required: true, schema: { type: 'string' } },
              { name: 'ids', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
              { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object', properties: { severity: { type: 'string' } } } },
              { name: 'where', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
              { name: 'q', in: 'query', schema: { type: 'string' } },
            ],
            responses: ok,
          },
        },
      }),
    );
    expect(result.skipped).toEqual([
      { location: 'GET /alerts parameter session', reason: 'a cookie parameter: custom actions send no cookies' },
      { location: 'GET /alerts parameter ids', reason: 'an array-valued parameter: only scalar (string, number, integer, boolean) parameters are imported' },
      {
        location: 'GET /alerts parameter filter',
        reason: 'an object-valued parameter: only scalar (string, number, integer, boolean) parameters are imported',
      },
      {
        location: 'GET /alerts parameter where',
        reason:
          'a structured (an array or object among its types, or a media type) parameter: only scalar (string, number, integer, boolean) parameters are imported',
      },
    ]);
    const draft = draftAt(result, 'GET /alerts');
    expect(draft.spec.inputs.map((i) => i.name)).toEqual(['q']);
    expect(draft.notes.some((n) => n.startsWith('The required cookie parameter session was not imported'))).toBe(true);
  });

  it('never imports authentication: security schemes, their api-key parameters, Authorization and cookies stay out; notes say what the API expects', async () => {
    const result = await importDoc(
      doc(
        {
          '/indicators': {
            get: {
              parameters: [
                { name: 'X-Api-Key', in: 'header', required: true, schema: { type: 'string' } },
                { name: 'apikey', in: 'query', schema: { type: 'string' } },
                { name: 'Authorization', in: 'header', schema: { type: 'string' } },
                { name: 'Cookie', in: 'header', schema: { type: 'string' } },
                { name: 'Accept', in: 'header', schema: { type: 'string' } },
                { name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } },
                { name: 'value', in: 'query', required: true, schema: { type: 'string' } },
              ],
              responses: {
                '200': {
                  description: 'ok',
                  content: {
                    'application/json': { schema: { type: 'object', properties: { access_token: { type: 'string' }, next_page_token: { type: 'string' } } } },
                  },
                },
              },
            },
          },
          '/status': { get: { security: [], responses: ok } },
        },
        {
          security: [{ key_header: [] }, { key_query: [] }, { bearer: [] }],
          components: {
            securitySchemes: {
              key_header: { type: 'apiKey', in: 'header', name: 'x-api-key' },
              key_query: { type: 'apiKey', in: 'query', name: 'apikey' },
              bearer: { type: 'http', scheme: 'bearer' },
            },
          },
        },
      ),
    );
    const draft = draftAt(result, 'GET /indicators');
    expect(draft.spec.inputs.map((i) => i.name)).toEqual(['value']);
    expect(draft.spec.http?.headers).toEqual({});
    expect(draft.spec.http?.query).toEqual({ value: '{{ inputs.value }}' });
    expect(draft.spec.redact).toEqual(['$.output.access_token']);
    expect(draft.notes).toContain(
      'Authentication is not imported: the document asks for key_header (API key in header x-api-key) or key_query (API key in query apikey) or bearer (HTTP bearer); run the action with a connection that carries the credentials.',
    );
    expect(result.skipped.map((s) => [s.location.replace('GET /indicators parameter ', ''), s.reason])).toEqual([
      ['X-Api-Key', 'a credential: authentication is never imported, the connection carries it'],
      ['apikey', 'a credential: authentication is never imported, the connection carries it'],
      ['Authorization', 'a credential: authentication is never imported, the connection carries it'],
      ['Cookie', 'a cookie header: custom actions send no cookies'],
      ['Accept', 'Accept is set by the transport (OpenAPI ignores it as a parameter)'],
      ['Idempotency-Key', 'Idempotency-Key is set by the transport, not by the action'],
    ]);
    expect(draftAt(result, 'GET /status').notes.some((n) => n.startsWith('Authentication'))).toBe(false);
  });

  it('skips what a custom action cannot send: HEAD, OPTIONS, TRACE, a parameter inside a segment, an undeclared path parameter', async () => {
    const result = await importDoc(
      doc({
        '/hosts': { head: { responses: ok }, options: { responses: ok }, trace: { responses: ok }, delete: { responses: ok } },
        '/files/{name}.json': { get: { parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }], responses: ok } },
        '/users/{id}': { get: { responses: ok } },
        '/lists/{ids}': {
          get: { parameters: [{ name: 'ids', in: 'path', required: true, schema: { type: 'array', items: { type: 'string' } } }], responses: ok },
        },
      }),
    );
    expect(result.drafts.map((d) => `${d.method} ${d.path} ${d.suggested_risk}`)).toEqual(['DELETE /hosts write']);
    expect(result.skipped).toEqual([
      { location: 'HEAD /hosts', reason: 'HEAD: a custom action sends GET, POST, PUT, PATCH, DELETE only' },
      { location: 'OPTIONS /hosts', reason: 'OPTIONS: a custom action sends GET, POST, PUT, PATCH, DELETE only' },
      { location: 'TRACE /hosts', reason: 'TRACE: a custom action sends GET, POST, PUT, PATCH, DELETE only' },
      {
        location: 'GET /files/{name}.json',
        reason: 'path segment "{name}.json" mixes a parameter with text: a custom action\'s placeholder fills a whole segment',
      },
      { location: 'GET /users/{id}', reason: 'path parameter {id} is not declared' },
      { location: 'GET /lists/{ids}', reason: 'path parameter {ids} takes an array, not a scalar' },
    ]);
  });

  it('encodes literal path characters a URL path does not take, and folds a relative server path in', async () => {
    const result = await importDoc(
      doc(
        { '/search results/{q}': { get: { parameters: [{ name: 'q', in: 'path', required: true, schema: {} }], responses: ok } } },
        { servers: [{ url: '/api/v1' }] },
      ),
    );
    expect(result).toMatchObject({ server_url: '/api/v1', server_path_prefix: '/api/v1' });
    const draft = draftAt(result, 'GET /search results/{q}');
    expect(draft.spec.http?.path).toBe('/api/v1/search%20results/{{ inputs.q }}');
    expect(draft.notes).toContain('Input q has no type in the document: imported as a string.');
    expect(draft.notes).toContain("Connection: the path already starts with the server's path /api/v1; set the connection's base URL to the API's origin.");
  });

  it('without servers there is no prefix and no server URL', async () => {
    const result = await importDoc(doc({ '/ping': { get: { responses: ok } } }));
    expect(result).toMatchObject({ server_url: null, server_path_prefix: '' });
    expect(draftAt(result, 'GET /ping').spec.http?.path).toBe('/ping');
  });

  it('names drafts <prefix>.<operationId or method_path> in snake case, unique and valid', async () => {
    const long = 'x'.repeat(80);
    const result = await importDoc(
      doc({
        '/a': { get: { operationId: 'repos/get-content', responses: ok }, post: { operationId: 'ListHTTPServers', responses: ok } },
        '/b/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok } },
        '/c': { get: { operationId: 'repos/get-content', responses: ok }, put: { operationId: '2fa.enable', responses: ok } },
        '/d': { get: { operationId: long, responses: ok }, post: { operationId: long, responses: ok } },
      }),
      { namePrefix: 'custom.github.enterprise' },
    );
    expect(result.drafts.map((d) => d.spec.name)).toEqual([
      'custom.github.enterprise.repos_get_content',
      'custom.github.enterprise.list_http_servers',
      'custom.github.enterprise.get_b_id',
      'custom.github.enterprise.repos_get_content_2',
      'custom.github.enterprise.op_2fa_enable',
      `custom.github.enterprise.${'x'.repeat(63)}`,
      `custom.github.enterprise.${'x'.repeat(61)}_2`,
    ]);
    expect(snakeCase('getHostByID')).toBe('get_host_by_id');
  });

  it('keeps at most the import limit of drafts and skips every later operation', async () => {
    const paths = Object.fromEntries(Array.from({ length: OPENAPI_IMPORT_MAX_DRAFTS + 5 }, (_, i) => [`/items/n${i}`, { get: { responses: ok } }]));
    const result = await importDoc(doc({ '/head': { head: { responses: ok } }, ...paths }));
    expect(OPENAPI_IMPORT_MAX_DRAFTS).toBe(200);
    expect(result.drafts).toHaveLength(200);
    expect(result.drafts.at(-1)?.path).toBe('/items/n199');
    expect(result.skipped).toHaveLength(6);
    expect(result.skipped.at(-1)).toEqual({
      location: 'GET /items/n204',
      reason: 'past the import limit of 200 drafts per document: import the rest from a document trimmed to them',
    });
  });

  it('lists 3.1 webhooks as skipped: they are calls the API makes', async () => {
    const result = await importDoc(doc({}, { webhooks: { hostIsolated: { post: { responses: ok } } } }));
    expect(result.drafts).toEqual([]);
    expect(result.skipped).toEqual([{ location: 'webhooks', reason: '1 webhook: calls the API makes to its subscribers, not operations an action can call' }]);
  });

  it('reads a YAML 3.0 document with $refs to parameters, bodies and answers', async () => {
    const yaml = `openapi: 3.0.3
info: {title: Acme Intel, version: "1"}
servers: [{url: "https://intel.acme.test"}]
paths:
  /ip/{address}:
    get:
      operationId: lookupIp
      parameters: [{$ref: '#/components/parameters/Address'}]
      responses:
        '200': {$ref: '#/components/responses/Verdict'}
components:
  parameters:
    Address: {name: address, in: path, required: true, schema: {type: string, format: ipv4}}
  responses:
    Verdict:
      description: the verdict
      content:
        application/json:
          schema: {type: object, properties: {malicious: {type: boolean}, score: {type: integer, nullable: true}}}
`;
    const draft = draftAt(await importDoc(yaml), 'GET /ip/{address}');
    expect(draft.spec.http?.path).toBe('/ip/{{ inputs.address }}');
    expect(draft.spec.outputs).toEqual([
      { name: 'malicious', path: '$.malicious', type: 'boolean' },
      { name: 'score', path: '$.score', type: 'integer' },
    ]);
  });
});

describe('real vendor documents (tests/fixtures/openapi)', () => {
  it('GitHub REST API (13 MB, OpenAPI 3.0.3): 200 drafts, every later operation past the limit', async () => {
    const result = await importDoc(fixture('github-rest-api.json'), { namePrefix: 'custom.github' });
    expect(result).toMatchObject({ openapi_version: '3.0.3', server_url: 'https://api.github.com', server_path_prefix: '' });
    expect(result.drafts).toHaveLength(200);
    const past = result.skipped.filter((s) => s.reason.startsWith('past the import limit'));
    expect(past).toHaveLength(1023);
    expect(result.skipped).toHaveLength(1064);
    const advisory = draftAt(result, 'GET /advisories/{ghsa_id}');
    expect(advisory.spec.name).toBe('custom.github.security_advisories_get_global_advisory');
    expect(advisory.spec.title).toBe('Get a global security advisory');
    expect(advisory.spec.inputs).toEqual([
      {
        name: 'ghsa_id',
        type: 'string',
        required: true,
        description: 'The GHSA (GitHub Security Advisory) identifier of the advisory. (Path parameter ghsa_id.)',
        secret: false,
      },
    ]);
    expect(advisory.spec.http).toEqual({ method: 'GET', path: '/advisories/{{ inputs.ghsa_id }}', headers: {}, query: {}, body: null });
    expect(advisory.spec.outputs.slice(0, 3)).toEqual([
      { name: 'ghsa_id', path: '$.ghsa_id', type: 'string' },
      { name: 'cve_id', path: '$.cve_id', type: 'string' },
      { name: 'url', path: '$.url', type: 'string' },
    ]);
    expect(advisory.spec.outputs.map((o) => o.name)).toContain('severity');
    const token = draftAt(result, 'POST /app/installations/{installation_id}/access_tokens');
    expect(token.spec.redact).toEqual(['$.output.token']);
    expect(skipsAt(result, 'POST /app/installations/{installation_id}/access_tokens body property permissions')).toEqual([
      'an object-valued body property: only scalar properties are imported',
    ]);
  });

  it('Twilio API v2010 (OpenAPI 3.0.1): form bodies and {Sid}.json segments are skipped, basic auth is not imported', async () => {
    const result = await importDoc(fixture('twilio-api-v2010.json'), { namePrefix: 'custom.twilio' });
    expect(result).toMatchObject({ title: 'Twilio - Api', server_url: 'https://api.twilio.com', server_path_prefix: '' });
    expect(result.drafts).toHaveLength(97);
    expect(result.skipped).toHaveLength(132);
    expect(result.skipped.filter((s) => s.reason.includes('mixes a parameter with text'))).toHaveLength(98);
    expect(result.skipped.filter((s) => s.reason.startsWith('a non-JSON request body (application/x-www-form-urlencoded)'))).toHaveLength(34);
    const calls = draftAt(result, 'GET /2010-04-01/Accounts/{AccountSid}/Calls.json');
    expect(calls.spec.name).toBe('custom.twilio.list_call');
    expect(calls.spec.http?.path).toBe('/2010-04-01/Accounts/{{ inputs.account_sid }}/Calls.json');
    expect(calls.spec.http?.query).toMatchObject({ To: '{{ inputs.to }}', From: '{{ inputs.from }}', PageSize: '{{ inputs.page_size }}' });
    expect(calls.spec.inputs.find((i) => i.name === 'page_size')).toMatchObject({ type: 'integer', required: false });
    expect(calls.notes.some((n) => n.startsWith('Authentication is not imported: the document asks for accountSid_authToken (HTTP basic)'))).toBe(true);
    expect(skipsAt(result, 'POST /2010-04-01/Accounts/{AccountSid}/Calls.json body')).toEqual([
      'a non-JSON request body (application/x-www-form-urlencoded): only JSON bodies are imported',
    ]);
  });

  it('DigitalOcean API v2 (1 MB, OpenAPI 3.0.0): cloud firewalls, bearer auth not imported', async () => {
    const result = await importDoc(fixture('digitalocean-api-v2.json'), { namePrefix: 'custom.digitalocean' });
    expect(result).toMatchObject({ title: 'DigitalOcean API', server_url: 'https://api.digitalocean.com', server_path_prefix: '' });
    expect(result.drafts).toHaveLength(200);
    expect(result.skipped).toHaveLength(177);
    expect(result.skipped.filter((s) => s.reason.startsWith('past the import limit'))).toHaveLength(86);
    const firewall = draftAt(result, 'GET /v2/firewalls/{firewall_id}');
    expect(firewall.spec).toMatchObject({
      name: 'custom.digitalocean.firewalls_get',
      title: 'Retrieve an Existing Firewall',
      inputs: [{ name: 'firewall_id', type: 'string', required: true, secret: false }],
      http: { method: 'GET', path: '/v2/firewalls/{{ inputs.firewall_id }}', headers: {}, query: {}, body: null },
      outputs: [],
    });
    expect(firewall.notes).toContain(
      'Authentication is not imported: the document asks for bearer_auth (HTTP bearer); run the action with a connection that carries the credentials.',
    );
    expect(firewall.notes.some((n) => n.includes('e.g. $.firewall.<field>'))).toBe(true);
    const create = draftAt(result, 'POST /v2/firewalls');
    expect(create.spec.http?.body).toEqual({ name: '{{ inputs.name }}' });
    expect(create.suggested_risk).toBe('write');
  });

  it('Jira Cloud platform (1.8 MB) is refused: its schemas are recursive', async () => {
    const error = await refusal(() => loadOpenApiDocument(fixture('jira-cloud-platform.json')));
    expect({ status: error.status, code: error.code }).toEqual({ status: 422, code: 'openapi_ref_cycle' });
    expect(error.params.cycles).toContain('#/components/schemas/LinkGroup/properties/groups/items');
  });

  it('the Okta management API is Swagger 2.0 (YAML) and refused as such', async () => {
    const error = await refusal(() => loadOpenApiDocument(fixture('okta-management-swagger2.yaml')));
    expect({ status: error.status, code: error.code, params: error.params }).toEqual({
      status: 422,
      code: 'openapi_version_unsupported',
      params: { version: '2.0', supported: ['3.0', '3.1'] },
    });
  });
});
