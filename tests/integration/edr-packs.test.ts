/**
 * The shipped EDR host-isolation adapter packs against local stand-ins of their vendors'
 * APIs, on the embedded engine (peerEngines) (SPEC.md "Managed containment actions", shipped packs
 * `edr_isolate_a`: http, host, read declares `network_status` = `disconnected`;
 * `edr_isolate_c`: http oauth2, host, no read; `edr_contain_b`: http oauth2, host, reads
 * the device's own containment status, and a containment answer that does not name the
 * device is refused, never read as done). Each pack is installed from packs/ through
 * the registry, bound in the response policy as `contain`/`host` with an automatic grant,
 * and driven by `response.host_isolate`, `response.host_status` and
 * `response.host_release` in runbooks: the isolation lands at the stand-in and the effect
 * is active, the read-back answers what the pack declares, a release and a TTL end undo it
 * through the declared compensation, a vendor affecting nothing (or refusing) fails the
 * effect, and a protected host is refused before the stand-in sees anything.
 * tests/support/edr-servers.ts holds the stand-ins; the oauth2 token endpoint is the real
 * one of tests/support/oauth2-server.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import {
  startCrowdStrikeStandIn,
  startDefenderStandIn,
  startSentinelOneStandIn,
  type CrowdStrikeStandIn,
  type DefenderStandIn,
  type SentinelOneStandIn,
} from '../support/edr-servers.ts';
import { callAs, runWhen, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { startOAuth2Server, type OAuth2Server } from '../support/oauth2-server.ts';
import { adapterActions, expectFixturesPass, installPack, packBinding, publishBinding } from '../support/shipped-adapters.ts';
import { peerEngines } from '../support/service-process.ts';

/** A service start, a pack install and its binding: past 60 s in a pack's setup on a loaded CI machine. */
const SETUP_TIMEOUT_MS = 120_000;

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const PACKS_DIR = join(import.meta.dirname, '../../packs');
const PROTECTED_HOST = 'dc-01';

/** A manual runbook whose one step `act` runs `action` on the host input. */
const hostStepRunbookYaml = (slug: string, action: string, extra = ''): string => `
id: ${slug}
name: ${slug}
version: 1
trigger: { type: manual }
inputs:
  - { name: host, type: string, required: true }
steps:
  - id: act
    action: ${action}
    with: { host: "{{ inputs.host }}"${extra} }
`;

const runbooks = {
  'isolate.yml': hostStepRunbookYaml('host-isolate', 'response.host_isolate', ', ttl_seconds: 600, reason: "SVC-7: ransomware beacon"'),
  'isolate-short.yml': hostStepRunbookYaml('host-isolate-short', 'response.host_isolate', ', ttl_seconds: 60'),
  'status.yml': hostStepRunbookYaml('host-status', 'response.host_status'),
  'release.yml': hostStepRunbookYaml('host-release', 'response.host_release'),
};

/** Installs `pack` and publishes a policy binding it as `contain`/`host` on `connection`, protecting PROTECTED_HOST, with an automatic grant up to an hour. */
async function installAndBindHostAdapter(svc: InProcessService, who: TestPerson, pack: string, connection: string, withStatus: boolean): Promise<void> {
  const { block, unblock, status } = adapterActions(pack);
  await installPack(svc, who, pack, withStatus ? [block, unblock, status] : [block, unblock]);
  const binding = { effect_type: 'contain', target_type: 'host', ...packBinding(pack, connection, {}, withStatus) };
  await publishBinding(svc, who, binding, { type: 'host', value: PROTECTED_HOST }, true);
}

