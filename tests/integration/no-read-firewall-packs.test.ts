/**
 * The shipped no-read firewall packs `firewall_alias_b` (pfSense REST API package v1 host
 * alias), `firewall_quarantine` (FortiGate banned users) and `firewall_tag` (PAN-OS
 * User-ID tags), on the embedded engine (peerEngines) (SPEC.md "Managed containment actions", shipped packs:
 * http, ip, no read). Each is installed from packs/, bound as `block`/`ip` with
 * `status_action: null`, and driven by `response.ip_block`, `ip_status` and `ip_unblock`
 * against its stand-in (tests/support/firewall-apis.ts): the block lands and the effect is
 * active, the read answers `adapter_no_status_action` before any call, the release and the
 * TTL's end remove the block, a vendor refusal fails with the vendor's message and no
 * active effect (never a phantom block), and a protected address is refused before the
 * stand-in sees a request.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import {
  startFortiGateStandIn,
  startPanOsStandIn,
  startPfSenseStandIn,
  type FortiGateStandIn,
  type PanOsStandIn,
  type PfSenseStandIn,
} from '../support/firewall-apis.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { ipStepRunbookYaml } from '../support/runbook-definitions.ts';
import { peerEngines } from '../support/service-process.ts';
import { bindIpAdapter, expectFixturesPass, installPack, runIpStep } from '../support/shipped-adapters.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const PF = { clientId: '61646d696e', clientToken: 'pf-token-for-tests', alias: 'svc_blocked' };
const FGT = { token: 'fgt-token-for-tests', vdom: 'root' };
const PAN = { key: 'pan-key-for-tests', tag: 'svc-blocked', vsys: 'vsys1' };

const runbooks = {
  'block.yml': ipStepRunbookYaml('fw-block', 'response.ip_block', ', ttl_seconds: 600, reason: "SVC-12: SSH brute force"'),
  'short.yml': ipStepRunbookYaml('fw-block-short', 'response.ip_block', ', ttl_seconds: 60'),
  'status.yml': ipStepRunbookYaml('fw-status', 'response.ip_status'),
  'unblock.yml': ipStepRunbookYaml('fw-unblock', 'response.ip_unblock'),
};

describe.each(peerEngines)('the shipped no-read firewall packs on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let pf: PfSenseStandIn;
  let fgt: FortiGateStandIn;
  let pan: PanOsStandIn;

  beforeAll(async () => {
    pf = await startPfSenseStandIn({ clientId: PF.clientId, clientToken: PF.clientToken, aliases: [PF.alias] });
    fgt = await startFortiGateStandIn({ token: FGT.token, vdoms: [FGT.vdom] });
    pan = await startPanOsStandIn({ key: PAN.key, vsys: [PAN.vsys] });
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: join(import.meta.dirname, '../../packs') } });
    const connections = [
      {
        kind: 'http',
        name: 'pfsense',
        base_url: pf.url,
        secret: `${PF.clientId} ${PF.clientToken}`,
        config: { auth_header: 'Authorization', auth_prefix: '' },
      },
      { kind: 'http', name: 'fortigate', base_url: fgt.url, secret: FGT.token },
      { kind: 'http', name: 'panos', base_url: pan.url, secret: PAN.key, config: { auth_header: 'X-PAN-KEY', auth_prefix: '' } },
    ];
    for (const connection of connections) {
      const created = await callAs(svc, root, 'POST', '/connections', connection);
      expect(created.status, created.text).toBe(201);
    }
    for (const pack of ['firewall_alias_b', 'firewall_quarantine', 'firewall_tag'])
      await installPack(svc, root, pack, [`custom.${pack}.block`, `custom.${pack}.unblock`]);
  }, 90_000);
  afterAll(async () => {
    await svc?.close();
    await Promise.all([pf?.close(), fgt?.close(), pan?.close()]);
  });

  const bind = (pack: string, connection: string, parameters: Record<string, string>) =>
    bindIpAdapter(svc, root, {
      adapter_id: pack,
      block_action: `custom.${pack}.block`,
      unblock_action: `custom.${pack}.unblock`,
      status_action: null,
      connection_name: connection,
      parameters,
    });
  const run = (slug: string, ip: string) => runIpStep(svc, root, slug, ip);
  const effect = async (id: string) => (await callAs(svc, root, 'GET', `/effects/${id}`)).body;
  const effectsOn = async (ip: string): Promise<any[]> =>
    (await callAs(svc, root, 'GET', `/effects?target_type=ip&target=${encodeURIComponent(ip)}`)).body.items;
  /** A status read answers adapter_no_status_action and the stand-in sees no request. */
  const expectNoRead = async (ip: string, requests: () => number) => {
    const before = requests();
    const read = await run('fw-status', ip);
    expect(read.run.status).toBe('failed');
    expect(read.step.error).toMatch(/^adapter_no_status_action: /);
    expect(requests()).toBe(before);
  };
  const expectProtectedRefused = async (requests: () => number) => {
    const before = requests();
    const refused = await run('fw-block', '10.1.2.3');
    expect(refused.run.status).toBe('failed');
    expect(refused.step.error).toMatch(/^target_protected: /);
    expect(await effectsOn('10.1.2.3')).toEqual([]);
    expect(requests()).toBe(before);
  };
  const expectTtlRemoves = async (ip: string, present: () => boolean) => {
    const blocked = await run('fw-block-short', ip);
    expect(blocked.step.output, JSON.stringify(blocked.step)).toMatchObject({ target: ip, enforced: true });
    expect(present()).toBe(true);
    clock.advance(61_000);
    await expect.poll(async () => (await effect(blocked.step.output.effect_id)).status, { timeout: 15_000 }).toBe('reversed');
    expect(present()).toBe(false);
  };

  describe('firewall_alias_b (pfSense alias entries)', () => {
    beforeAll(() => bind('firewall_alias_b', 'pfsense', { alias: PF.alias }));

    it('passes its recorded vendor answers through the pack test', () => expectFixturesPass(svc, root, 'firewall_alias_b'));

    it('adds the address to the alias, has no read, and removes it on release', async () => {
      const blocked = await run('fw-block', '203.0.113.9');
      expect(blocked.run.status, JSON.stringify(blocked.run.action_log)).toBe('succeeded');
      expect(blocked.step.output).toMatchObject({ target: '203.0.113.9', enforced: true, enforcement_performed: true });
      expect(pf.addresses(PF.alias)).toEqual(['203.0.113.9']);
      const post = pf.requests.at(-1);
      expect([post?.method, post?.path]).toEqual(['POST', '/api/v1/firewall/alias/entry']);
      expect(post?.headers.authorization).toBe(`${PF.clientId} ${PF.clientToken}`);
      expect(JSON.parse(post?.body ?? '')).toEqual({ name: PF.alias, address: ['203.0.113.9'], detail: ['SVC-12: SSH brute force'] });
      expect(await effect(blocked.step.output.effect_id)).toMatchObject({ status: 'active', adapter_id: 'firewall_alias_b' });

      await expectNoRead('203.0.113.9', () => pf.requests.length);

      const released = await run('fw-unblock', '203.0.113.9');
      expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
      expect(pf.addresses(PF.alias)).toEqual([]);
      const del = pf.requests.at(-1);
      expect([del?.method, JSON.parse(del?.body ?? '')]).toEqual(['DELETE', { name: PF.alias, address: ['203.0.113.9'] }]);
      expect((await effect(blocked.step.output.effect_id)).status).toBe('reversed');
    });

    it('removes the address when the TTL ends, through the worker and the injected clock', () =>
      expectTtlRemoves('198.51.100.23', () => (pf.addresses(PF.alias) ?? []).includes('198.51.100.23')));

    it('fails a missing alias and a range with the vendor message and no active effect', async () => {
      pf.dropAlias(PF.alias);
      try {
        const missing = await run('fw-block', '192.0.2.44');
        expect(missing.run.status).toBe('failed');
        expect(missing.step.error).toMatch(/^http_status: custom\.firewall_alias_b\.block: 127\.0\.0\.1:\d+ answered HTTP 400: Firewall alias does not exist$/);
        expect((await effectsOn('192.0.2.44')).map((e) => e.status)).toEqual(['failed']);
      } finally {
        pf.addAlias(PF.alias);
      }
      const range = await run('fw-block', '192.0.2.0/24');
      expect(range.run.status).toBe('failed');
      expect(range.step.error).toMatch(/answered HTTP 400: Invalid firewall alias IP address or hostname$/);
      expect((await effectsOn('192.0.2.0/24')).map((e) => e.status)).toEqual(['failed']);
      expect(pf.addresses(PF.alias)).toEqual([]);
    });

    it('refuses a protected address before the firewall sees a request', () => expectProtectedRefused(() => pf.requests.length));
  });

  describe('firewall_quarantine (FortiGate banned users)', () => {
    beforeAll(() => bind('firewall_quarantine', 'fortigate', { vdom: FGT.vdom }));

    it('passes its recorded vendor answers through the pack test', () => expectFixturesPass(svc, root, 'firewall_quarantine'));

    it('bans the address for the TTL, has no read, and lifts the ban on release', async () => {
      const blocked = await run('fw-block', '203.0.113.10');
      expect(blocked.run.status, JSON.stringify(blocked.run.action_log)).toBe('succeeded');
      expect(blocked.step.output).toMatchObject({ target: '203.0.113.10', enforced: true, enforcement_performed: true });
      expect(fgt.banned(FGT.vdom)).toEqual([{ ip: '203.0.113.10', expiry: 600 }]);
      const add = fgt.requests.at(-1);
      expect(add?.path).toBe('/api/v2/monitor/user/banned/add_users?vdom=root');
      expect(add?.headers.authorization).toBe(`Bearer ${FGT.token}`);
      expect(JSON.parse(add?.body ?? '')).toEqual({ ip_addresses: ['203.0.113.10'], expiry: 600 });
      expect(await effect(blocked.step.output.effect_id)).toMatchObject({ status: 'active', adapter_id: 'firewall_quarantine' });

      await expectNoRead('203.0.113.10', () => fgt.requests.length);

      const released = await run('fw-unblock', '203.0.113.10');
      expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
      expect(fgt.banned(FGT.vdom)).toEqual([]);
      const clear = fgt.requests.at(-1);
      expect([clear?.path, JSON.parse(clear?.body ?? '')]).toEqual(['/api/v2/monitor/user/banned/clear_users?vdom=root', { ip_addresses: ['203.0.113.10'] }]);
      expect((await effect(blocked.step.output.effect_id)).status).toBe('reversed');
    });

    it('lifts the ban when the TTL ends, through the worker and the injected clock', () =>
      expectTtlRemoves('198.51.100.24', () => fgt.banned(FGT.vdom).some((b) => b.ip === '198.51.100.24')));

    it('fails a 200 answer whose status is error with the vendor message and no active effect', async () => {
      fgt.refuseNext('banned user table is full');
      const refused = await run('fw-block', '192.0.2.45');
      expect(refused.run.status).toBe('failed');
      expect(refused.step.error).toMatch(/^vendor_refused: custom\.firewall_quarantine\.block: banned user table is full$/);
      expect((await effectsOn('192.0.2.45')).map((e) => e.status)).toEqual(['failed']);
      expect(fgt.banned(FGT.vdom)).toEqual([]);
    });

    it('refuses a protected address before the firewall sees a request', () => expectProtectedRefused(() => fgt.requests.length));
  });

  describe('firewall_tag (PAN-OS User-ID tags)', () => {
    beforeAll(() => bind('firewall_tag', 'panos', { tag: PAN.tag, vsys: PAN.vsys }));
    const uidMessage = (path: string | undefined) => new URL(path ?? '/', 'http://x').searchParams.get('cmd');

    it('passes its recorded vendor answers through the pack test', () => expectFixturesPass(svc, root, 'firewall_tag'));

    it('tags the address, reads a second tag as already blocked, has no read, and untags it on release', async () => {
      const blocked = await run('fw-block', '2001:DB8::7');
      expect(blocked.run.status, JSON.stringify(blocked.run.action_log)).toBe('succeeded');
      expect(blocked.step.output).toMatchObject({ target: '2001:db8::7', enforced: true, enforcement_performed: true });
      expect(pan.tags(PAN.vsys, '2001:db8::7')).toEqual([{ tag: PAN.tag, timeout: 600 }]);
      const register = pan.requests.at(-1);
      expect(register?.headers['x-pan-key']).toBe(PAN.key);
      expect(new URL(register?.path ?? '/', 'http://x').searchParams.get('type')).toBe('user-id');
      expect(uidMessage(register?.path)).toBe(
        `<uid-message><version>2.0</version><type>update</type><payload><register><entry ip="2001:db8::7"><tag><member timeout="600">${PAN.tag}</member></tag></entry></register></payload></uid-message>`,
      );
      expect(await effect(blocked.step.output.effect_id)).toMatchObject({ status: 'active', adapter_id: 'firewall_tag' });

      const again = await run('fw-block', '2001:db8::7');
      expect(again.run.status, JSON.stringify(again.run.action_log)).toBe('succeeded');
      expect(again.step.output).toMatchObject({ enforced: true, enforcement_performed: false });
      expect(pan.tags(PAN.vsys, '2001:db8::7')).toHaveLength(1);

      await expectNoRead('2001:db8::7', () => pan.requests.length);

      const released = await run('fw-unblock', '2001:db8::7');
      expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
      expect(pan.tags(PAN.vsys, '2001:db8::7')).toEqual([]);
      expect(uidMessage(pan.requests.find((r) => uidMessage(r.path)?.includes('<unregister>'))?.path)).toBe(
        `<uid-message><version>2.0</version><type>update</type><payload><unregister><entry ip="2001:db8::7"><tag><member>${PAN.tag}</member></tag></entry></unregister></payload></uid-message>`,
      );
      expect((await effect(blocked.step.output.effect_id)).status).toBe('reversed');
    });

    it('untags the address when the TTL ends, through the worker and the injected clock', () =>
      expectTtlRemoves('198.51.100.25', () => pan.tags(PAN.vsys, '198.51.100.25').length > 0));

    it('fails an error answer with the vendor message and no active effect', async () => {
      pan.refuseNext('registered IP limit reached');
      const refused = await run('fw-block', '192.0.2.46');
      expect(refused.run.status).toBe('failed');
      expect(refused.step.error).toMatch(/^vendor_refused: custom\.firewall_tag\.block: registered IP limit reached$/);
      expect((await effectsOn('192.0.2.46')).map((e) => e.status)).toEqual(['failed']);
      expect(pan.tags(PAN.vsys, '192.0.2.46')).toEqual([]);
    });

    it('refuses a protected address before the firewall sees a request', () => expectProtectedRefused(() => pan.requests.length));
  });
});
