/**
 * The response policy routes on the real service, on every engine (SPEC.md "Response
 * policy"; docs/containment.md): the default before any publish, bindable actions from the
 * live registry, append-only publishing with the audit entry, no version for an unchanged
 * document, a stale base version refused, and every document the runtime cannot evaluate
 * refused with nothing published. Every answer is checked against /openapi.json by callAs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionListed, callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);

const customAction = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  title: name,
  transport: 'http',
  inputs: [{ name: 'ip', type: 'string', required: true }],
  http: { method: 'POST', path: '/rules', body: { ip: '{{ inputs.ip }}' } },
  effect_type: 'notify',
  risk: 'write',
  target: { type: 'ip', input: 'ip' },
  ...over,
});
const binding = (over: Record<string, unknown> = {}) => ({
  effect_type: 'block',
  target_type: 'ip',
  adapter_id: 'lab_waf',
  block_action: 'custom.lab_waf.block',
  unblock_action: 'custom.lab_waf.unblock',
  status_action: 'custom.lab_waf.status',
  connection_name: 'waf',
  parameters: { zone: 'z-1' },
  ...over,
});
const document = (over: Record<string, unknown> = {}) => ({
  protected_targets: [
    { type: 'ip', value: '10.0.0.0/8' },
    { type: 'ip', value: '::FFFF:192.0.2.10' },
    { type: 'domain', value: 'Login.Example.COM.' },
  ],
  ttl: { min_seconds: 300, max_seconds: 86_400 },
  automatic_grants: [{ effect_type: 'block', target_type: 'ip', max_ttl_seconds: 3600, severities: ['critical'] }],
  adapters: [binding()],
  ...over,
});

describe.each(e2eEngines)('response policy routes on $name', ({ server }) => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService({ server });
    for (const [name, over] of [
      ['custom.lab_waf.block', { compensation: { action: 'custom.lab_waf.unblock' } }],
      ['custom.lab_waf.unblock', {}],
      ['custom.lab_waf.status', { risk: 'read', effect_type: 'enrich', http: { method: 'GET', path: '/rules/{{ inputs.ip }}' } }],
    ] as const) {
      const created = await callAs(svc, root, 'POST', '/custom-actions', { spec: customAction(name, over) });
      expect(created.status, created.text).toBe(201);
    }
    const shell = await callAs(svc, root, 'POST', '/custom-actions', {
      spec: { name: 'custom.lab.shell', title: 'Anything', transport: 'ssh', ssh: { command: '/bin/true' }, effect_type: 'arbitrary', risk: 'arbitrary' },
      acknowledge_danger: true,
    });
    expect(shell.status, shell.text).toBe(201);
    for (const name of ['custom.lab_waf.status', 'custom.lab.shell']) await actionListed(svc, root, name);
  }, 60_000);
  afterAll(async () => svc?.close());

  const versions = async () => (await callAs(svc, root, 'GET', '/response-policy/versions')).body.items as any[];
  const audits = async () => (await callAs(svc, root, 'GET', '/audit?action=response_policy.publish')).body.items as any[];

  it('answers the default policy at version 0 with the bindable actions, to global administrators only', async () => {
    const res = await callAs(svc, root, 'GET', '/response-policy');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      version: 0,
      digest: null,
      protected_targets: [],
      ttl: { min_seconds: 60, max_seconds: 86_400 },
      automatic_grants: [],
      adapters: [],
    });
    const names = (res.body.bindable_actions as any[]).map((a) => a.name);
    expect(res.body.bindable_actions).toContainEqual({
      name: 'custom.lab_waf.status',
      connection_kind: 'http',
      risk: 'read',
      source: 'custom',
      effect_type: 'enrich',
      target_type: 'ip',
      compensation: null,
    });
    expect(res.body.bindable_actions).toContainEqual(expect.objectContaining({ name: 'custom.lab_waf.block', compensation: 'custom.lab_waf.unblock' }));
    expect(names.some((n: string) => n.startsWith('response.'))).toBe(false);
    expect(names).not.toContain('custom.lab.shell');
    for (const who of [ana, blueAdmin]) {
      expect((await callAs(svc, who, 'GET', '/response-policy')).status).toBe(403);
      expect((await callAs(svc, who, 'PUT', '/response-policy', document())).status).toBe(403);
    }
  });

  it('refuses every document the runtime cannot evaluate, publishing nothing', async () => {
    const refused = await callAs(
      svc,
      root,
      'PUT',
      '/response-policy',
      document({
        protected_targets: [{ type: 'domain', value: '*.example.com' }],
        ttl: { min_seconds: 600, max_seconds: 300 },
        adapters: [binding({ block_action: 'custom.lab_waf.nope', unblock_action: 'response.ip_unblock', status_action: 'custom.lab.shell' })],
      }),
    );
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.detail.map((d: any) => [d.loc.join('.'), d.type])).toEqual([
      ['body.protected_targets.0.value', 'protected_target_invalid'],
      ['body.ttl', 'ttl_range_invalid'],
      ['body.automatic_grants.0.max_ttl_seconds', 'grant_ttl_over_policy'],
      ['body.adapters.0.block_action', 'binding_action_unregistered'],
      ['body.adapters.0.unblock_action', 'binding_action_managed'],
      ['body.adapters.0.status_action', 'binding_action_arbitrary'],
    ]);
    for (const body of [document({ ttl: { min_seconds: 0, max_seconds: 300 } }), document({ ttl: undefined }), { ...document(), extra: 1 }]) {
      expect((await callAs(svc, root, 'PUT', '/response-policy', body)).status).toBe(422);
    }
    expect(await versions()).toEqual([]);
    expect(await audits()).toEqual([]);
  });

  it('publishes append-only: a new audited version per change, none for the same document, 409 on a stale base version', async () => {
    const first = await callAs(svc, root, 'PUT', '/response-policy', { ...document(), base_version: 0 });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ version: 1, published_by: 'root@example.com', digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(first.body.protected_targets).toEqual([
      { type: 'ip', value: '10.0.0.0/8' },
      { type: 'ip', value: '192.0.2.10' },
      { type: 'domain', value: 'login.example.com' },
    ]);
    expect(first.body.adapters).toEqual([binding()]);

    const again = await callAs(svc, root, 'PUT', '/response-policy', document());
    expect(again.body).toMatchObject({ version: 1, digest: first.body.digest });

    const stale = await callAs(svc, root, 'PUT', '/response-policy', { ...document({ automatic_grants: [] }), base_version: 0 });
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body).toMatchObject({ code: 'response_policy_version_conflict', params: { current_version: 1, base_version: 0 } });

    const second = await callAs(svc, root, 'PUT', '/response-policy', { ...document({ automatic_grants: [] }), base_version: 1 });
    expect(second.body).toMatchObject({ version: 2, automatic_grants: [] });
    expect((await callAs(svc, root, 'GET', '/response-policy')).body).toMatchObject({ version: 2, digest: second.body.digest });

    const history = await versions();
    expect(history.map((h) => [h.version, h.digest])).toEqual([
      [2, second.body.digest],
      [1, first.body.digest],
    ]);
    expect(history[1].automatic_grants).toHaveLength(1);
    const entries = await audits();
    expect(entries).toHaveLength(2);
    expect(entries.map((e) => e.detail.digest).sort()).toEqual([first.body.digest, second.body.digest].sort());
    expect(entries[0]).toMatchObject({ actor: { email: 'root@example.com' }, target: { type: 'response_policy' } });
    expect(JSON.stringify(entries)).not.toContain('z-1');
    expect((await callAs(svc, root, 'GET', '/audit/verify')).body.valid).toBe(true);
  });
});
