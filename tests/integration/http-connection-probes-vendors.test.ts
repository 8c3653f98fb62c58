/**
 * `POST /connections/<id>/test` for the vendor and suite kinds on the real service, on
 * the embedded engine (peerEngines) (SPEC.md "Connection", "Actions and connections"; docs/configuration.md
 * "Connections"), against real peers on 127.0.0.1 that check method, path and credential
 * as the vendor does: the detector and pipeline stand-ins of docs/suite-contracts.md with
 * an HTTPS OAuth2 server as the workload exchange, Slack, Jira, ServiceNow, PagerDuty and
 * Opsgenie stand-ins, a plain receiver for the Teams webhook origin, a Graph stand-in
 * taking tokens from that OAuth2 server, an S3 stand-in that verifies SigV4, and Debian's
 * dovecot for IMAP. For each kind a probe passes with the right credential and fails with
 * a typed error with a wrong one; no stand-in receives anything that would act (no message,
 * page, ticket, deploy request, detector change, mail change or object write), and no
 * secret appears in an answer or an error log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatAServer } from '../support/chat-a-server.ts';
import { startDetectorServer, type DetectorServer } from '../support/detector-server.ts';
import { dovecotAvailable, startDovecot, type TestDovecot } from '../support/dovecot.ts';
import { startGraphServer } from '../support/graph-server.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startOAuth2Server, type OAuth2Server } from '../support/oauth2-server.ts';
import { startPagerAServer, startPagerBServer } from '../support/pager-servers.ts';
import { startPipelineServer } from '../support/pipeline-server.ts';
import { startReceiver } from '../support/receiver.ts';
import { startS3Server } from '../support/s3-server.ts';
import { peerEngines, freePort } from '../support/service-process.ts';
import { JIRA_TOKEN, SNOW_PASSWORD, startTicketAServer, startTicketBServer } from '../support/ticket-servers.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const CLIENT_SECRET = 'cs_vendor-probe-secret-0a7e';
const PIPELINE_KEY = 'pk_pipeline-probe-key-61c2';
const BOT_TOKEN = 'xoxb-probe-bot-token-5d0';
const SIGNING_SECRET = 'slack-signing-secret-probe-77';
const ROUTING_KEY = 'R0123456789abcdef0123456789ABCDE';
const GENIE_KEY = 'genie-probe-key-9b3a';
const S3 = { accessKeyId: 'AKIAPROBE0EXAMPLE01', secretAccessKey: 's3-probe-secret-access-key/8f2K', region: 'eu-west-1' };
const WEBHOOK_PATH = '/webhookb2/0c1d/IncomingWebhook/7e9f/secret-part-3a1';

type Peers = {
  oauth: OAuth2Server;
  detector: DetectorServer;
  pipeline: Awaited<ReturnType<typeof startPipelineServer>>;
  chatA: Awaited<ReturnType<typeof startChatAServer>>;
  chatB: Awaited<ReturnType<typeof startReceiver>>;
  jira: Awaited<ReturnType<typeof startTicketAServer>>;
  snow: Awaited<ReturnType<typeof startTicketBServer>>;
  pagerA: Awaited<ReturnType<typeof startPagerAServer>>;
  pagerB: Awaited<ReturnType<typeof startPagerBServer>>;
  graph: Awaited<ReturnType<typeof startGraphServer>>;
  s3: Awaited<ReturnType<typeof startS3Server>>;
  dovecot: TestDovecot | null;
};

describe.each(peerEngines)('vendor connection probes on $name', ({ server: onServer }) => {
  let svc: InProcessService;
  let p: Peers;
  const secrets = [
    CLIENT_SECRET,
    PIPELINE_KEY,
    BOT_TOKEN,
    SIGNING_SECRET,
    ROUTING_KEY,
    GENIE_KEY,
    S3.secretAccessKey,
    WEBHOOK_PATH,
    JIRA_TOKEN,
    SNOW_PASSWORD,
    'imap-probe-password-3f1',
  ];

  beforeAll(async () => {
    const oauth = await startOAuth2Server('svc', CLIENT_SECRET);
    p = {
      oauth,
      detector: await startDetectorServer([], oauth.grantOf),
      pipeline: await startPipelineServer(PIPELINE_KEY),
      chatA: await startChatAServer(BOT_TOKEN, { unknownChannel: 'C0UNKNOWN', rateLimitedChannel: 'C0LIMITED' }),
      chatB: await startReceiver(),
      jira: await startTicketAServer('soc@example.com', JIRA_TOKEN, ['SEC']),
      snow: await startTicketBServer('svc.integration', SNOW_PASSWORD),
      pagerA: await startPagerAServer(),
      pagerB: await startPagerBServer(GENIE_KEY),
      graph: await startGraphServer(['soc@example.com'], oauth.grantOf),
      s3: await startS3Server(S3, { 'svc-evidence': ['case-1/a.pcap', 'case-1/b.log'] }),
      dovecot: dovecotAvailable ? await startDovecot() : null,
    };
    svc = await startInProcessService(
      { server: onServer },
      {
        extraEnv: {
          SVC_IDENTITY_URL: oauth.origin,
          SVC_EXCHANGE_TOKEN_PATH: '/oauth/token',
          SVC_EXCHANGE_CLIENT_SECRET: CLIENT_SECRET,
          SVC_OUTBOUND_CA_FILE: oauth.caFile,
        },
      },
    );
  });
  afterAll(async () => {
    await svc?.close();
    for (const peer of Object.values(p ?? {})) await peer?.close();
    const logged = JSON.stringify(svc?.errors() ?? []);
    for (const secret of secrets) expect(logged).not.toContain(secret);
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await callAs(svc, root, 'POST', '/connections', body);
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; config: Record<string, unknown> };
  };
  const probe = async (id: string) => {
    const res = await callAs(svc, root, 'POST', `/connections/${id}/test`);
    expect(res.status, res.text).toBe(200);
    for (const secret of secrets) expect(res.text).not.toContain(secret);
    return res.body as { ok: boolean; kind: string; probe: string; details: Record<string, unknown>; error: { type: string; message: string } | null };
  };
  const seen = (received: { method: string; path: string }[]) => received.map((r) => `${r.method} ${r.path}`);

  it('checks the imap, mailbox_graph and object_storage config keys, naming the key, and fills in their defaults', async () => {
    const refused = async (body: Record<string, unknown>, key: string) => {
      const res = await callAs(svc, root, 'POST', '/connections', body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['body', 'config', key]);
    };
    await refused({ kind: 'imap', name: 'i1', config: { username: 'u' } }, 'host');
    await refused({ kind: 'imap', name: 'i2', config: { host: 'h', username: 'u', tls: 'ssl' } }, 'tls');
    await refused({ kind: 'imap', name: 'i3', config: { host: 'h', username: 'u', port: 0 } }, 'port');
    await refused({ kind: 'mailbox_graph', name: 'g1', base_url: 'https://graph.microsoft.com/v1.0', config: { tenant_id: 't', client_id: 'c' } }, 'mailbox');
    await refused(
      {
        kind: 'mailbox_graph',
        name: 'g2',
        base_url: 'https://graph.microsoft.com/v1.0',
        config: { tenant_id: 't', client_id: 'c', mailbox: 'm', token_url: 'http://login.example/token' },
      },
      'token_url',
    );
    await refused({ kind: 'object_storage', name: 'o1', base_url: 'https://s3.example', config: { bucket: 'Bad_Bucket', access_key_id: 'k' } }, 'bucket');
    await refused({ kind: 'object_storage', name: 'o2', base_url: 'https://s3.example', config: { bucket: 'logs' } }, 'access_key_id');

    expect((await create({ kind: 'imap', name: 'imap-defaults', config: { host: 'imap.example', username: 'soc' } })).config).toEqual({
      host: 'imap.example',
      username: 'soc',
      tls: 'implicit',
      port: 993,
    });
    expect((await create({ kind: 'imap', name: 'imap-starttls', config: { host: 'imap.example', username: 'soc', tls: 'starttls' } })).config).toMatchObject({
      port: 143,
    });
    expect(
      (
        await create({
          kind: 'mailbox_graph',
          name: 'graph-defaults',
          base_url: 'https://graph.microsoft.com/v1.0',
          config: { tenant_id: 'contoso.onmicrosoft.com', client_id: 'app', mailbox: 'soc@contoso.com' },
        })
      ).config,
    ).toMatchObject({
      token_url: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token',
    });
    expect(
      (await create({ kind: 'object_storage', name: 's3-defaults', base_url: 'https://s3.example', config: { bucket: 'logs', access_key_id: 'AKIA1' } }))
        .config,
    ).toEqual({ bucket: 'logs', access_key_id: 'AKIA1', region: 'us-east-1', path_style: true });
  });

  it('has a probe for every connection kind of SPEC.md: none answers 501, an unreachable peer is ok:false', async () => {
    const closed = `127.0.0.1:${await freePort()}`;
    const connections: Record<string, unknown>[] = [
      { kind: 'detector', base_url: `http://${closed}` },
      { kind: 'pipeline', base_url: `http://${closed}`, secret: 'k' },
      { kind: 'chat_a', base_url: `http://${closed}/api`, secret: 's', bot_token: 'xoxb-1' },
      { kind: 'ticket_a', base_url: `http://${closed}`, secret: 't', config: { email: 'a@example.com' } },
      { kind: 'ticket_b', base_url: `http://${closed}`, secret: 't', config: { username: 'u' } },
      { kind: 'pager_a', base_url: `http://${closed}`, secret: ROUTING_KEY.toLowerCase() },
      { kind: 'pager_b', base_url: `http://${closed}`, secret: 'g' },
      { kind: 'chat_b', base_url: `http://${closed}`, secret: `http://${closed}/hook` },
      { kind: 'email_smtp', base_url: `smtp://${closed}`, secret: 'p', config: { from: 'soc@example.com', tls: 'none', username: 'u' } },
      { kind: 'imap', secret: 'p', config: { host: '127.0.0.1', port: Number(closed.split(':')[1]), tls: 'none', username: 'u' } },
      {
        kind: 'mailbox_graph',
        base_url: `http://${closed}/v1.0`,
        secret: 'c',
        config: { tenant_id: 't', client_id: 'c', mailbox: 'm@example.com', token_url: `https://${closed}/token` },
      },
      { kind: 'mcp', base_url: `http://${closed}/rpc`, secret: 'm' },
      { kind: 'object_storage', base_url: `http://${closed}`, secret: 's', config: { bucket: 'logs', access_key_id: 'AKIA1' } },
      { kind: 'webhook', base_url: `http://${closed}/hook`, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      { kind: 'http', base_url: `http://${closed}/api`, secret: 'k' },
      { kind: 'ssh', secret: 'not a key', config: { host: '127.0.0.1', port: Number(closed.split(':')[1]), username: 'u', accept_unknown_host_key: true } },
    ];
    expect(connections).toHaveLength(16);
    for (const body of connections) {
      const conn = await create({ ...body, name: `unreachable-${String(body.kind).replace('_', '-')}` });
      const answer = await probe(conn.id);
      expect(answer, String(body.kind)).toMatchObject({ ok: false, kind: body.kind });
      expect(answer.error?.type, String(body.kind)).toMatch(/^[a-z0-9_]+$/);
      // A key ssh2 cannot read is the connection's fault, not a 500.
      if (body.kind === 'ssh') expect(answer.error?.type).toBe('connection_invalid');
    }
  });

  it('probes the detector with a fresh exchange token and one alerts page, and reports a refused exchange client', async () => {
    const conn = await create({ kind: 'detector', name: 'detector', base_url: p.detector.url });
    const mints = p.oauth.mints.length;
    expect(await probe(conn.id)).toMatchObject({
      ok: true,
      kind: 'detector',
      probe: 'detector_alerts',
      details: { host: new URL(p.detector.url).host, alerts_path: '/api/v1/alerts', exchange_token: 'minted' },
      error: null,
    });
    expect(p.oauth.mints.slice(mints)).toEqual([{ clientAuth: 'basic', clientId: 'svc', audience: 'detector', scope: 'detector:alerts:read' }]);
    expect(p.detector.pages.at(-1)).toMatchObject({ limit: 1, cursor: null });

    p.oauth.tokenFailure = { status: 401, body: { error: 'invalid_client' } };
    try {
      expect(await probe(conn.id)).toMatchObject({
        ok: false,
        error: { type: 'exchange_failed', message: expect.stringContaining('status 401, OAuth error invalid_client') },
      });
    } finally {
      p.oauth.tokenFailure = null;
    }
    expect(p.detector.changes).toEqual([]);
  });

  it('probes the pipeline with one read of the deploy-request list, and reports a refused API key', async () => {
    const good = await create({ kind: 'pipeline', name: 'pipeline', base_url: p.pipeline.url, secret: PIPELINE_KEY });
    const bad = await create({ kind: 'pipeline', name: 'pipeline-bad', base_url: p.pipeline.url, secret: 'pk_wrong' });
    expect(await probe(good.id)).toMatchObject({
      ok: true,
      probe: 'deploy_requests',
      details: { deploy_requests_path: '/api/v1/deploy-requests', readable: true },
    });
    expect(await probe(bad.id)).toMatchObject({
      ok: false,
      error: { type: 'auth_failed', message: `pipeline connection test: ${new URL(p.pipeline.url).host} refused the credential with status 401` },
    });
    expect(seen(p.pipeline.received)).toEqual(['GET /api/v1/deploy-requests?limit=1', 'GET /api/v1/deploy-requests?limit=1']);
    expect(p.pipeline.requests).toEqual([]);
  });

  it('probes chat_a with auth.test and the bot token, and chat_b with a HEAD of its origin that never touches the webhook URL', async () => {
    const slack = await create({ kind: 'chat_a', name: 'slack', base_url: `${p.chatA.url}/api`, secret: SIGNING_SECRET, bot_token: BOT_TOKEN });
    const slackBad = await create({ kind: 'chat_a', name: 'slack-bad', base_url: `${p.chatA.url}/api`, secret: SIGNING_SECRET, bot_token: 'xoxb-revoked' });
    expect(await probe(slack.id)).toMatchObject({
      ok: true,
      probe: 'auth_test',
      details: { team_id: 'T0SVCTEST', user_id: 'U0SVCBOT', bot_id: 'B111', signing_secret_configured: true },
    });
    expect(await probe(slackBad.id)).toMatchObject({
      ok: false,
      error: { type: 'auth_failed', message: `chat_a connection test: ${new URL(p.chatA.url).host} refused the bot token: invalid_auth` },
    });
    expect(seen(p.chatA.received)).toEqual(['POST /api/auth.test', 'POST /api/auth.test']);
    expect(p.chatA.posted()).toEqual([]);

    const teams = await create({ kind: 'chat_b', name: 'teams', base_url: p.chatB.url, secret: `${p.chatB.url}${WEBHOOK_PATH}` });
    const elsewhere = await create({ kind: 'chat_b', name: 'teams-elsewhere', base_url: p.chatB.url, secret: `https://outlook.office.com${WEBHOOK_PATH}` });
    expect(await probe(teams.id)).toMatchObject({
      ok: true,
      probe: 'webhook_origin_head',
      details: { status: 204, webhook_url_on_origin: true, delivered: false },
    });
    expect(await probe(elsewhere.id)).toMatchObject({ ok: false, error: { type: 'connection_invalid' } });
    expect(p.chatB.received.map((r) => [r.method, r.path, r.body])).toEqual([['HEAD', '/', '']]);
  });

  it('probes Jira with GET /myself and ServiceNow with a one-row table read, and reports refused credentials', async () => {
    const jira = await create({ kind: 'ticket_a', name: 'jira', base_url: p.jira.url, secret: JIRA_TOKEN, config: { email: 'soc@example.com' } });
    const jiraBad = await create({ kind: 'ticket_a', name: 'jira-bad', base_url: p.jira.url, secret: 'ATATT-wrong', config: { email: 'soc@example.com' } });
    expect(await probe(jira.id)).toMatchObject({ ok: true, probe: 'myself', details: { account_id: '5b10a2844c20165700ede21g', active: true } });
    expect(await probe(jiraBad.id)).toMatchObject({ ok: false, error: { type: 'auth_failed' } });
    expect(seen(p.jira.received)).toEqual(['GET /rest/api/3/myself', 'GET /rest/api/3/myself']);

    const snow = await create({ kind: 'ticket_b', name: 'snow', base_url: p.snow.url, secret: SNOW_PASSWORD, config: { username: 'svc.integration' } });
    const snowBad = await create({
      kind: 'ticket_b',
      name: 'snow-bad',
      base_url: p.snow.url,
      secret: 'wrong',
      config: { username: 'svc.integration', table: 'sn_si_incident' },
    });
    expect(await probe(snow.id)).toMatchObject({ ok: true, probe: 'table_read', details: { table: 'incident', readable: true } });
    expect(await probe(snowBad.id)).toMatchObject({
      ok: false,
      error: { type: 'auth_failed', message: expect.stringContaining('status 401: User Not Authenticated') },
    });
    expect(seen(p.snow.received)).toEqual([
      'GET /api/now/table/incident?sysparm_limit=1&sysparm_fields=sys_id',
      'GET /api/now/table/sn_si_incident?sysparm_limit=1&sysparm_fields=sys_id',
    ]);
    expect([p.jira.tickets.size, p.snow.tickets.size]).toEqual([0, 0]);
  });

  it('probes pager_a by its routing key form and a keyless HEAD, and pager_b with GET /v2/account; no page is sent', async () => {
    const pagerA = await create({ kind: 'pager_a', name: 'pagerduty', base_url: p.pagerA.url, secret: ROUTING_KEY });
    const pagerABad = await create({ kind: 'pager_a', name: 'pagerduty-bad', base_url: p.pagerA.url, secret: 'not-a-routing-key' });
    expect(await probe(pagerA.id)).toMatchObject({ ok: true, probe: 'routing_key_head', details: { routing_key_format: 'events_v2', delivered: false } });
    expect(await probe(pagerABad.id)).toMatchObject({ ok: false, error: { type: 'connection_invalid' } });
    expect(p.pagerA.received.map((r) => [r.method, r.path, r.body])).toEqual([['HEAD', '/', '']]);

    const pagerB = await create({ kind: 'pager_b', name: 'opsgenie', base_url: p.pagerB.url, secret: GENIE_KEY });
    const pagerBBad = await create({ kind: 'pager_b', name: 'opsgenie-bad', base_url: p.pagerB.url, secret: 'genie-wrong' });
    expect(await probe(pagerB.id)).toMatchObject({ ok: true, probe: 'account_read', details: { account: 'svc-test' } });
    expect(await probe(pagerBBad.id)).toMatchObject({
      ok: false,
      error: { type: 'auth_failed', message: expect.stringContaining('status 401: Could not authenticate') },
    });
    expect(seen(p.pagerB.received)).toEqual(['GET /v2/account', 'GET /v2/account']);
  });

  it('probes a Graph mailbox with a fresh app-only token and an inbox read, and reports a refused client and an unknown mailbox', async () => {
    const config = { tenant_id: 'contoso.onmicrosoft.com', client_id: 'svc', mailbox: 'soc@example.com', token_url: p.oauth.tokenUrl };
    const good = await create({ kind: 'mailbox_graph', name: 'graph', base_url: p.graph.graphRoot, secret: CLIENT_SECRET, config });
    const badSecret = await create({ kind: 'mailbox_graph', name: 'graph-bad', base_url: p.graph.graphRoot, secret: 'cs_wrong', config });
    const unknown = await create({
      kind: 'mailbox_graph',
      name: 'graph-unknown',
      base_url: p.graph.graphRoot,
      secret: CLIENT_SECRET,
      config: { ...config, mailbox: 'nobody@example.com' },
    });
    const mints = p.oauth.mints.length;
    expect(await probe(good.id)).toMatchObject({
      ok: true,
      probe: 'graph_mailbox_read',
      details: { graph_host: new URL(p.graph.url).host, mailbox: 'soc@example.com', inbox_readable: true },
    });
    expect(p.oauth.mints.slice(mints)).toEqual([{ clientAuth: 'post', clientId: 'svc', audience: null, scope: `${p.graph.url}/.default` }]);
    expect(await probe(badSecret.id)).toMatchObject({
      ok: false,
      error: { type: 'oauth2_token_error', message: expect.stringContaining('OAuth error invalid_client') },
    });
    expect(await probe(unknown.id)).toMatchObject({
      ok: false,
      error: { type: 'http_status', message: expect.stringContaining("answered HTTP 404: The requested user 'nobody@example.com' is invalid.") },
    });
    expect(seen(p.graph.received)).toEqual([
      'GET /v1.0/users/soc%40example.com/mailFolders/inbox?%24select=id%2CtotalItemCount',
      'GET /v1.0/users/nobody%40example.com/mailFolders/inbox?%24select=id%2CtotalItemCount',
    ]);
  });

  it('probes S3 with a SigV4-signed ListObjectsV2 of one key, and reports a wrong secret, key id and region by their S3 codes', async () => {
    const config = { bucket: 'svc-evidence', region: S3.region, access_key_id: S3.accessKeyId };
    const good = await create({ kind: 'object_storage', name: 's3', base_url: p.s3.url, secret: S3.secretAccessKey, config });
    const badSecret = await create({ kind: 'object_storage', name: 's3-bad-secret', base_url: p.s3.url, secret: 'not-the-secret', config });
    const badKey = await create({
      kind: 'object_storage',
      name: 's3-bad-key',
      base_url: p.s3.url,
      secret: S3.secretAccessKey,
      config: { ...config, access_key_id: 'AKIAUNKNOWN' },
    });
    const badRegion = await create({
      kind: 'object_storage',
      name: 's3-bad-region',
      base_url: p.s3.url,
      secret: S3.secretAccessKey,
      config: { ...config, region: 'us-east-1' },
    });
    expect(await probe(good.id)).toMatchObject({
      ok: true,
      probe: 's3_list_objects',
      details: { bucket: 'svc-evidence', region: S3.region, addressing: 'path', listed: true },
    });
    expect(await probe(badSecret.id)).toMatchObject({
      ok: false,
      error: { type: 'auth_failed', message: expect.stringContaining('status 403: SignatureDoesNotMatch') },
    });
    expect(await probe(badKey.id)).toMatchObject({ ok: false, error: { type: 'auth_failed', message: expect.stringContaining('InvalidAccessKeyId') } });
    expect(await probe(badRegion.id)).toMatchObject({
      ok: false,
      error: { type: 'http_status', message: expect.stringContaining('HTTP 400: AuthorizationHeaderMalformed') },
    });
    expect(p.s3.refusals).toEqual(['SignatureDoesNotMatch', 'InvalidAccessKeyId', 'AuthorizationHeaderMalformed']);
    expect(new Set(seen(p.s3.received))).toEqual(new Set(['GET /svc-evidence?list-type=2&max-keys=1']));
  });

  it.skipIf(!dovecotAvailable)('probes an IMAP server: LOGIN and LOGOUT in clear text, a refused password, and TLS that is not trusted', async () => {
    const d = p.dovecot;
    if (!d) throw new Error('dovecot did not start');
    const config = { host: '127.0.0.1', port: d.port, tls: 'none', username: d.username };
    const good = await create({ kind: 'imap', name: 'imap', secret: d.password, config });
    const bad = await create({ kind: 'imap', name: 'imap-bad', secret: 'wrong-password', config });
    const implicit = await create({ kind: 'imap', name: 'imaps-untrusted', secret: d.password, config: { ...config, port: d.tlsPort, tls: 'implicit' } });
    const starttls = await create({ kind: 'imap', name: 'imap-starttls-untrusted', secret: d.password, config: { ...config, tls: 'starttls' } });
    expect(await probe(good.id)).toMatchObject({
      ok: true,
      kind: 'imap',
      probe: 'imap_auth',
      details: { imap: `127.0.0.1:${d.port}`, tls: 'none', authenticated: true },
    });
    expect(await probe(bad.id)).toMatchObject({
      ok: false,
      error: { type: 'auth_failed', message: `imap connection test: 127.0.0.1:${d.port} refused the login` },
    });
    expect(await probe(implicit.id)).toMatchObject({ ok: false, error: { type: 'tls_failed' } });
    expect(await probe(starttls.id)).toMatchObject({ ok: false, error: { type: 'tls_failed' } });
    // The server's log: one login, which changed nothing in the mailbox before logging out.
    await expect.poll(() => d.log().match(/Logged out .*/g) ?? []).toHaveLength(1);
    expect(d.log().match(/Logged out .*/g)?.[0]).toMatch(/deleted=0 expunged=0 trashed=0/);
  });
});

