/**
 * A real IMAP server (Debian's dovecot-imapd) on 127.0.0.1 for tests: its own config, a
 * passwd-file with one user, maildirs and a self-signed certificate in a temp dir, two high
 * ports (IMAP with STARTTLS offered, and IMAPS), run in the foreground as root with mail
 * owned by `nobody`. `dovecotAvailable` is false where dovecot is not installed (.ci/run
 * installs it). `log()` is the server's log, which names every login and, at logout, what
 * the session changed (`deleted=0 expunged=0 trashed=0`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './service-process.ts';
import { listening } from './sshd.ts';
import { selfSignedCertificate } from './tls-cert.ts';

const DOVECOT = '/usr/sbin/dovecot';
export const dovecotAvailable = existsSync(DOVECOT);

/** uid and gid of `nobody`, who owns the mail (dovecot refuses mail access as root). */
const NOBODY = 65534;

export type TestDovecot = {
  /** IMAP port: clear text, STARTTLS offered. */
  port: number;
  /** IMAPS port: TLS from the first byte, with a self-signed certificate (`certFile`) no client trusts unless told to. */
  tlsPort: number;
  /** The server's certificate (PEM file, IP SAN 127.0.0.1), for SVC_OUTBOUND_CA_FILE. */
  certFile: string;
  username: string;
  password: string;
  log: () => string;
  close: () => Promise<void>;
};

export async function startDovecot(): Promise<TestDovecot> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dovecot-'));
  // The auth process runs as the dovecot user and must reach the passwd-file.
  chmodSync(dir, 0o755);
  for (const sub of ['run', 'state', 'home']) mkdirSync(join(dir, sub));
  chownSync(join(dir, 'home'), NOBODY, NOBODY);
  const { certFile } = selfSignedCertificate(dir);
  const [port, tlsPort] = [await freePort(), await freePort()];
  const username = 'soc-bot';
  const password = 'imap-probe-password-3f1';
  writeFileSync(join(dir, 'passwd'), `${username}:{PLAIN}${password}\n`);
  writeFileSync(
    join(dir, 'dovecot.conf'),
    `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <${certFile}
ssl_key = <${join(dir, 'key.pem')}
disable_plaintext_auth = no
auth_mechanisms = plain login
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${NOBODY} gid=${NOBODY} home=${dir}/home/%u
}
mail_location = maildir:~/Maildir
service imap-login {
  chroot =
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = ${tlsPort}
  }
}
service anvil {
  chroot =
}
`,
  );
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const log = () => (existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : '');
  const deadline = Date.now() + 10_000;
  while (!(await listening(port)) || !(await listening(tlsPort))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`dovecot did not start:\n${stderr}\n${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    tlsPort,
    certFile,
    username,
    password,
    log,
    close: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
