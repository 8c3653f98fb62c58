/**
 * `POST /custom-actions/import/openapi` on the real service, on every engine (SPEC.md
 * "Actions and connections", "OpenAPI import rules"): a real 13 MB vendor document is
 * imported past the general body limit (the route has its own, sized to
 * SVC_MAX_OPENAPI_KB); a document over the cap is 413; Swagger 2.0, cycles, remote refs,
 * malformed text and non-documents are 422 with their codes, and a remote `$ref` is never
 * fetched; only `manage_connections` may import; nothing is ever written (the event store
 * head and the audit log stay where they were); and a draft saves as it is through
 * `POST /custom-actions`.
 */
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { assertionAs, callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const fixture = (file: string) => readFileSync(join(import.meta.dirname, '../fixtures/openapi', file), 'utf8');
/** 16 MiB: room for the 13 MB GitHub document; the general body limit stays at its 1 MiB default. */
const CAP_KB = 16 * 1024;
const IMPORT = '/custom-actions/import/openapi';

/** POSTs to `path` as root with a Content-Length of `declared` bytes, sends a few, and answers what the service says first. */
async function postDeclaring(svc: InProcessService, path: string, declared: number): Promise<{ status: number | undefined; body: unknown }> {
  const token = await assertionAs(svc, root, 'POST', path);
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(declared) },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode, body: JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.write('{"document": "');
  });
}