describe.each(peerEngines)('an IMAP probe trusting SVC_OUTBOUND_CA_FILE on $name', ({ server: onServer }) => {
  let dovecot: TestDovecot | null = null;
  let trusting: InProcessService;
  beforeAll(async () => {
    if (!dovecotAvailable) return;
    dovecot = await startDovecot();
    trusting = await startInProcessService({ server: onServer }, { extraEnv: { SVC_OUTBOUND_CA_FILE: dovecot.certFile } });
  });
  afterAll(async () => {
    await trusting?.close();
    await dovecot?.close();
  });

  it.skipIf(!dovecotAvailable)('logs in over implicit TLS and over STARTTLS to a server whose certificate that CA file holds', async () => {
    const d = dovecot;
    if (!d) throw new Error('dovecot did not start');
    const create = async (name: string, config: Record<string, unknown>) => {
      const res = await callAs(trusting, root, 'POST', '/connections', {
        kind: 'imap',
        name,
        secret: d.password,
        config: { host: '127.0.0.1', username: d.username, ...config },
      });
      expect(res.status, res.text).toBe(201);
      return (await callAs(trusting, root, 'POST', `/connections/${res.body.id}/test`)).body;
    };
    expect(await create('imaps-trusted', { port: d.tlsPort, tls: 'implicit' })).toMatchObject({
      ok: true,
      details: { imap: `127.0.0.1:${d.tlsPort}`, tls: 'implicit', authenticated: true },
    });
    expect(await create('imap-starttls-trusted', { port: d.port, tls: 'starttls' })).toMatchObject({
      ok: true,
      details: { imap: `127.0.0.1:${d.port}`, tls: 'starttls', authenticated: true },
    });
  });
});
