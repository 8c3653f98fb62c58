/**
 * The shipped ssh packet-filter adapter packs on real nftables and iptables, on every
 * engine (issue 22 "Real parts": the ssh packet-filter packs run real `nft` and `iptables`
 * over the real OpenSSH server inside a network namespace the test creates, and the test
 * reads the ruleset back). Each pack is installed from packs/, bound in the response
 * policy, and driven by `response.ip_block`, `response.ip_status` and
 * `response.ip_unblock`: the address lands in the namespace's ruleset, a second block is
 * already enforced (nft's "File exists"; iptables through the ownership read, as `-I`
 * would insert twice), the read-back is enforced by exit 0, the release removes it, a
 * second release is already gone (the tools' own absent-rule wording), and a TTL end
 * removes the address through the worker and the injected clock. This machine's own
 * ruleset is never touched.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import { firewallHostAvailable, startFirewallHost, type FirewallHost } from '../support/firewall-host.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { ipStepRunbookYaml } from '../support/runbook-definitions.ts';
import { installAndBindIpAdapter, runIpStep } from '../support/shipped-adapters.ts';
import { peerEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

const runbooks = {
  'block.yml': ipStepRunbookYaml('nft-block', 'response.ip_block', ', ttl_seconds: 600'),
  'short.yml': ipStepRunbookYaml('nft-block-short', 'response.ip_block', ', ttl_seconds: 60'),
  'status.yml': ipStepRunbookYaml('nft-status', 'response.ip_status'),
  'unblock.yml': ipStepRunbookYaml('nft-unblock', 'response.ip_unblock'),
};

type PackCase = { pack: string; setup: string[][]; parameters: Record<string, string>; ruleset: string[] };
const packCases: PackCase[] = [
  {
    pack: 'ssh_packet_filter_a',
    setup: [
      ['nft', 'add', 'table', 'inet', 'svc'],
      ['nft', 'add', 'set', 'inet', 'svc', 'blocklist', '{ type ipv4_addr; flags interval; }'],
      ['nft', 'add', 'chain', 'inet', 'svc', 'input', '{ type filter hook input priority 0; policy accept; }'],
      ['nft', 'add', 'rule', 'inet', 'svc', 'input', 'ip', 'saddr', '@blocklist', 'drop'],
    ],
    parameters: { table: 'svc', set: 'blocklist' },
    ruleset: ['nft', 'list', 'set', 'inet', 'svc', 'blocklist'],
  },
  { pack: 'ssh_packet_filter_b', setup: [], parameters: { chain: 'INPUT' }, ruleset: ['iptables', '-S', 'INPUT'] },
];
const cases = packCases.flatMap((c) => peerEngines.map((e) => ({ ...c, ...e })));

describe.skipIf(!firewallHostAvailable).each(cases)(
  'the shipped $pack pack on a real packet filter on $name',
  ({ pack, setup, parameters, ruleset, server }) => {
    const clock = manualClock(new Date());
    let svc: InProcessService;
    let host: FirewallHost;

    beforeAll(async () => {
      host = await startFirewallHost();
      for (const command of setup) expect(host.exec(command).status, command.join(' ')).toBe(0);
      svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: join(import.meta.dirname, '../../packs') } });
      const conn = await callAs(svc, root, 'POST', '/connections', {
        kind: 'ssh',
        name: 'fw',
        secret: host.sshd.clientKey,
        config: { host: host.address, port: host.sshd.port, username: host.sshd.username, known_hosts: host.sshd.knownHosts },
      });
      expect(conn.status, conn.text).toBe(201);
      await installAndBindIpAdapter(svc, root, pack, 'fw', parameters);
    }, 60_000);
    afterAll(async () => {
      await svc?.close();
      await host?.close();
    });

    const inSet = () => host.exec(ruleset).stdout;
    const run = async (slug: string, ip: string) => (await runIpStep(svc, root, slug, ip)).step;

    it('blocks in the ruleset, reads back by exit code, reads a duplicate and a second release from the wording of the tool itself, and releases', async () => {
      expect((await run('nft-block', '203.0.113.7')).output).toMatchObject({ enforced: true, enforcement_performed: true });
      expect(inSet()).toContain('203.0.113.7');
      expect((await run('nft-block', '203.0.113.7')).output).toMatchObject({ enforced: true, enforcement_performed: false });
      expect(inSet().match(/203\.0\.113\.7/g)).toHaveLength(1);
      expect((await run('nft-status', '203.0.113.7')).output).toEqual({
        target: '203.0.113.7',
        enforced: true,
        enforcement_performed: false,
        state: 'enforced',
      });
      expect((await run('nft-status', '203.0.113.8')).output).toMatchObject({ enforced: false, state: 'not_enforced' });

      const released = await run('nft-unblock', '203.0.113.7');
      expect(released.status, JSON.stringify(released)).toBe('ok');
      expect(inSet()).not.toContain('203.0.113.7');
      const again = await run('nft-unblock', '203.0.113.7');
      expect(again.output, JSON.stringify(again)).toMatchObject({ enforced: false, enforcement_performed: false });
      if (pack === 'ssh_packet_filter_b') expect(inSet().match(/203\.0\.113\./g)).toBeNull();
    });

    it('removes the address from the ruleset when the TTL ends, through the worker and the injected clock', async () => {
      const blocked = await run('nft-block-short', '198.51.100.77');
      expect(blocked.output).toMatchObject({ enforced: true });
      expect(inSet()).toContain('198.51.100.77');
      clock.advance(61_000);
      await expect.poll(async () => (await callAs(svc, root, 'GET', `/effects/${blocked.output.effect_id}`)).body.status, { timeout: 15_000 }).toBe('reversed');
      expect(inSet()).not.toContain('198.51.100.77');
    });
  },
);
