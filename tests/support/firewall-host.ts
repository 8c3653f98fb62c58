/**
 * A firewall host of the tests' own: a network namespace (`ip netns add`, Debian's
 * iproute2) joined to this machine by a veth pair on a private /30, with the real OpenSSH
 * server running inside it (tests/support/sshd.ts). The `nft` and `iptables` commands the
 * ssh packet-filter packs send change that namespace's ruleset only, never this machine's;
 * `exec` reads the ruleset back from outside. Needs root, iproute2, nftables and iptables
 * (`firewallHostAvailable`); `.ci/run` installs the packages.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { startSshd, sshdAvailable, type TestSshd } from './sshd.ts';

const has = (path: string) => existsSync(path);
export const firewallHostAvailable =
  sshdAvailable && process.getuid?.() === 0 && has('/usr/sbin/ip') && has('/usr/sbin/nft') && (has('/usr/sbin/iptables') || has('/sbin/iptables'));

export type FirewallHost = {
  /** The namespace's address, where its sshd listens. */
  address: string;
  sshd: TestSshd;
  /** Runs `command` inside the namespace; its stdout, or the error's stderr and status when it fails. */
  exec: (command: string[]) => { status: number; stdout: string; stderr: string };
  close: () => Promise<void>;
};

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

/** Creates the namespace, its link and its sshd; `close` removes all three. */
export async function startFirewallHost(): Promise<FirewallHost> {
  const id = randomBytes(3).toString('hex');
  const ns = `svcfw-${id}`;
  // One of 16,384 /30 subnets, from the id's bytes: two files running at once must not pick the same one.
  const bytes = Number.parseInt(id.slice(0, 4), 16);
  const third = bytes >> 8;
  const base = (bytes & 0x3f) * 4;
  const outside = `10.231.${third}.${base + 1}`;
  const address = `10.231.${third}.${base + 2}`;
  ip('netns', 'add', ns);
  try {
    ip('link', 'add', `svh${id}`, 'type', 'veth', 'peer', 'name', `svn${id}`);
    ip('link', 'set', `svn${id}`, 'netns', ns);
    ip('addr', 'add', `${outside}/30`, 'dev', `svh${id}`);
    ip('link', 'set', `svh${id}`, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${address}/30`, 'dev', `svn${id}`);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', `svn${id}`, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
    const sshd = await startSshd({ host: address, netns: ns });
    return {
      address,
      sshd,
      exec: (command) => {
        try {
          return { status: 0, stdout: execFileSync('ip', ['netns', 'exec', ns, ...command], { stdio: 'pipe' }).toString(), stderr: '' };
        } catch (error) {
          const e = error as { status?: number; stdout?: Buffer; stderr?: Buffer };
          return { status: e.status ?? -1, stdout: e.stdout?.toString() ?? '', stderr: e.stderr?.toString() ?? '' };
        }
      },
      close: async () => {
        await sshd.close();
        ip('netns', 'del', ns);
      },
    };
  } catch (error) {
    ip('netns', 'del', ns);
    throw error;
  }
}