/** Runs runbook `slug` on `host` on a new case until it ends; the run and its `act` step's action-log row. */
async function runHostStep(svc: InProcessService, slug: string, host: string): Promise<{ run: any; step: any }> {
  const c = await callAs(svc, root, 'POST', '/cases', { title: `${slug} ${host}`, severity: 'high' });
  const queued = await callAs(svc, root, 'POST', `/cases/${c.body.id}/runbooks/${slug}/run`, { inputs: { host } });
  expect(queued.status, queued.text).toBe(202);
  const run = await runWhen(svc, root, queued.body.id, /^(succeeded|failed|waiting_approval)$/);
  return { run, step: run.action_log.find((row: any) => row.step_id === 'act') };
}

const effectsOn = async (svc: InProcessService, host: string): Promise<any[]> =>
  (await callAs(svc, root, 'GET', `/effects?target_type=host&target=${encodeURIComponent(host)}`)).body.items;

const effectStatus = async (svc: InProcessService, id: string): Promise<string> => (await callAs(svc, root, 'GET', `/effects/${id}`)).body.status;

describe.each(peerEngines)('the shipped edr_isolate_a pack on $name', ({ server }) => {
  const TOKEN = 's1-api-token-for-tests';
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let s1: SentinelOneStandIn;

  beforeAll(async () => {
    s1 = await startSentinelOneStandIn(TOKEN, ['desktop-042', 'desktop-043', 'LAPTOP-7', PROTECTED_HOST]);
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: PACKS_DIR } });
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'http',
      name: 'edr-a',
      base_url: s1.url,
      secret: TOKEN,
      config: { auth_header: 'Authorization', auth_prefix: 'ApiToken ' },
    });
    expect(conn.status, conn.text).toBe(201);
    await installAndBindHostAdapter(svc, root, 'edr_isolate_a', 'edr-a', true);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await svc?.close();
    await s1?.close();
  });

  const agent = (name: string) => s1.agents.find((a) => a.computerName === name);
  const run = (slug: string, host: string) => runHostStep(svc, slug, host);

  it('passes its recorded vendor answers through the pack test', () => expectFixturesPass(svc, root, 'edr_isolate_a'));

  it('disconnects the agent, reads its network status back, and reconnects it on release', async () => {
    const isolated = await run('host-isolate', 'Desktop-042');
    expect(isolated.run.status, JSON.stringify(isolated.run.action_log)).toBe('succeeded');
    expect(isolated.step.output).toMatchObject({ target: 'desktop-042', enforced: true, enforcement_performed: true });
    expect(agent('desktop-042')?.networkStatus).toBe('disconnected');
    expect(agent('desktop-043')?.networkStatus).toBe('connected');
    const disconnect = s1.requests.find((r) => r.path === '/web/api/v2.1/agents/actions/disconnect');
    expect(JSON.parse(disconnect?.body ?? '')).toEqual({ filter: { computerName: 'desktop-042' } });
    const effect = (await callAs(svc, root, 'GET', `/effects/${isolated.step.output.effect_id}`)).body;
    expect(effect).toMatchObject({ status: 'active', effect_type: 'contain', target_type: 'host', adapter_id: 'edr_isolate_a', handle: null });

    const read = await run('host-status', 'desktop-042');
    expect(read.step.output, JSON.stringify(read.step)).toEqual({ target: 'desktop-042', enforced: true, enforcement_performed: false, state: 'enforced' });
    expect(s1.requests.at(-1)?.path).toBe('/web/api/v2.1/agents?computerName=desktop-042');
    const pending = agent('desktop-042');
    if (pending) pending.networkStatus = 'disconnecting';
    expect((await run('host-status', 'desktop-042')).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });
    if (pending) pending.networkStatus = 'disconnected';

    const released = await run('host-release', 'desktop-042');
    expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
    expect(released.step.output).toMatchObject({ enforcement_performed: true, effect_id: effect.id });
    expect(agent('desktop-042')?.networkStatus).toBe('connected');
    expect(await effectStatus(svc, effect.id)).toBe('reversed');
    expect((await run('host-status', 'desktop-042')).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });
    expect(s1.requests.every((r) => r.headers.authorization === `ApiToken ${TOKEN}`)).toBe(true);
  });

  it('reconnects the agent when the TTL ends, through the worker and the injected clock', async () => {
    const isolated = await run('host-isolate-short', 'desktop-043');
    expect(isolated.step.output).toMatchObject({ enforced: true });
    expect(agent('desktop-043')?.networkStatus).toBe('disconnected');
    clock.advance(61_000);
    await expect.poll(() => effectStatus(svc, isolated.step.output.effect_id), { timeout: 15_000 }).toBe('reversed');
    expect(agent('desktop-043')?.networkStatus).toBe('connected');
    const connect = s1.requests.filter((r) => r.path === '/web/api/v2.1/agents/actions/connect').at(-1);
    expect(JSON.parse(connect?.body ?? '')).toEqual({ filter: { computerName: 'desktop-043' } });
  });

  it('reads a release that reconnects no agent by the status read: a decommissioned agent is already released, nothing performed', async () => {
    const template = agent('desktop-043');
    if (!template) throw new Error('no agent to copy');
    s1.agents.push({ ...template, id: '225494730938493999', computerName: 'desktop-050', networkStatus: 'connected' });
    const isolated = await run('host-isolate', 'desktop-050');
    expect(isolated.step.output).toMatchObject({ enforced: true, enforcement_performed: true });
    s1.agents.splice(
      s1.agents.findIndex((a) => a.computerName === 'desktop-050'),
      1,
    );
    const released = await run('host-release', 'desktop-050');
    expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
    expect(released.step.output).toMatchObject({ enforcement_performed: false });
    expect(await effectStatus(svc, isolated.step.output.effect_id)).toBe('reversed');
    const audit = (await callAs(svc, root, 'GET', '/audit?action=effect.reverse')).body.items;
    expect(audit.find((e: any) => e.target.id === isolated.step.output.effect_id)?.detail).toMatchObject({ outcome: 'already_reversed' });
  });

  it('fails a host no agent matches as adapter_affected_nothing, with no active effect', async () => {
    for (const host of ['desktop-404', 'LAPTOP-7']) {
      const before = s1.requests.length;
      const isolated = await run('host-isolate', host);
      expect(isolated.run.status).toBe('failed');
      expect(isolated.step.error).toMatch(/^adapter_affected_nothing/);
      expect(s1.requests.length).toBe(before + 1);
      const effects = await effectsOn(svc, host);
      expect(effects.map((e) => e.status)).toEqual(['failed']);
      expect(effects[0]).toMatchObject({ last_error: expect.stringMatching(/adapter_affected_nothing/) });
    }
    expect(agent('LAPTOP-7')?.networkStatus).toBe('connected');
  });

  it('refuses a protected host before the stand-in sees any request', async () => {
    const before = s1.requests.length;
    const isolated = await run('host-isolate', 'DC-01');
    expect(isolated.run.status).toBe('failed');
    expect(isolated.step.error).toMatch(/^target_protected: dc-01 is protected/);
    expect(s1.requests.length).toBe(before);
    expect(await effectsOn(svc, PROTECTED_HOST)).toEqual([]);
    expect(agent(PROTECTED_HOST)?.networkStatus).toBe('connected');
  });
});

