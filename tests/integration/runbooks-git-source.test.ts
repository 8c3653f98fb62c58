/**
 * The runbook Git source of `POST /runbooks/sync` on the embedded engine (peerEngines) (SPEC.md "Runbooks and
 * runs", "Runbook source rules"): a real repository over HTTPS on 127.0.0.1 (dumb HTTP,
 * self-signed certificate trusted through SVC_RUNBOOKS_GIT_CA_FILE), the version rule
 * across commits, a real HTTP CONNECT proxy honoured through HTTPS_PROXY and skipped for
 * NO_PROXY hosts, a SOCKS proxy failing the sync without any connection, an
 * unreachable source answering 502 with nothing changed, a source that never answers
 * stopped at its time limit, and a symlink in the repository read as the plain file git
 * stores, never as the file outside the checkout it points to.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHttpsServer, type GitHttpsServer } from '../support/git-https-server.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { peerEngines, freePort } from '../support/service-process.ts';
import { selfSignedCertificate } from '../support/tls-cert.ts';

const runbook = (id: string, version: number) => `
id: ${id}
name: ${id}
version: ${version}
trigger: { type: manual }
steps:
  - id: note
    action: case.update
    with: { comment: "from git v${version}" }
`;

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'admin' }]);

/** A real HTTP CONNECT proxy on 127.0.0.1 that counts the tunnels it opens. */
async function startConnectProxy(): Promise<{ url: string; tunnels: () => number; close: () => Promise<void> }> {
  let tunnels = 0;
  const server: Server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client, head) => {
    tunnels++;
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels: () => tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(peerEngines)('runbook Git source on $name', ({ server }) => {
  let repo: GitHttpsServer;
  let proxy: Awaited<ReturnType<typeof startConnectProxy>>;
  const services: InProcessService[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const svc = await startInProcessService(
      { server },
      { extraEnv: { SVC_RUNBOOKS_GIT_URL: repo.url, SVC_RUNBOOKS_GIT_PATH: 'runbooks', SVC_RUNBOOKS_GIT_CA_FILE: repo.caFile, ...extra } },
    );
    services.push(svc);
    return svc;
  };
  const sync = (svc: InProcessService, who = root) => callAs(svc, who, 'POST', '/runbooks/sync');

  beforeAll(async () => {
    repo = await startGitHttpsServer();
    repo.commit({ 'runbooks/notify.yml': runbook('git-notify', 1), 'runbooks/triage.yaml': runbook('git-triage', 3), 'README.md': 'runbooks' }, 'first');
    proxy = await startConnectProxy();
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
    await repo?.close();
    await proxy?.close();
  });

  it('pulls the repository, then applies the version rule to the next commit', async () => {
    const svc = await start();
    const first = await sync(svc);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ created: ['git-notify', 'git-triage'], updated: [], skipped: [], errors: [] });
    expect((await callAs(svc, root, 'GET', '/runbooks/git-notify')).body).toMatchObject({ version: 1 });

    repo.commit({ 'runbooks/notify.yml': runbook('git-notify', 2), 'runbooks/triage.yaml': runbook('git-triage', 2) }, 'second');
    const second = await sync(svc);
    expect(second.body.created).toEqual([]);
    expect(second.body.updated).toEqual(['git-notify']);
    expect(second.body.errors).toEqual([{ file: 'triage.yaml', errors: [{ loc: ['version'], msg: expect.stringMatching(/version/) }] }]);
    const triage = (await callAs(svc, root, 'GET', '/runbooks/git-triage')).body;
    expect(triage.version).toBe(3);
    expect((await callAs(svc, root, 'GET', '/runbooks/git-notify')).body.versions).toHaveLength(2);
    expect(proxy.tunnels()).toBe(0);
    expect((await sync(svc, ana)).status).toBe(403);
  });

  it('goes through an HTTPS_PROXY, and straight to a host NO_PROXY names', async () => {
    const through = await start({ HTTPS_PROXY: proxy.url });
    const before = proxy.tunnels();
    expect((await sync(through)).status).toBe(200);
    expect(proxy.tunnels()).toBeGreaterThan(before);

    const direct = await start({ https_proxy: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
    const tunnels = proxy.tunnels();
    expect((await sync(direct)).status).toBe(200);
    expect(proxy.tunnels()).toBe(tunnels);
  });

  it('fails on a SOCKS proxy without connecting anywhere, and on an unreachable source with nothing changed', async () => {
    let socksConnections = 0;
    const socks = createTcpServer((s) => {
      socksConnections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => socks.listen(0, '127.0.0.1', resolve));
    const svc = await start({ ALL_PROXY: `socks5://127.0.0.1:${(socks.address() as AddressInfo).port}` });
    const requests = repo.requests();
    const refused = await sync(svc);
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ code: 'runbook_source_proxy_refused', params: { scheme: 'socks5' } });
    expect(socksConnections).toBe(0);
    expect(repo.requests()).toBe(requests);
    await new Promise<void>((resolve) => socks.close(() => resolve()));

    const gone = await start({ SVC_RUNBOOKS_GIT_URL: `https://127.0.0.1:${await freePort()}/org/runbooks.git` });
    const failed = await sync(gone);
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: 'runbook_source_unavailable', params: { host: expect.stringMatching(/^127\.0\.0\.1:\d+$/) } });
    expect((await callAs(gone, root, 'GET', '/runbooks')).body.items).toEqual([]);
    // Two services start on fresh embedded databases in this one test: past 30 s on a loaded CI machine.
  }, 120_000);

  it('stops a source that never answers at SVC_RUNBOOKS_GIT_TIMEOUT_MS, git and its HTTPS helper both', async () => {
    const { key, cert, certFile } = selfSignedCertificate();
    // Connections, not requests: under load git's TLS handshake alone can take the whole budget.
    let connections = 0;
    const silent = createHttpsServer({ key, cert }, () => {});
    silent.on('connection', () => void connections++);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const svc = await start({
        SVC_RUNBOOKS_GIT_URL: `https://127.0.0.1:${(silent.address() as AddressInfo).port}/org/runbooks.git`,
        SVC_RUNBOOKS_GIT_CA_FILE: certFile,
        SVC_RUNBOOKS_GIT_TIMEOUT_MS: '1000',
      });
      const failed = await sync(svc);
      expect(failed.status).toBe(502);
      expect(failed.body).toMatchObject({ code: 'runbook_source_unavailable', detail: expect.stringContaining('timed out after 1000 ms') });
      expect(connections).toBeGreaterThan(0);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('checks a symlink out as the plain file git stores, so it cannot read a file outside the checkout', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'svc-git-outside-'));
    try {
      writeFileSync(join(outside, 'secret.yml'), runbook('outside-secret', 1));
      repo.commit({}, 'link out', { 'runbooks/linked.yml': join(outside, 'secret.yml') });
      const svc = await start();
      const res = await sync(svc);
      expect(res.status, res.text).toBe(200);
      expect(res.body.created).not.toContain('outside-secret');
      expect(res.body.errors.map((e: { file: string }) => e.file)).toContain('linked.yml');
      expect((await callAs(svc, root, 'GET', '/runbooks/outside-secret')).status).toBe(404);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
