/**
 * The Git source of `POST /runbooks/sync` (SPEC.md "Runbook source rules"): an
 * `https://` repository fetched with the system `git` into a fresh temporary directory.
 * scp-style, `file://`, other schemes, local paths and credentials in the URL are
 * refused. Proxies come from the HTTP(S)/ALL/NO proxy variables the service started
 * with; the one that applies must be `http://` or `https://`: a SOCKS proxy fails the
 * sync instead of connecting directly. git runs with an empty configuration, no
 * prompts, no protocol but https, no redirects, symlinks checked out as plain files (so a
 * repository cannot point the loader at files outside its checkout) and a time limit
 * that kills git and its HTTPS helper together.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { DomainError } from '../../domain/shared/errors.ts';

export type GitSourceConfig = {
  url: string;
  /** Branch or tag; null: the remote's default branch. */
  ref: string | null;
  /** Sub-directory of the runbooks, relative to the repository root ('' for the root). */
  path: string;
  /** PEM bundle trusted for the fetch instead of the system store (a private CA); null: the system's. */
  caFile: string | null;
  timeoutMs: number;
};

/** The proxy variables of the service's environment (either case), as configuration read them. */
export type ProxyEnv = { httpsProxy: string | null; allProxy: string | null; noProxy: string | null };

/** Why `url` cannot be a runbook Git source, or null when it can. */
export function gitUrlProblem(url: string): string | null {
  if (/^[^/:]+@[^/:]+:/.test(url)) return 'scp-style addresses are refused; use an https:// URL';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an https:// URL (local paths are refused)';
  }
  if (parsed.protocol !== 'https:') return `must be an https:// URL, not ${parsed.protocol}//`;
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials';
  return null;
}

/** Why `path` cannot be the runbooks sub-directory (absolute, or leaving the repository), or null. */
export function gitPathProblem(path: string): string | null {
  if (path.startsWith('/')) return 'must be relative to the repository root';
  const n = normalize(path === '' ? '.' : path);
  return n === '..' || n.startsWith('../') ? 'must stay inside the repository' : null;
}

/**
 * The proxy git should use for `url` under `env`: null for a direct connection (no proxy
 * set, or the host listed in NO_PROXY), else the proxy URL. Throws 502
 * `runbook_source_proxy_refused` for a proxy that is not http:// or https://.
 */
export function gitProxyFor(url: URL, env: ProxyEnv): string | null {
  const proxy = env.httpsProxy ?? env.allProxy;
  if (proxy === null || proxy === '' || noProxyMatches(url, env.noProxy)) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(proxy)?.[1]?.toLowerCase() ?? 'http';
  if (scheme !== 'http' && scheme !== 'https') {
    throw new DomainError(
      'runbook_source_proxy_refused',
      502,
      `the ${scheme} proxy configured for ${url.host} is refused: a runbook Git source needs an http or https proxy`,
      { scheme },
    );
  }
  return proxy;
}

/** curl's NO_PROXY rules: `*`, or host names and suffixes (`example.com`, `.example.com`), optional `:port`. */
function noProxyMatches(url: URL, noProxy: string | null): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (noProxy ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '')
    .some((entry) => {
      if (entry === '*') return true;
      const [name = '', port] = entry.startsWith('[') ? [entry.slice(1, entry.indexOf(']')), entry.split(']:')[1]] : entry.split(':');
      if (port !== undefined && port !== (url.port || '443')) return false;
      const bare = name.replace(/^\./, '');
      return host === bare || host.endsWith(`.${bare}`);
    });
}

/**
 * Clones the source into a fresh temporary directory and answers the runbooks
 * directory inside it; `cleanup` removes the clone. Throws 502
 * `runbook_source_unavailable` (git failed: unreachable, TLS, missing ref, timeout; the
 * message names the host, never the URL's path or git's output) or
 * `runbook_source_proxy_refused`; 422-like problems of the configuration were refused at start.
 */
export async function fetchGitSource(source: GitSourceConfig, proxyEnv: ProxyEnv): Promise<{ dir: string; cleanup: () => void }> {
  const url = new URL(source.url);
  const proxy = gitProxyFor(url, proxyEnv);
  const home = mkdtempSync(join(tmpdir(), 'svc-git-home-'));
  const checkout = join(home, 'checkout');
  const cleanup = () => rmSync(home, { recursive: true, force: true });
  const config = [
    'protocol.allow=never',
    'protocol.https.allow=always',
    'http.followRedirects=false',
    'core.symlinks=false',
    ...(source.caFile ? [`http.sslCAInfo=${source.caFile}`] : []),
    ...(proxy ? [`http.proxy=${proxy}`] : []),
  ].flatMap((c) => ['-c', c]);
  const args = [...config, 'clone', '--quiet', '--no-tags', '--single-branch', ...(source.ref ? ['--branch', source.ref] : []), '--', source.url, checkout];
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
  };
  let timedOut = false;
  try {
    await new Promise<void>((resolve, reject) => {
      // A process group of its own: killing only git would leave git-remote-https holding the connection and git's output pipes open.
      const child = spawn('git', args, { env, detached: true, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git exited with ${code ?? 'a signal'}`))));
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // The group ended between the deadline and the kill: nothing is left to stop.
        }
      }, source.timeoutMs);
      child.on('exit', () => clearTimeout(timer));
    });
  } catch {
    cleanup();
    throw new DomainError(
      'runbook_source_unavailable',
      502,
      `fetching the runbook Git source at ${url.host} ${timedOut ? `timed out after ${source.timeoutMs} ms` : 'failed'}`,
      { host: url.host },
    );
  }
  return { dir: join(checkout, source.path), cleanup };
}