describe.each(peerEngines)('the shipped edr_isolate_c pack on $name', ({ server }) => {
  const CLIENT_ID = 'svc-defender-app';
  const CLIENT_SECRET = 'mde-client-secret-3b9d';
  const MACHINE = '7b1f4967d9728e5aa3c06a9e617a22a4a5a17378';
  const OTHER = '1e5bc9d7e413ddd7902c2932e418702b84d0cc07';
  const BUSY = 'b8e1c6f2a4d3e5f7a9c0b1d2e3f4a5b6c7d8e9f0';
  const UNKNOWN = '0000000000000000000000000000000000000404';
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let oauth: OAuth2Server;
  let mde: DefenderStandIn;

  beforeAll(async () => {
    oauth = await startOAuth2Server(CLIENT_ID, CLIENT_SECRET);
    mde = await startDefenderStandIn((token) => oauth.grantOf(token) !== null, {
      [MACHINE]: 'desktop-test',
      [OTHER]: 'desktop-other',
      [BUSY]: 'desktop-busy',
      [PROTECTED_HOST]: 'dc-01.corp.example',
    });
    const busy = mde.machines.get(BUSY);
    if (busy) busy.busy = true;
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: PACKS_DIR, SVC_OUTBOUND_CA_FILE: oauth.caFile } });
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'http',
      name: 'edr-c',
      base_url: mde.url,
      secret: CLIENT_SECRET,
      config: {
        auth: 'oauth2_client_credentials',
        token_url: oauth.tokenUrl,
        client_id: CLIENT_ID,
        scope: 'https://api.securitycenter.microsoft.com/.default',
        client_auth: 'post',
      },
    });
    expect(conn.status, conn.text).toBe(201);
    await installAndBindHostAdapter(svc, root, 'edr_isolate_c', 'edr-c', false);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await svc?.close();
    await mde?.close();
    await oauth?.close();
  });

  const run = (slug: string, host: string) => runHostStep(svc, slug, host);
  const posts = (verb: string) => mde.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/${verb}`));

  it('passes its recorded vendor answers through the pack test', () => expectFixturesPass(svc, root, 'edr_isolate_c'));

  it('isolates the machine with a minted token, answers no status action, and releases it', async () => {
    const isolated = await run('host-isolate', MACHINE);
    expect(isolated.run.status, JSON.stringify(isolated.run.action_log)).toBe('succeeded');
    expect(isolated.step.output).toMatchObject({ target: MACHINE, enforced: true, enforcement_performed: true });
    expect(mde.machines.get(MACHINE)?.isolated).toBe(true);
    const [request] = posts('isolate');
    expect(request?.path).toBe(`/api/machines/${MACHINE}/isolate`);
    expect(JSON.parse(request?.body ?? '')).toEqual({ Comment: 'SVC-7: ransomware beacon', IsolationType: 'Full' });
    const bearer = /^Bearer (.+)$/.exec(String(request?.headers.authorization))?.[1] ?? '';
    expect(oauth.grantOf(bearer)).toEqual({ audience: null, scope: 'https://api.securitycenter.microsoft.com/.default' });
    const [queued] = [...mde.actions.values()];
    const effect = (await callAs(svc, root, 'GET', `/effects/${isolated.step.output.effect_id}`)).body;
    expect(effect).toMatchObject({ status: 'active', adapter_id: 'edr_isolate_c', handle: queued?.id });

    const before = mde.requests.length;
    const read = await run('host-status', MACHINE);
    expect(read.run.status).toBe('failed');
    expect(read.step.error).toMatch(/^adapter_no_status_action/);
    expect(mde.requests.length).toBe(before);

    const released = await run('host-release', MACHINE);
    expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
    expect(mde.machines.get(MACHINE)?.isolated).toBe(false);
    expect(posts('unisolate').map((r) => r.path)).toEqual([`/api/machines/${MACHINE}/unisolate`]);
    expect(JSON.parse(posts('unisolate')[0]?.body ?? '')).toEqual({ Comment: 'svc: released' });
    expect(await effectStatus(svc, effect.id)).toBe('reversed');
  });

  it('releases the machine when the TTL ends, through the worker and the injected clock', async () => {
    const isolated = await run('host-isolate-short', OTHER);
    expect(isolated.step.output).toMatchObject({ enforced: true });
    expect(mde.machines.get(OTHER)?.isolated).toBe(true);
    clock.advance(61_000);
    await expect.poll(() => effectStatus(svc, isolated.step.output.effect_id), { timeout: 15_000 }).toBe('reversed');
    expect(mde.machines.get(OTHER)?.isolated).toBe(false);
    expect(JSON.parse(posts('unisolate').at(-1)?.body ?? '')).toEqual({ Comment: 'svc: TTL expired' });
  });

  it('fails an unknown machine and one with an action in progress, with no active effect', async () => {
    const unknown = await run('host-isolate', UNKNOWN);
    expect(unknown.run.status).toBe('failed');
    expect(unknown.step.error).toMatch(new RegExp(`^http_status: .*answered HTTP 404: Machine ${UNKNOWN} was not found`));
    expect((await effectsOn(svc, UNKNOWN)).map((e) => e.status)).toEqual(['failed']);

    const busy = await run('host-isolate', BUSY);
    expect(busy.run.status).toBe('failed');
    expect(busy.step.error).toMatch(/^http_status: .*answered HTTP 400: Action is already in progress/);
    expect((await effectsOn(svc, BUSY)).map((e) => e.status)).toEqual(['failed']);
    expect(mde.machines.get(BUSY)?.isolated).toBe(false);
  });

  it('refuses a protected host before the stand-in sees any request', async () => {
    const before = mde.requests.length;
    const tokens = oauth.tokenRequests;
    const isolated = await run('host-isolate', PROTECTED_HOST);
    expect(isolated.run.status).toBe('failed');
    expect(isolated.step.error).toMatch(/^target_protected: dc-01 is protected/);
    expect(mde.requests.length).toBe(before);
    expect(oauth.tokenRequests).toBe(tokens);
    expect(await effectsOn(svc, PROTECTED_HOST)).toEqual([]);
  });
});
describe.each(peerEngines)('the shipped edr_contain_b pack on $name', ({ server }) => {
  const CLIENT_ID = 'svc-falcon-client';
  const CLIENT_SECRET = 'falcon-client-secret-8c1a';
  const DEVICE = '4c8f2d1e9a7b4e3c8d5f6a2b1c0e9d8f';
  const OTHER = '9e1b7c3d5f2a4e6b8c0d1f3a5b7c9e2d';
  const PHANTOM = '2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e';
  const UNKNOWN = '00000000000000000000000000000404';
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let oauth: OAuth2Server;
  let cs: CrowdStrikeStandIn;

  beforeAll(async () => {
    oauth = await startOAuth2Server(CLIENT_ID, CLIENT_SECRET);
    cs = await startCrowdStrikeStandIn((token) => oauth.grantOf(token) !== null, {
      [DEVICE]: 'DESKTOP-7Q4K2M1',
      [OTHER]: 'DESKTOP-OTHER',
      [PHANTOM]: 'DESKTOP-PHANTOM',
      [PROTECTED_HOST]: 'DC-01',
    });
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: PACKS_DIR, SVC_OUTBOUND_CA_FILE: oauth.caFile } });
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'http',
      name: 'edr-b',
      base_url: cs.url,
      secret: CLIENT_SECRET,
      config: { auth: 'oauth2_client_credentials', token_url: oauth.tokenUrl, client_id: CLIENT_ID, client_auth: 'post' },
    });
    expect(conn.status, conn.text).toBe(201);
    await installAndBindHostAdapter(svc, root, 'edr_contain_b', 'edr-b', true);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await svc?.close();
    await cs?.close();
    await oauth?.close();
  });

  const run = (slug: string, host: string) => runHostStep(svc, slug, host);
  const actions = (name: string) => cs.requests.filter((r) => r.method === 'POST' && r.path === `/devices/entities/devices-actions/v2?action_name=${name}`);

  it('passes its recorded vendor answers through the pack test', () => expectFixturesPass(svc, root, 'edr_contain_b'));

  it('contains the device with a minted token, reads contained back (pending is not), and lifts it on release', async () => {
    const isolated = await run('host-isolate', DEVICE.toUpperCase());
    expect(isolated.run.status, JSON.stringify(isolated.run.action_log)).toBe('succeeded');
    expect(isolated.step.output).toMatchObject({ target: DEVICE, enforced: true, enforcement_performed: true });
    expect(cs.devices.get(DEVICE)?.status).toBe('contained');
    expect(JSON.parse(actions('contain')[0]?.body ?? '')).toEqual({ ids: [DEVICE] });
    expect(oauth.grantOf(/^Bearer (.+)$/.exec(String(actions('contain')[0]?.headers.authorization))?.[1] ?? '')).not.toBeNull();
    const effect = (await callAs(svc, root, 'GET', `/effects/${isolated.step.output.effect_id}`)).body;
    expect(effect).toMatchObject({ status: 'active', adapter_id: 'edr_contain_b', handle: null });

    expect((await run('host-status', DEVICE)).step.output).toEqual({ target: DEVICE, enforced: true, enforcement_performed: false, state: 'enforced' });
    expect(cs.requests.at(-1)?.path).toBe(`/devices/entities/devices/v2?ids=${DEVICE}`);
    for (const pending of ['containment_pending', 'lift_containment_pending'] as const) {
      const device = cs.devices.get(DEVICE);
      if (device) device.status = pending;
      expect((await run('host-status', DEVICE)).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });
    }
    const device = cs.devices.get(DEVICE);
    if (device) device.status = 'contained';

    const released = await run('host-release', DEVICE);
    expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
    expect(released.step.output).toMatchObject({ enforcement_performed: true, effect_id: effect.id });
    expect(cs.devices.get(DEVICE)?.status).toBe('normal');
    expect(JSON.parse(actions('lift_containment')[0]?.body ?? '')).toEqual({ ids: [DEVICE] });
    expect(await effectStatus(svc, effect.id)).toBe('reversed');
  });

  it('lifts the containment when the TTL ends, through the worker and the injected clock', async () => {
    const isolated = await run('host-isolate-short', OTHER);
    expect(isolated.step.output).toMatchObject({ enforced: true });
    clock.advance(61_000);
    await expect.poll(() => effectStatus(svc, isolated.step.output.effect_id), { timeout: 15_000 }).toBe('reversed');
    expect(cs.devices.get(OTHER)?.status).toBe('normal');
    expect(JSON.parse(actions('lift_containment').at(-1)?.body ?? '')).toEqual({ ids: [OTHER] });
  });

  it('fails an unknown device with the vendor message, and a 2xx naming no device, with no active effect', async () => {
    const unknown = await run('host-isolate', UNKNOWN);
    expect(unknown.run.status).toBe('failed');
    expect(unknown.step.error).toMatch(new RegExp(`^http_status: .*answered HTTP 404: Device not found: ${UNKNOWN}`));
    expect((await effectsOn(svc, UNKNOWN)).map((e) => e.status)).toEqual(['failed']);

    cs.quirk = 'accepted_nothing';
    try {
      const phantom = await run('host-isolate', PHANTOM);
      expect(phantom.run.status).toBe('failed');
      expect(phantom.step.error).toMatch(new RegExp(`^vendor_refused: .*Device not found: ${PHANTOM}`));
      expect((await effectsOn(svc, PHANTOM)).map((e) => e.status)).toEqual(['failed']);
    } finally {
      cs.quirk = null;
    }
    expect(cs.devices.get(PHANTOM)?.status).toBe('normal');
  });

  it('refuses a protected host before any token or device request', async () => {
    const before = cs.requests.length;
    const tokens = oauth.tokenRequests;
    const isolated = await run('host-isolate', PROTECTED_HOST);
    expect(isolated.run.status).toBe('failed');
    expect(isolated.step.error).toMatch(/^target_protected: dc-01 is protected/);
    expect(cs.requests.length).toBe(before);
    expect(oauth.tokenRequests).toBe(tokens);
    expect(await effectsOn(svc, PROTECTED_HOST)).toEqual([]);
  });
});
