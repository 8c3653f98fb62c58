/**
 * The ban-list adapter, on the embedded engine (peerEngines) (issue 22 "Shipped adapter packs": ban_list, http
 * bouncer-key reads plus ssh CLI blocks, read declares `decision_type` = `ban`; SPEC.md
 * "Ban-list built-in actions": `banlist.block`'s compensation is `banlist.unblock` and the
 * managed invocation fills `ttl` from the effect TTL). The built-in ban actions run the
 * `cscli` stand-in over the real OpenSSH server; the shipped `ban_list` pack's read asks
 * the Local API stand-in with a bouncer key over http, on the binding's
 * `status_connection`; both see the same decisions. Driven by `response.ip_block`,
 * `response.ip_status` and `response.ip_unblock` in runbooks, and by the TTL's end.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import { createCscliStandIn, type CscliStandIn } from '../support/cscli-standin.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startLapiStandIn, type LapiStandIn } from '../support/lapi-standin.ts';
import { ipStepRunbookYaml } from '../support/runbook-definitions.ts';
import { peerEngines } from '../support/service-process.ts';
import { bindIpAdapter, installPack, runIpStep } from '../support/shipped-adapters.ts';
import { sshdAvailable, startSshd, type TestSshd } from '../support/sshd.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const BOUNCER_KEY = 'bouncer-key-for-tests';

const runbooks = {
  'block.yml': ipStepRunbookYaml('ban-block', 'response.ip_block', ', ttl_seconds: 600, reason: "SVC-1: SSH brute force"'),
  'short.yml': ipStepRunbookYaml('ban-block-short', 'response.ip_block', ', ttl_seconds: 60'),
  'status.yml': ipStepRunbookYaml('ban-status', 'response.ip_status'),
  'unblock.yml': ipStepRunbookYaml('ban-unblock', 'response.ip_unblock'),
};

const binding = {
  adapter_id: 'ban_list',
  block_action: 'banlist.block',
  unblock_action: 'banlist.unblock',
  status_action: 'custom.ban_list.status',
  connection_name: 'crowdsec-host',
  parameters: { status_connection: 'crowdsec-lapi' },
};

describe.skipIf(!sshdAvailable).each(peerEngines)('the ban-list adapter on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let sshd: TestSshd;
  let cscli: CscliStandIn;
  let lapi: LapiStandIn;

  beforeAll(async () => {
    sshd = await startSshd();
    cscli = createCscliStandIn();
    lapi = await startLapiStandIn({ key: BOUNCER_KEY, decisions: () => cscli.decisions() });
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: join(import.meta.dirname, '../../packs') } });
    const ssh = await callAs(svc, root, 'POST', '/connections', {
      kind: 'ssh',
      name: 'crowdsec-host',
      secret: sshd.clientKey,
      config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, known_hosts: sshd.knownHosts, cscli: cscli.path },
    });
    expect(ssh.status, ssh.text).toBe(201);
    const http = await callAs(svc, root, 'POST', '/connections', {
      kind: 'http',
      name: 'crowdsec-lapi',
      base_url: lapi.url,
      secret: BOUNCER_KEY,
      config: { auth_header: 'X-Api-Key', auth_prefix: '' },
    });
    expect(http.status, http.text).toBe(201);
    await installPack(svc, root, 'ban_list', ['custom.ban_list.status']);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await lapi?.close();
    cscli?.close();
    await sshd?.close();
  });

  const run = async (slug: string, ip: string) => (await runIpStep(svc, root, slug, ip)).step;
  const bansOn = (ip: string) => cscli.decisions().filter((d) => d.value === ip);

  it('refuses a binding that does not reverse a ban with its declared compensation, banlist.unblock', async () => {
    const wrong = await callAs(svc, root, 'PUT', '/response-policy', {
      ttl: { min_seconds: 60, max_seconds: 86_400 },
      adapters: [{ effect_type: 'block', target_type: 'ip', ...binding, unblock_action: 'banlist.status' }],
    });
    expect(wrong.status, wrong.text).toBe(422);
    expect(wrong.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'adapters', 0, 'unblock_action'], type: 'binding_unblock_not_compensation' })]);
    const policy = await callAs(svc, root, 'GET', '/response-policy');
    expect(policy.body.bindable_actions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'banlist.block', source: 'builtin', compensation: 'banlist.unblock' }),
        expect.objectContaining({ name: 'custom.ban_list.status', source: 'custom', compensation: null }),
      ]),
    );
    await bindIpAdapter(svc, root, binding);
  });

  it('bans with the effect TTL over ssh, reads the ban back over http with the bouncer key, and deletes exactly its decision on release', async () => {
    cscli.seed(1);
    const blocked = await run('ban-block', '198.51.100.23');
    expect(blocked.output, JSON.stringify(blocked)).toMatchObject({ enforced: true, enforcement_performed: true });
    const [ban] = bansOn('198.51.100.23');
    expect(ban).toMatchObject({ type: 'ban', duration: '600s' });
    expect(ban?.scenario).toMatch(/^SVC-1: SSH brute force \[svc:[0-9a-f-]+\]$/);
    expect(cscli.invocations().flat()).not.toContain('--bypass-allowlist');
    const effect = await callAs(svc, root, 'GET', `/effects/${blocked.output.effect_id}`);
    expect(effect.body).toMatchObject({ status: 'active', ttl_seconds: 600, adapter_id: 'ban_list', handle: String(ban?.id) });

    expect((await run('ban-status', '198.51.100.23')).output).toEqual({
      target: '198.51.100.23',
      enforced: true,
      enforcement_performed: false,
      state: 'enforced',
    });
    expect(lapi.reads()).toContain('?ip=198.51.100.23&type=ban');
    expect((await run('ban-status', '198.51.100.24')).output).toMatchObject({ enforced: false, state: 'not_enforced' });

    const othersBefore = cscli.decisions().filter((d) => d.value !== '198.51.100.23');
    const released = await run('ban-unblock', '198.51.100.23');
    expect(released.status, JSON.stringify(released)).toBe('ok');
    expect(bansOn('198.51.100.23')).toEqual([]);
    expect(cscli.invocations()).toContainEqual(['decisions', 'delete', '--id', String(ban?.id)]);
    expect(cscli.decisions()).toEqual(othersBefore);
    expect((await callAs(svc, root, 'GET', `/effects/${blocked.output.effect_id}`)).body.status).toBe('reversed');
    expect((await run('ban-status', '198.51.100.23')).output).toMatchObject({ enforced: false });
  });

  it('bans a range as a range, and deletes the ban when the TTL ends, through the worker and the injected clock', async () => {
    const blocked = await run('ban-block-short', '203.0.113.0/24');
    expect(blocked.output, JSON.stringify(blocked)).toMatchObject({ enforced: true });
    expect(bansOn('203.0.113.0/24')).toEqual([expect.objectContaining({ type: 'ban', duration: '60s' })]);
    expect(cscli.invocations()).toContainEqual(expect.arrayContaining(['--range', '203.0.113.0/24']));
    expect((await run('ban-status', '203.0.113.0/24')).output).toMatchObject({ enforced: true });
    clock.advance(61_000);
    await expect.poll(async () => (await callAs(svc, root, 'GET', `/effects/${blocked.output.effect_id}`)).body.status, { timeout: 15_000 }).toBe('reversed');
    expect(bansOn('203.0.113.0/24')).toEqual([]);
  });

  it('fails a block the ban list does not confirm (simulation mode) and leaves no active effect', async () => {
    cscli.simulation(true);
    try {
      const blocked = await run('ban-block', '192.0.2.50');
      expect(blocked.status).not.toBe('ok');
      expect(blocked.error).toMatch(/ban_not_confirmed|no active ban/);
      const effects = await callAs(svc, root, 'GET', '/effects?target_type=ip&target=192.0.2.50');
      expect(effects.body.items).toEqual([expect.objectContaining({ status: 'failed' })]);
    } finally {
      cscli.simulation(false);
    }
  });
});