describe.each(e2eEngines)('OpenAPI import on $name', ({ server }) => {
  let svc: InProcessService;
  let remote: Server;
  let remoteHits = 0;
  const written = async () => ({
    head: await new PostgresEventStore(svc.service.opened.db).headPosition(),
    audit: (await callAs(svc, root, 'GET', '/audit/verify')).body.checked,
  });

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { listen: true, extraEnv: { SVC_MAX_OPENAPI_KB: String(CAP_KB) } });
    // What a remote $ref would be fetched from: loopback, which this service may reach (SVC_ALLOW_PRIVATE_TARGETS).
    remote = createServer((_req, res) => {
      remoteHits++;
      res.setHeader('content-type', 'application/json');
      res.end('{"type": "string"}');
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => remote?.close(resolve));
    await svc?.close();
  });

  it('imports the 13 MB GitHub REST document past the 1 MiB general body limit, writing nothing', async () => {
    const before = await written();
    const document = fixture('github-rest-api.json');
    expect(Buffer.byteLength(document)).toBeGreaterThan(12 * 1024 * 1024);
    const answer = await callAs(svc, root, 'POST', IMPORT, { document, name_prefix: 'custom.github' });
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.body).toMatchObject({ openapi_version: '3.0.3', server_url: 'https://api.github.com', server_path_prefix: '' });
    expect(answer.body.drafts).toHaveLength(200);
    expect(answer.body.skipped).toHaveLength(1064);
    const advisory = answer.body.drafts.find((d: { path: string }) => d.path === '/advisories/{ghsa_id}');
    expect(advisory).toMatchObject({
      method: 'GET',
      suggested_risk: 'read',
      spec: {
        name: 'custom.github.security_advisories_get_global_advisory',
        enabled: false,
        risk: 'arbitrary',
        effect_type: 'arbitrary',
        max_targets: null,
        max_attempts: 1,
        http: { method: 'GET', path: '/advisories/{{ inputs.ghsa_id }}', body: null },
      },
    });
    expect(await written()).toEqual(before);
    // The exemption is this route's only: another route still holds a body to 1 MiB.
    expect(await postDeclaring(svc, '/connections', 1024 * 1024 + 1)).toEqual({
      status: 413,
      body: { detail: `request body exceeds ${1024 * 1024} bytes`, code: 'payload_too_large', params: {} },
    });
  });

  it('imports the Twilio and DigitalOcean (1 MB) documents and a YAML one', async () => {
    const twilio = await callAs(svc, root, 'POST', IMPORT, { document: fixture('twilio-api-v2010.json'), name_prefix: 'custom.twilio' });
    expect(twilio.status).toBe(200);
    expect([twilio.body.drafts.length, twilio.body.skipped.length]).toEqual([97, 132]);
    const digitalocean = await callAs(svc, root, 'POST', IMPORT, { document: fixture('digitalocean-api-v2.json'), name_prefix: 'custom.digitalocean' });
    expect(digitalocean.status).toBe(200);
    expect([digitalocean.body.drafts.length, digitalocean.body.skipped.length]).toEqual([200, 177]);
    const yaml = await callAs(svc, root, 'POST', IMPORT, {
      document:
        'openapi: 3.1.0\ninfo: {title: Acme, version: "1"}\nservers: [{url: "https://acme.test/api"}]\npaths:\n  /hosts/{id}:\n    get:\n      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]\n      responses: {"200": {description: ok}}\n',
      name_prefix: 'custom.acme',
    });
    expect(yaml.status).toBe(200);
    expect(yaml.body.drafts[0].spec).toMatchObject({ name: 'custom.acme.get_hosts_id', http: { path: '/api/hosts/{{ inputs.id }}' } });
    // A draft is a custom action as POST /custom-actions takes it: arbitrary, so a global administrator acknowledges the danger.
    const saved = await callAs(svc, root, 'POST', '/custom-actions', { spec: twilio.body.drafts[0].spec, acknowledge_danger: true });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ name: twilio.body.drafts[0].spec.name, enabled: false, version: 1 });
  });

  it('answers 413 in the error shape past SVC_MAX_OPENAPI_KB, and past the route body limit', async () => {
    const header = 'openapi: 3.1.0\ninfo: {title: padded, version: "1"}\npaths: {}\n';
    const document = `${header}#${'x'.repeat(CAP_KB * 1024 - header.length)}`;
    expect(Buffer.byteLength(document)).toBe(CAP_KB * 1024 + 1);
    const over = await callAs(svc, root, 'POST', IMPORT, { document, name_prefix: 'custom.acme' });
    expect(over.status).toBe(413);
    expect(over.body).toEqual({
      detail: `the document is ${CAP_KB * 1024 + 1} bytes, over the ${CAP_KB} KiB cap (SVC_MAX_OPENAPI_KB)`,
      code: 'openapi_document_too_large',
      params: { max_kb: CAP_KB, size_bytes: CAP_KB * 1024 + 1 },
    });
    const atCap = await callAs(svc, root, 'POST', IMPORT, { document: document.slice(0, -1), name_prefix: 'custom.acme' });
    expect(atCap.status).toBe(200);
    // A body declared larger than twice the cap plus 64 KiB is refused before it is read.
    const routeLimit = 2 * CAP_KB * 1024 + 64 * 1024;
    expect(await postDeclaring(svc, IMPORT, routeLimit + 1)).toEqual({
      status: 413,
      body: { detail: `request body exceeds ${routeLimit} bytes`, code: 'payload_too_large', params: {} },
    });
  });

  it('refuses Swagger 2.0, cycles, remote refs (never fetched), malformed text and non-documents with 422 and a code', async () => {
    const before = await written();
    const port = (remote.address() as AddressInfo).port;
    const remoteRef = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'remote', version: '1' },
      paths: {
        '/a': {
          get: {
            parameters: [{ name: 'q', in: 'query', schema: { $ref: `http://127.0.0.1:${port}/schemas/q.json` } }],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    });
    const cases: [string, string, string][] = [
      ['okta (Swagger 2.0)', fixture('okta-management-swagger2.yaml'), 'openapi_version_unsupported'],
      ['jira (recursive schemas)', fixture('jira-cloud-platform.json'), 'openapi_ref_cycle'],
      ['a remote $ref', remoteRef, 'openapi_external_ref'],
      ['broken JSON', '{"openapi": "3.1.0", "paths": {', 'openapi_malformed'],
      ['broken YAML', 'openapi: 3.1.0\npaths: {\n', 'openapi_malformed'],
      ['a plain text', 'hello world', 'openapi_not_a_document'],
      ['OpenAPI 3.2', '{"openapi": "3.2.0", "info": {}, "paths": {}}', 'openapi_version_unsupported'],
    ];
    for (const [what, document, code] of cases) {
      const answer = await callAs(svc, root, 'POST', IMPORT, { document, name_prefix: 'custom.acme' });
      expect({ what, status: answer.status, code: answer.body.code }).toEqual({ what, status: 422, code });
      expect(typeof answer.body.detail).toBe('string');
    }
    expect(remoteHits).toBe(0);
    expect(await written()).toEqual(before);
  });

  it('needs manage_connections, a name prefix of custom.<segment> and a document', async () => {
    const document = '{"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "paths": {}}';
    expect((await callAs(svc, ana, 'POST', IMPORT, { document, name_prefix: 'custom.acme' })).status).toBe(403);
    const badPrefix = await callAs(svc, root, 'POST', IMPORT, { document, name_prefix: 'acme' });
    expect(badPrefix.status).toBe(422);
    expect(badPrefix.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([['body', 'name_prefix']]);
    const empty = await callAs(svc, root, 'POST', IMPORT, { document: '', name_prefix: 'custom.acme' });
    expect(empty.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([['body', 'document']]);
    const ok = await callAs(svc, root, 'POST', IMPORT, { document, name_prefix: 'custom.acme' });
    expect(ok.body).toEqual({ title: 'x', openapi_version: '3.1.0', server_url: null, server_path_prefix: '', drafts: [], skipped: [] });
  });
});
