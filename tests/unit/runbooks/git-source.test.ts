/**
 * Runbook Git source rules (SPEC.md "Runbook source rules"): which URLs, paths and
 * proxies are accepted, and the configuration refusing the rest at start.
 */
import { describe, expect, it } from 'vitest';
import { gitPathProblem, gitProxyFor, gitUrlProblem } from '../../../adapters/runbooks/git-source.ts';
import { loadConfig } from '../../../runtime/config.ts';

const none = { httpsProxy: null, allProxy: null, noProxy: null };
const url = new URL('https://git.example.com/soc/runbooks.git');

describe('the runbook Git source', () => {
  it('takes https:// URLs only: no scp-style, file://, other schemes, local paths or credentials', () => {
    expect(gitUrlProblem('https://git.example.com/soc/runbooks.git')).toBeNull();
    for (const bad of [
      'git@github.com:soc/runbooks.git',
      'file:///srv/runbooks.git',
      '/srv/runbooks.git',
      './runbooks',
      'http://git.example.com/r.git',
      'ssh://git@git.example.com/r.git',
      'git://git.example.com/r.git',
      'https://user:token@git.example.com/r.git',
    ]) {
      expect(gitUrlProblem(bad), bad).not.toBeNull();
    }
  });

  it('keeps the runbooks sub-directory inside the repository', () => {
    for (const ok of ['', 'runbooks', 'soc/runbooks/']) expect(gitPathProblem(ok), ok).toBeNull();
    for (const bad of ['/etc', '..', '../x', 'a/../../x']) expect(gitPathProblem(bad), bad).not.toBeNull();
  });

  it('picks HTTPS_PROXY, else ALL_PROXY, skips NO_PROXY hosts, and refuses a SOCKS proxy', () => {
    expect(gitProxyFor(url, none)).toBeNull();
    expect(gitProxyFor(url, { ...none, allProxy: 'http://proxy:3128' })).toBe('http://proxy:3128');
    expect(gitProxyFor(url, { ...none, httpsProxy: 'https://proxy:3129', allProxy: 'socks5://s:1080' })).toBe('https://proxy:3129');
    expect(gitProxyFor(url, { ...none, httpsProxy: 'proxy:3128' })).toBe('proxy:3128');
    for (const noProxy of ['*', 'example.com', '.example.com', 'git.example.com:443', 'other.org, git.example.com']) {
      expect(gitProxyFor(url, { ...none, httpsProxy: 'socks5://s:1080', noProxy }), noProxy).toBeNull();
    }
    expect(gitProxyFor(url, { ...none, httpsProxy: 'http://p:1', noProxy: 'git.example.com:8443' })).toBe('http://p:1');
    for (const socks of ['socks5://s:1080', 'socks5h://s:1080', 'socks4://s:1080', 'SOCKS4A://s:1080']) {
      expect(() => gitProxyFor(url, { ...none, allProxy: socks }), socks).toThrow(expect.objectContaining({ code: 'runbook_source_proxy_refused' }));
    }
  });

  it('refuses a forbidden URL or path at start, naming the variable and not the value', () => {
    expect(() => loadConfig({ SVC_RUNBOOKS_GIT_URL: 'git@github.com:soc/secret-repo.git' })).toThrow(/^SVC_RUNBOOKS_GIT_URL scp-style/);
    expect(() => loadConfig({ SVC_RUNBOOKS_GIT_URL: 'https://u:hunter2@git.example.com/r.git' })).toThrow(/^SVC_RUNBOOKS_GIT_URL must not carry credentials$/);
    expect(() => loadConfig({ SVC_RUNBOOKS_GIT_URL: 'https://git.example.com/r.git', SVC_RUNBOOKS_GIT_PATH: '../x' })).toThrow(/^SVC_RUNBOOKS_GIT_PATH/);
    expect(loadConfig({ SVC_RUNBOOKS_GIT_URL: 'https://git.example.com/r.git' }).runbooksGit).toMatchObject({
      ref: null,
      path: '',
      caFile: null,
      timeoutMs: 60_000,
    });
  });
});
