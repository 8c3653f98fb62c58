/**
 * A real OpenSSH server (Debian's openssh-server) on 127.0.0.1 for tests: its own
 * config, host key and authorized key in a temp dir, a high port, public-key auth only,
 * as the user running the tests. `sshdAvailable` is false where sshd is not installed
 * (.ci/run installs it).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service-process.ts';

const SSHD = '/usr/sbin/sshd';
export const sshdAvailable = existsSync(SSHD);

export type TestSshd = {
  port: number;
  username: string;
  /** PEM private key authorized on the server (the connection secret). */
  clientKey: string;
  /** The server's host key as a known_hosts line. */
  knownHosts: string;
  /** A known_hosts line of another key, for the mismatch case. */
  otherKnownHosts: string;
  /** The PEM private key of that other key pair, which the server does not authorize. */
  unauthorizedKey: string;
  close: () => Promise<void>;
};

const keygen = (path: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path], { stdio: 'pipe' });

/**
 * Starts sshd on `host` (default 127.0.0.1); with `netns` it runs inside that network
 * namespace (`ip netns exec`), listening on an address of the namespace, so the commands
 * it runs change that namespace only (tests/support/firewall-host.ts).
 */
export async function startSshd(options: { host?: string; netns?: string } = {}): Promise<TestSshd> {
  const host = options.host ?? '127.0.0.1';
  // sshd refuses to start without its privilege-separation directory, which the service manager usually creates.
  if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(tmpdir(), 'svc-sshd-'));
  chmodSync(dir, 0o700);
  for (const name of ['host', 'client', 'other']) keygen(join(dir, name));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')));
  chmodSync(join(dir, 'authorized_keys'), 0o600);
  const port = await freePort();
  const username = userInfo().username;
  writeFileSync(
    join(dir, 'sshd_config'),
    `${[
      `Port ${port}`,
      `ListenAddress ${host}`,
      `HostKey ${join(dir, 'host')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
    ].join('\n')}\n`,
  );
  const args = ['-D', '-e', '-f', join(dir, 'sshd_config')];
  const child: ChildProcess = options.netns
    ? spawn('ip', ['netns', 'exec', options.netns, SSHD, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(SSHD, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const deadline = Date.now() + 10_000;
  while (!(await listening(port, host))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const line = (pub: string) => `[${host}]:${port} ${readFileSync(join(dir, pub), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ')}`;
  return {
    port,
    username,
    clientKey: readFileSync(join(dir, 'client'), 'utf8'),
    knownHosts: line('host.pub'),
    otherKnownHosts: line('other.pub'),
    unauthorizedKey: readFileSync(join(dir, 'other'), 'utf8'),
    close: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether something accepts TCP connections on `host`:`port` (default 127.0.0.1). */
export function listening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
