/**
 * Integration packs through the API on every engine (SPEC.md "Integration packs",
 * "Integration pack"; docs/integration-packs.md): the registry with verification and
 * install state, a preview that writes nothing, install with its consent, a local edit
 * seen as drift, an upgrade refused without consent, while a run uses a changed action,
 * and with a stale token, then carried out whole with audit entries; managed effect types
 * allowed from a pack only; the arbitrary tier's acknowledgement and administrator; the
 * export of API-authored actions as a pack whose integrity verifies. Every answer is
 * checked against /openapi.json by callAs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packDigest, readPackText } from '../../domain/integration-packs/integrity.ts';
import { recordedEvents } from '../support/events.ts';
import { assertionAs, callAs, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { packText, writeRegistry, type RegistryFile } from '../support/pack-registry.ts';
import { startReceiver } from '../support/receiver.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);

const lookup = (title = 'Look an IP up') => ({
  spec: {
    name: 'custom.lab_tools.lookup',
    title,
    transport: 'http',
    inputs: [{ name: 'ip', type: 'string', required: true }],
    http: { method: 'GET', path: '/lookup/{{ inputs.ip }}' },
    outputs: [{ name: 'score', path: '$.score', type: 'integer' }],
    effect_type: 'enrich',
    risk: 'read',
    target: { type: 'ip', input: 'ip' },
  },
  fixtures: [{ name: 'bad_ip', input: { ip: '203.0.113.7' }, response: { status: 200, body: { score: 97 } }, expect: { score: 97 } }],
});
const block = (timeout = 30) => ({
  spec: {
    name: 'custom.lab_tools.block',
    title: 'Block an IP at the lab firewall',
    transport: 'http',
    inputs: [{ name: 'ip', type: 'string', required: true }],
    http: { method: 'POST', path: '/blocks', body: { ip: '{{ inputs.ip }}' } },
    effect_type: 'block',
    risk: 'write',
    target: { type: 'ip', input: 'ip' },
    timeout_s: timeout,
  },
});
const old = {
  spec: {
    name: 'custom.lab_tools.old',
    title: 'Retired lookup',
    transport: 'http',
    http: { method: 'GET', path: '/old' },
    effect_type: 'enrich',
    risk: 'read',
  },
};
const note = {
  spec: {
    name: 'custom.lab_tools.note',
    title: 'Leave a note',
    transport: 'http',
    http: { method: 'POST', path: '/notes' },
    effect_type: 'notify',
    risk: 'write',
  },
};

const v1 = packText({ name: 'lab_tools', version: '1.0.0', actions: [lookup(), block(), old] });
const v11 = packText({ name: 'lab_tools', version: '1.1.0', actions: [lookup('Look an IP up (v2 API)'), block(45), note] });
const broken: RegistryFile = { id: 'broken', version: '1.0.0', text: packText({ name: 'broken', version: '1.0.0', actions: [note] }), sha256: '0'.repeat(64) };
const alien: RegistryFile = {
  id: 'alien',
  version: '1.0.0',
  text: packText({
    name: 'alien',
    version: '1.0.0',
    connection_kinds: ['http', 'carrier_pigeon'],
    actions: [{ spec: { ...note.spec, name: 'custom.alien.note' } }],
  }),
};
const danger: RegistryFile = {
  id: 'danger',
  version: '1.0.0',
  text: packText({
    name: 'danger',
    version: '1.0.0',
    connection_kinds: ['ssh'],
    actions: [
      {
        spec: { name: 'custom.danger.shell', title: 'Anything', transport: 'ssh', ssh: { command: '/bin/true' }, effect_type: 'arbitrary', risk: 'arbitrary' },
      },
    ],
  }),
};

type Plan = { preview_token: string; kind: string; actions: any[]; drift: any[]; blocking_runs: any[]; requires_acknowledge_danger: boolean };

describe.each(e2eEngines)('integration packs on $name', ({ server }) => {
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const requests: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'svc-it-packs-'));
  const publish = (lab: string, labVersion: string) => writeRegistry(dir, [{ id: 'lab_tools', version: labVersion, text: lab }, broken, alien, danger]);

  beforeAll(async () => {
    publish(v1, '1.0.0');
    receiver = await startReceiver((req, res) => {
      requests.push(`${req.method} ${req.path}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ score: 97 }));
    });
    svc = await startInProcessService({ server }, { extraEnv: { SVC_PACKS_DIR: dir } });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const registry = async () => {
    const res = await callAs(svc, root, 'GET', '/integration-packs/registry');
    expect(res.status, res.text).toBe(200);
    return Object.fromEntries((res.body.items as any[]).map((i) => [i.id, i]));
  };
  const preview = async (id: string): Promise<Plan> => {
    const res = await callAs(svc, root, 'POST', `/integration-packs/registry/${id}/preview`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  /** Pack, custom action and audit events: what a refused install must leave as it was. */
  const written = async () => (await recordedEvents(svc.service.opened.db, (e) => /^(integration_pack|custom_action)\.|^audit\.recorded$/.test(e.type))).length;
  const actionsByName = async () => Object.fromEntries(((await callAs(svc, root, 'GET', '/custom-actions')).body.items as any[]).map((a) => [a.name, a]));

  it('lists the registry with verification and install state, and refuses what does not verify', async () => {
    const packs = await registry();
    expect(packs.lab_tools).toEqual({
      id: 'lab_tools',
      metadata: {
        name: 'lab_tools',
        version: '1.0.0',
        title: 'lab_tools test pack',
        description: '',
        publisher: 'svc tests',
        requires: { service: '*' },
        connection_kinds: ['http'],
      },
      file: 'lab_tools.yaml',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      signature_state: 'unverified',
      verified: true,
      install_state: 'not_installed',
      installed_version: null,
      available: true,
      refusal: null,
    });
    // A file that does not verify is not read: its metadata is what the index says.
    expect(packs.broken).toMatchObject({
      metadata: { name: 'broken', version: '1.0.0', title: 'broken test pack', requires: null, connection_kinds: null },
      verified: false,
      available: false,
      refusal: { code: 'pack_checksum_mismatch' },
    });
    // A verified pack that cannot be installed still shows its own metadata, the kinds it needs included.
    expect(packs.alien).toMatchObject({
      metadata: { name: 'alien', requires: { service: '*' }, connection_kinds: ['http', 'carrier_pigeon'] },
      verified: true,
      available: false,
      refusal: { code: 'pack_unknown_connection_kind', params: { kinds: ['carrier_pigeon'] } },
    });

    const before = await written();
    for (const id of ['broken', 'alien']) {
      const refused = await callAs(svc, root, 'POST', `/integration-packs/registry/${id}/preview`);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.code).toBe(packs[id].refusal.code);
    }
    expect((await callAs(svc, root, 'POST', '/integration-packs/registry/nope/preview')).body.code).toBe('pack_not_found');
    expect((await callAs(svc, root, 'POST', '/integration-packs/registry/NOT%20AN%20ID/preview')).status).toBe(422);
    expect((await callAs(svc, ana, 'GET', '/integration-packs/registry')).status).toBe(403);
    expect(await written()).toBe(before);
  });

  it('installs with the previewed plan: pack actions, managed effect type included, audited; a stale token or missing body writes nothing', async () => {
    const plan = await preview('lab_tools');
    expect(plan).toMatchObject({ kind: 'install', from_version: null, to_version: '1.0.0', drift: [], blocking_runs: [], requires_acknowledge_danger: false });
    expect(plan.actions.map((a) => [a.name, a.change, a.version_after])).toEqual([
      ['custom.lab_tools.lookup', 'create', 1],
      ['custom.lab_tools.block', 'create', 1],
      ['custom.lab_tools.old', 'create', 1],
    ]);
    expect(await preview('lab_tools')).toEqual(plan);

    const before = await written();
    const stale = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/install', { preview_token: 'f'.repeat(64) });
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body.code).toBe('pack_preview_stale');
    expect((await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/install', {})).status).toBe(422);
    expect((await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/upgrade', { preview_token: plan.preview_token })).body.code).toBe(
      'pack_not_installed',
    );
    expect(await written()).toBe(before);

    const installed = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/install', { preview_token: plan.preview_token });
    expect(installed.status, installed.text).toBe(200);
    expect(installed.body).toMatchObject({ pack_id: 'lab_tools', version: '1.0.0' });
    const actions = await actionsByName();
    expect(actions['custom.lab_tools.block']).toMatchObject({ version: 1, enabled: true, source: 'pack', spec: { effect_type: 'block' } });
    expect(installed.body.actions).toContainEqual({ name: 'custom.lab_tools.block', custom_action_id: actions['custom.lab_tools.block'].id, version: 1 });
    expect((await registry()).lab_tools).toMatchObject({ install_state: 'installed', installed_version: '1.0.0' });
    expect((await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/preview')).body.code).toBe('pack_installed');

    const audit = await callAs(svc, root, 'GET', '/audit?action=integration_pack.install');
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({
      target: { type: 'integration_pack', id: 'lab_tools' },
      detail: { version: '1.0.0', sha256: plan.actions && expect.any(String) },
    });
    const created = await callAs(svc, root, 'GET', '/audit?action=custom_action.create');
    expect(created.body.items.filter((e: any) => e.detail.source === 'pack')).toHaveLength(3);
  });

  it('upgrades only with consent: drift from a local edit, runs using changed actions and a stale token refuse it; then it lands whole', async () => {
    const local = await actionsByName();
    const blockId = local['custom.lab_tools.block'].id;
    const edited = await callAs(svc, root, 'PUT', `/custom-actions/${blockId}`, {
      spec: { ...block(10).spec, effect_type: 'notify', title: 'Edited here' },
    });
    expect(edited.status, edited.text).toBe(200);

    publish(v11, '1.1.0');
    expect((await registry()).lab_tools).toMatchObject({ metadata: { version: '1.1.0' }, install_state: 'upgrade_available', installed_version: '1.0.0' });

    const kase = await callAs(svc, root, 'POST', '/cases', { title: 'Pack upgrade', severity: 'low', team: null });
    const saved = await callAs(svc, root, 'POST', '/runbooks/gated-lookup', {
      yaml_text: `id: gated-lookup
name: gated-lookup
version: 1
trigger: { type: manual }
steps:
  - id: look
    action: custom.lab_tools.lookup
    with: { ip: "203.0.113.7", connection: "lab" }
    approval: { roles: [admin] }
`,
    });
    expect(saved.status, saved.text).toBeLessThan(300);
    const queued = await callAs(svc, root, 'POST', `/cases/${kase.body.id}/runbooks/gated-lookup/run`, {});
    expect(queued.status, queued.text).toBe(202);
    const runId = queued.body.id;
    await runWhen(svc, root, runId, /^waiting_approval$/);

    const blocked = await preview('lab_tools');
    expect(blocked).toMatchObject({ kind: 'upgrade', from_version: '1.0.0', to_version: '1.1.0' });
    expect(blocked.actions.map((a) => [a.name, a.change, a.current_version, a.version_after])).toEqual([
      ['custom.lab_tools.lookup', 'update', 1, 2],
      ['custom.lab_tools.block', 'overwrite', 2, 3],
      ['custom.lab_tools.note', 'create', null, 1],
      ['custom.lab_tools.old', 'disable', 1, 1],
    ]);
    expect(blocked.drift).toEqual([
      { custom_action_id: blockId, name: 'custom.lab_tools.block', reason: 'edited_locally', installed_version: 1, current_version: 2 },
    ]);
    expect(blocked.blocking_runs).toEqual([{ run_id: runId, runbook_id: 'gated-lookup', status: 'waiting_approval', actions: ['custom.lab_tools.lookup'] }]);

    const before = await written();
    const byRuns = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/upgrade', {
      preview_token: blocked.preview_token,
      accepted_overwrite_ids: [blockId],
    });
    expect(byRuns.status, byRuns.text).toBe(409);
    expect(byRuns.body).toMatchObject({ code: 'pack_blocked_by_runs', params: { runs: [runId] } });

    expect((await callAs(svc, root, 'POST', `/runs/${runId}/cancel`, {})).status).toBeLessThan(300);
    await runWhen(svc, root, runId, /^cancelled$/);
    const stale = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/upgrade', {
      preview_token: blocked.preview_token,
      accepted_overwrite_ids: [blockId],
    });
    expect(stale.body.code).toBe('pack_preview_stale');

    const plan = await preview('lab_tools');
    expect(plan.blocking_runs).toEqual([]);
    const unaccepted = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/upgrade', { preview_token: plan.preview_token });
    expect(unaccepted.status, unaccepted.text).toBe(409);
    expect(unaccepted.body).toMatchObject({ code: 'pack_overwrite_unaccepted', params: { custom_action_ids: [blockId] } });
    expect(await written()).toBe(before);

    const upgraded = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/upgrade', {
      preview_token: plan.preview_token,
      accepted_overwrite_ids: [blockId],
    });
    expect(upgraded.status, upgraded.text).toBe(200);
    const after = await actionsByName();
    expect(after['custom.lab_tools.block']).toMatchObject({
      version: 3,
      source: 'pack',
      spec: { effect_type: 'block', timeout_s: 45, title: 'Block an IP at the lab firewall' },
    });
    expect(after['custom.lab_tools.lookup']).toMatchObject({ version: 2, spec: { title: 'Look an IP up (v2 API)' } });
    expect(after['custom.lab_tools.note']).toMatchObject({ version: 1, enabled: true });
    expect(after['custom.lab_tools.old']).toMatchObject({ version: 1, enabled: false });
    expect((await registry()).lab_tools).toMatchObject({ install_state: 'installed', installed_version: '1.1.0' });
    const audit = await callAs(svc, root, 'GET', '/audit?action=integration_pack.upgrade');
    expect(audit.body.items[0]).toMatchObject({ detail: { from_version: '1.0.0', version: '1.1.0', overwritten_ids: [blockId] } });

    publish(v1, '1.0.0');
    expect((await registry()).lab_tools).toMatchObject({ install_state: 'installed_ahead', installed_version: '1.1.0' });
    expect((await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/preview')).body.code).toBe('pack_installed_ahead');
  });

  it('tests a pack row by row: fixtures without I/O, executions only against a test-mode connection, effectful ones without a fixture skipped; audited', async () => {
    publish(v11, '1.1.0');
    for (const [name, testMode] of [
      ['lab-sandbox', true],
      ['lab-prod', false],
    ] as const) {
      const conn = await callAs(svc, root, 'POST', '/connections', {
        kind: 'http',
        name,
        base_url: receiver.url,
        secret: 'k',
        config: { test_mode: testMode },
      });
      expect(conn.status, conn.text).toBe(201);
    }
    const rowsOf = (body: any) => Object.fromEntries((body.rows as any[]).map((r) => [`${r.action.split('.').pop()} ${r.check}`, r.status]));

    const offline = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/test', {});
    expect(offline.status, offline.text).toBe(200);
    expect(rowsOf(offline.body)).toMatchObject({
      'lookup compiles': 'pass',
      'lookup fixtures': 'pass',
      'lookup template': 'pass',
      'lookup connection': 'skipped',
      'lookup execution': 'skipped',
      'block fixtures': 'skipped',
      'block execution': 'skipped',
    });
    expect(offline.body.summary.fail).toBe(0);

    const prod = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/test', { connections: { http: 'lab-prod' } });
    expect(rowsOf(prod.body)).toMatchObject({ 'lookup connection': 'fail', 'lookup execution': 'skipped' });
    expect(requests).toEqual([]);

    const sandbox = await callAs(svc, root, 'POST', '/integration-packs/registry/lab_tools/test', { connections: { http: 'lab-sandbox' } });
    expect(sandbox.status, sandbox.text).toBe(200);
    expect(rowsOf(sandbox.body)).toMatchObject({
      'lookup connection': 'pass',
      'lookup execution': 'pass',
      'block execution': 'skipped',
      'note execution': 'skipped',
    });
    expect(requests).toEqual(['GET /lookup/203.0.113.7']);

    const audit = await callAs(svc, root, 'GET', '/audit?action=integration_pack.test');
    expect(audit.body.items).toHaveLength(3);
    expect(audit.body.items.find((e: any) => e.detail.connections.http === 'lab-sandbox')).toMatchObject({
      target: { id: 'lab_tools' },
      detail: { version: '1.1.0', pass: sandbox.body.summary.pass, fail: 0 },
    });
    expect((await callAs(svc, root, 'POST', '/integration-packs/registry/broken/test', {})).body.code).toBe('pack_checksum_mismatch');
  });

  it('installs an arbitrary-tier pack only for a global administrator who acknowledges the danger', async () => {
    const plan = await preview('danger');
    expect(plan.requires_acknowledge_danger).toBe(true);
    const before = await written();
    const unacknowledged = await callAs(svc, root, 'POST', '/integration-packs/registry/danger/install', { preview_token: plan.preview_token });
    expect(unacknowledged.status, unacknowledged.text).toBe(422);
    expect(unacknowledged.body.code).toBe('pack_danger_unacknowledged');
    const teamAdmin = await callAs(svc, blueAdmin, 'POST', '/integration-packs/registry/danger/install', {
      preview_token: plan.preview_token,
      acknowledge_danger: true,
    });
    expect(teamAdmin.status, teamAdmin.text).toBe(403);
    expect(await written()).toBe(before);
    const installed = await callAs(svc, root, 'POST', '/integration-packs/registry/danger/install', {
      preview_token: plan.preview_token,
      acknowledge_danger: true,
    });
    expect(installed.status, installed.text).toBe(200);
  });

  it('exports the API-authored custom actions as a credential-free pack whose integrity verifies', async () => {
    const created = await callAs(svc, root, 'POST', '/custom-actions', {
      spec: {
        name: 'custom.intel.whois',
        title: 'Whois',
        transport: 'http',
        default_connection: 'intel-prod',
        inputs: [{ name: 'domain', type: 'string', required: true }],
        http: { method: 'GET', path: '/whois/{{ inputs.domain }}' },
        effect_type: 'enrich',
        risk: 'read',
      },
    });
    expect(created.status, created.text).toBe(201);
    const path = '/integration-packs/export?name=intel_pack&version=2.0.0';
    const res = await svc.request(path, { headers: { authorization: `Bearer ${await assertionAs(svc, root, 'GET', path)}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/yaml');
    const text = await res.text();
    const read = readPackText(text);
    if (!read.ok) throw new Error(read.msg);
    expect(read.trailing).toBe(true);
    expect(read.integrity).toEqual({ algorithm: 'sha256', digest: packDigest(read.data) });
    expect(read.data).toMatchObject({ name: 'intel_pack', version: '2.0.0', connection_kinds: ['http'] });
    const names = (read.data.actions as any[]).map((a) => a.spec.name);
    expect(names).toContain('custom.intel.whois');
    expect(names.some((n: string) => n.startsWith('custom.lab_tools.'))).toBe(false);
    expect(text).not.toContain('intel-prod');
  });
});
