/**
 * The OpenAPI document `/openapi.json` serves (docs/architecture.md "OpenAPI document"), on one engine (the
 * document does not depend on it): the resources a client reads are named component
 * schemas, each route declares the credential it really takes, every operation but the
 * MCP transport's GET declares a success answer (the one case Redocly's
 * `operation-2xx-response` rule is switched off for, redocly.yaml), and the console's
 * committed types are what openapi-typescript generates from this document, so a response
 * schema changed on the server without `make console-types` fails here.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runbookJsonSchema } from '../../adapters/runbooks/json-schema.ts';
import { apiTypesPath, apiTypesText } from '../../console/api-types.ts';
import { type InProcessService, startInProcessService } from '../support/in-process-service.ts';

type Operation = { security?: unknown; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };
type Document = { security: unknown; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

describe('/openapi.json', () => {
  let svc: InProcessService;
  let doc: Document;

  beforeAll(async () => {
    svc = await startInProcessService({ server: false });
    doc = (await (await svc.request('/openapi.json')).json()) as Document;
  });
  afterAll(async () => svc?.close());

  const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
  const answer = (method: string, path: string, status: string) => doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema;

  it('names the resources as component schemas and refers to them', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Case', 'Alert', 'Run', 'RunDetail', 'Effect', 'Task', 'Comment', 'Runbook', 'Connection', 'ErrorBody', 'ValidationError']),
    );
    expect(answer('get', '/cases/{id}', '200')).toEqual({ $ref: '#/components/schemas/Case' });
    expect(answer('get', '/runs/{id}', '200')).toEqual({ $ref: '#/components/schemas/RunDetail' });
    expect(answer('get', '/alerts', '200')).toMatchObject({ properties: { items: { items: { $ref: '#/components/schemas/Alert' } } } });
    expect(answer('get', '/effects', '200')).toMatchObject({ properties: { items: { items: { $ref: '#/components/schemas/Effect' } } } });
    // No case answer inlines the case shape again.
    expect(JSON.stringify(doc.paths).match(/"ack_sla"/g)).toBeNull();
  });

  it('declares the credential each route really takes, callerToken unless it says otherwise', () => {
    expect(doc.security).toEqual([{ callerToken: [] }]);
    const own = operations().flatMap(({ path, method, op }) => (op.security === undefined ? [] : [[`${method.toUpperCase()} ${path}`, op.security]]));
    expect(Object.fromEntries(own)).toEqual({
      'GET /healthz': [],
      'GET /metrics': [{ metricsToken: [] }, {}],
      'GET /schemas/runbook.json': [],
      'POST /webhooks/chat-interactions': [{ chatSignature: [] }],
      'POST /webhooks/detector': [{ webhookToken: [] }, { webhookBearer: [] }],
      'POST /webhooks/{slug}': [{ webhookToken: [] }, { webhookBearer: [] }, { pagerSignature: [] }],
    });
  });

  it('serves the runbook JSON Schema without a token, as application/schema+json (docs/configuration.md "Runbook editor support")', async () => {
    const res = await svc.request('/schemas/runbook.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/schema+json');
    expect(await res.json()).toEqual(runbookJsonSchema());
  });

  it('declares a success answer on every operation but GET /peer/v1/mcp, which only answers 405', () => {
    const without = operations()
      .filter(({ op }) => !Object.keys(op.responses).some((status) => /^2(\d\d|XX)$/.test(status)))
      .map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect(without).toEqual(['GET /peer/v1/mcp']);
  });

  it('is what the console was built against: console/src/api-types.ts is generated from it (make console-types)', async () => {
    const committed = await readFile(apiTypesPath, 'utf8');
    const generated = await apiTypesText(doc);
    expect(committed === generated, 'console/src/api-types.ts differs from the served /openapi.json: run `make console-types`').toBe(true);
  });
});
