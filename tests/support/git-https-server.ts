/**
 * A real Git repository served over HTTPS on 127.0.0.1 with git's dumb HTTP protocol
 * (static files of a bare repository after `git update-server-info`), under a
 * self-signed certificate for IP 127.0.0.1 (tls-cert.ts). Counts requests.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { selfSignedCertificate } from './tls-cert.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    stdio: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' },
  });

export type GitHttpsServer = {
  /** The clone URL, `https://127.0.0.1:<port>/org/runbooks.git`. */
  url: string;
  /** PEM of the server's self-signed certificate: trust it with SVC_RUNBOOKS_GIT_CA_FILE. */
  caFile: string;
  requests: () => number;
  /** Writes `files` (path to text) and `links` (path to symlink target) into the work tree, commits and publishes. */
  commit: (files: Record<string, string>, message: string, links?: Record<string, string>) => void;
  close: () => Promise<void>;
};

export async function startGitHttpsServer(): Promise<GitHttpsServer> {
  const root = mkdtempSync(join(tmpdir(), 'svc-git-server-'));
  const work = join(root, 'work');
  const bare = join(root, 'runbooks.git');
  mkdirSync(work);
  git(work, 'init', '--quiet');
  const { key, cert, certFile: caFile } = selfSignedCertificate(root);
  let count = 0;
  const server = createServer({ key, cert }, (req, res) => {
    count++;
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'https://x').pathname));
    const prefix = '/org/runbooks.git/';
    const file = path.startsWith(prefix) ? join(bare, path.slice(prefix.length)) : null;
    if (file === null || !file.startsWith(bare) || !statSync(file, { throwIfNoEntry: false })?.isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const commit = (files: Record<string, string>, message: string, links: Record<string, string> = {}) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), text);
    }
    for (const [path, target] of Object.entries(links)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      symlinkSync(target, join(work, path));
    }
    git(work, 'add', '-A');
    git(work, 'commit', '--quiet', '-m', message);
    if (statSync(bare, { throwIfNoEntry: false })) git(work, 'push', '--quiet', bare, 'HEAD:main');
    else git(root, 'clone', '--quiet', '--bare', work, bare);
    git(bare, 'update-server-info');
  };
  return {
    url: `https://127.0.0.1:${port}/org/runbooks.git`,
    caFile,
    requests: () => count,
    commit,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
