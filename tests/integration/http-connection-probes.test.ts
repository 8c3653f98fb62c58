/**
 * Connection config rules and `POST /connections/<id>/test` on the real service, on
 * every engine (SPEC.md "Connection", "Actions and connections"), against real peers on
 * 127.0.0.1: an HTTPS OAuth2 token endpoint (trusted through SVC_OUTBOUND_CA_FILE), an
 * HTTP receiver, an OpenSSH server, an SMTP server and an MCP server built with the
 * official SDK. A probe has no side effect: the webhook receiver gets a HEAD and no
 * signed delivery, the SMTP server gets no mail, the SSH server runs no command, the MCP
 * server gets no tool call. No secret appears in any answer or error log line.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startMcpServer } from '../support/mcp-server.ts';
import { startOAuth2Server, type OAuth2Server } from '../support/oauth2-server.ts';
import { startReceiver } from '../support/receiver.ts';
import { e2eEngines } from '../support/service-process.ts';
import { sshdAvailable, startSshd, type TestSshd } from '../support/sshd.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const CLIENT_SECRET = 'cs_probe-secret-7c1d9e';
const API_KEY = 'key_probe-api-key-44b1';
const SMTP_PASSWORD = 'smtp-probe-password-91';
const MCP_TOKEN = 'mcp_probe-bearer-0d5e';

describe.each(e2eEngines)('connection config and probes on $name', ({ server: onServer }) => {
  let svc: InProcessService;
  let oauth: OAuth2Server;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: SMTPServer;
  let smtpPort = 0;
  let mails = 0;
  let sshd: TestSshd | null = null;
  const secrets = [CLIENT_SECRET, API_KEY, SMTP_PASSWORD, MCP_TOKEN];

  beforeAll(async () => {
    oauth = await startOAuth2Server('svc', CLIENT_SECRET);
    receiver = await startReceiver((req, res) => res.writeHead(req.headers['x-api-key'] === 'wrong' || req.path === '/verifying-hook' ? 401 : 200).end());
    smtp = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, callback) =>
        auth.password === SMTP_PASSWORD ? callback(null, { user: auth.username }) : callback(new Error('bad credentials')),
      onData: (stream, _session, callback) => {
        mails++;
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    smtpPort = (smtp.server.address() as AddressInfo).port;
    if (sshdAvailable) sshd = await startSshd();
    svc = await startInProcessService({ server: onServer }, { extraEnv: { SVC_OUTBOUND_CA_FILE: oauth.caFile } });
  });
  afterAll(async () => {
    await svc?.close();
    await oauth?.close();
    await receiver?.close();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
    await sshd?.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await callAs(svc, root, 'POST', '/connections', body);
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; config: Record<string, unknown> };
  };
  const probe = async (id: string) => {
    const res = await callAs(svc, root, 'POST', `/connections/${id}/test`);
    for (const secret of secrets) expect(res.text).not.toContain(secret);
    return res;
  };

  it('checks the known config keys of each kind, naming the key, and fills in their defaults', async () => {
    const refused = async (body: Record<string, unknown>, loc: (string | number)[]) => {
      const res = await callAs(svc, root, 'POST', '/connections', body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    };
    const oauth2 = { auth: 'oauth2_client_credentials', token_url: 'https://id.example/token', client_id: 'svc' };
    await refused({ kind: 'http', name: 'h1', base_url: 'https://api.example', config: { ...oauth2, token_url: undefined } }, ['body', 'config', 'token_url']);
    await refused({ kind: 'http', name: 'h2', base_url: 'https://api.example', config: { ...oauth2, token_url: 'http://id.example/token' } }, [
      'body',
      'config',
      'token_url',
    ]);
    await refused({ kind: 'http', name: 'h3', base_url: 'https://api.example', config: { ...oauth2, client_id: undefined } }, ['body', 'config', 'client_id']);
    await refused({ kind: 'http', name: 'h4', base_url: 'https://api.example', config: { auth: 'digest' } }, ['body', 'config', 'auth']);
    await refused({ kind: 'http', name: 'h5', base_url: 'https://api.example', config: { auth_header: 'Bad Header' } }, ['body', 'config', 'auth_header']);
    await refused({ kind: 'ssh', name: 's1', config: { host: 'h', username: 'u' } }, ['body', 'config', 'known_hosts']);
    await refused({ kind: 'ssh', name: 's2', config: { host: 'h', username: 'u', port: 70000, accept_unknown_host_key: true } }, ['body', 'config', 'port']);
    await refused({ kind: 'ticket_a', name: 't1', base_url: 'https://tickets.example', config: { poll_interval_s: 59 } }, [
      'body',
      'config',
      'poll_interval_s',
    ]);
    await refused({ kind: 'mcp', name: 'm1', base_url: 'https://mcp.example/rpc', config: { allowed_tools: ['a'], read_only_tools: ['a', 'b'] } }, [
      'body',
      'config',
      'read_only_tools',
    ]);
    await refused({ kind: 'detector', name: 'd1', base_url: 'https://detector.example', config: { page_size: 501 } }, ['body', 'config', 'page_size']);
    await refused({ kind: 'detector', name: 'd2', base_url: 'https://detector.example', config: { alerts_path: 'api/alerts' } }, [
      'body',
      'config',
      'alerts_path',
    ]);
    await refused({ kind: 'email_smtp', name: 'e1', base_url: 'smtp://mail.example', config: { from: 'not-an-address' } }, ['body', 'config', 'from']);

    expect((await create({ kind: 'ticket_b', name: 'tickets', base_url: 'https://tickets.example', config: {} })).config).toEqual({
      poll_interval_s: 300,
      inbound_status_map: {},
      outbound_status_map: {},
      mirror_private_cases: false,
    });
    expect((await create({ kind: 'detector', name: 'detector', base_url: 'https://detector.example' })).config).toEqual({
      alerts_path: '/api/v1/alerts',
      rules_path: '/api/v1/rules',
      page_size: 100,
    });
    expect((await create({ kind: 'ssh', name: 'bastion', config: { host: 'h', username: 'u', accept_unknown_host_key: true } })).config).toMatchObject({
      port: 22,
    });
    const custom = await create({ kind: 'http', name: 'custom-keys', base_url: 'https://api.example', config: { vendor_region: 'eu' } });
    expect(custom.config).toEqual({ vendor_region: 'eu', test_mode: false });

    const put = await callAs(svc, root, 'PUT', `/connections/${custom.id}`, { config: { auth: 'oauth2_client_credentials' } });
    expect(put.status).toBe(422);
    expect((await callAs(svc, root, 'GET', `/connections/${custom.id}`)).body.config).toEqual({ vendor_region: 'eu', test_mode: false });
  });

  it('mints a fresh token on every test of an oauth2 http connection, and reports a refused client without its secret', async () => {
    const conn = await create({
      kind: 'http',
      name: 'edr-oauth',
      base_url: `${oauth.origin}/api`,
      secret: CLIENT_SECRET,
      config: { auth: 'oauth2_client_credentials', token_url: oauth.tokenUrl, client_id: 'svc', scope: 'hosts.read' },
    });
    const before = oauth.mints.length;
    const first = await probe(conn.id);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      ok: true,
      kind: 'http',
      probe: 'oauth2_token',
      details: { token_host: new URL(oauth.origin).host, token_minted: true, expires_in: 3600 },
      error: null,
    });
    expect(JSON.stringify(first.body)).not.toMatch(/tok-\d/);
    await probe(conn.id);
    expect(oauth.mints.length - before).toBe(2);
    expect(oauth.api).toHaveLength(0);

    await callAs(svc, root, 'POST', `/connections/${conn.id}/rotate`, { secret: 'cs_not-known-to-the-server' });
    const refused = await probe(conn.id);
    expect(refused.body).toMatchObject({
      ok: false,
      error: {
        type: 'oauth2_token_error',
        message: `connection test: token request to ${new URL(oauth.origin).host} failed with status 401, OAuth error invalid_client`,
      },
    });
    expect(JSON.stringify(svc.errors())).not.toContain(CLIENT_SECRET);
  });

  it('probes an http connection with a GET carrying its header credential, and a webhook with an unsigned HEAD', async () => {
    const good = await create({
      kind: 'http',
      name: 'api-key',
      base_url: `${receiver.url}/v1`,
      secret: API_KEY,
      config: { auth_header: 'X-Api-Key', auth_prefix: '' },
    });
    const bad = await create({
      kind: 'http',
      name: 'api-key-bad',
      base_url: `${receiver.url}/v1`,
      secret: 'wrong',
      config: { auth_header: 'X-Api-Key', auth_prefix: '' },
    });
    const hook = await create({ kind: 'webhook', name: 'probe-hook', base_url: `${receiver.url}/hook`, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    const verifying = await create({
      kind: 'webhook',
      name: 'verifying-hook',
      base_url: `${receiver.url}/verifying-hook`,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    receiver.received.length = 0;
    expect((await probe(good.id)).body).toMatchObject({ ok: true, probe: 'http_get', details: { status: 200 } });
    expect((await probe(bad.id)).body).toMatchObject({ ok: false, error: { type: 'auth_failed' } });
    expect((await probe(hook.id)).body).toMatchObject({ ok: true, kind: 'webhook', probe: 'http_head', details: { status: 200 } });
    // A receiver that verifies signatures refuses the unsigned HEAD, and is still there.
    expect((await probe(verifying.id)).body).toMatchObject({ ok: true, details: { status: 401 } });
    expect(receiver.received.map((r) => [r.path, r.headers['x-api-key'] ?? null, r.headers['webhook-signature'] ?? null])).toEqual([
      ['/v1', API_KEY, null],
      ['/v1', 'wrong', null],
      ['/hook', null, null],
      ['/verifying-hook', null, null],
    ]);
  });

  it('probes an SMTP relay with AUTH and sends no mail', async () => {
    const config = { from: 'soc@example.com', username: 'soc-bot', tls: 'none' };
    const good = await create({ kind: 'email_smtp', name: 'relay', base_url: `smtp://127.0.0.1:${smtpPort}`, secret: SMTP_PASSWORD, config });
    const bad = await create({ kind: 'email_smtp', name: 'relay-bad', base_url: `smtp://127.0.0.1:${smtpPort}`, secret: 'nope', config });
    expect((await probe(good.id)).body).toMatchObject({ ok: true, probe: 'smtp_auth', details: { smtp: `smtp://127.0.0.1:${smtpPort}`, authenticated: true } });
    expect((await probe(bad.id)).body).toMatchObject({ ok: false, error: { type: 'smtp_rejected' } });
    expect(mails).toBe(0);
  });

  it.skipIf(!sshdAvailable)('probes an SSH host: host key and key authentication, no command', async () => {
    if (!sshd) throw new Error('sshd did not start');
    const config = { host: '127.0.0.1', port: sshd.port, username: sshd.username };
    const pinned = await create({ kind: 'ssh', name: 'jump', secret: sshd.clientKey, config: { ...config, known_hosts: sshd.knownHosts } });
    const mismatch = await create({ kind: 'ssh', name: 'jump-other-key', secret: sshd.clientKey, config: { ...config, known_hosts: sshd.otherKnownHosts } });
    expect((await probe(pinned.id)).body).toMatchObject({ ok: true, probe: 'ssh_auth', details: { host: `127.0.0.1:${sshd.port}`, host_key: 'pinned' } });
    expect((await probe(mismatch.id)).body).toMatchObject({ ok: false, error: { type: 'host_key_mismatch' } });
    const text = JSON.stringify((await probe(pinned.id)).body);
    expect(text).not.toContain('PRIVATE KEY');
  });

  it('lists the tools of an MCP server built with the official SDK, reports allowlisted tools it does not advertise, and calls none', async () => {
    const mcp = await startMcpServer(MCP_TOKEN, [
      { name: 'hosts.lookup', readOnly: true },
      { name: 'hosts.isolate', readOnly: false },
    ]);
    try {
      const config = { allowed_tools: ['hosts.lookup', 'hosts.isolate', 'hosts.wipe'], read_only_tools: ['hosts.lookup'] };
      const good = await create({ kind: 'mcp', name: 'edr-mcp', base_url: mcp.url, secret: MCP_TOKEN, config });
      const bad = await create({ kind: 'mcp', name: 'edr-mcp-bad', base_url: mcp.url, secret: 'wrong-token', config });
      const res = await probe(good.id);
      expect(res.body).toMatchObject({
        ok: true,
        kind: 'mcp',
        probe: 'mcp_tools',
        details: { advertised_tools: 2, allowed_not_advertised: ['hosts.wipe'] },
        error: null,
      });
      expect(res.text).not.toContain(MCP_TOKEN);
      expect((await probe(bad.id)).body).toMatchObject({
        ok: false,
        error: { type: 'mcp_error', message: `mcp: ${new URL(mcp.url).host} answered status 401` },
      });
      expect(mcp.toolCalls()).toBe(0);
    } finally {
      await mcp.close();
    }
  });

  it('answers 404 for an unknown id and 403 without manage_connections (every kind has a probe: http-connection-probes-vendors.test.ts)', async () => {
    const ticket = await create({ kind: 'ticket_a', name: 'jira', base_url: 'https://jira.example', config: {} });
    expect((await probe('6d0f0b7c-1a2b-4c3d-8e9f-0a1b2c3d4e5f')).status).toBe(404);
    expect((await callAs(svc, ana, 'POST', `/connections/${ticket.id}/test`)).status).toBe(403);
  });
});
