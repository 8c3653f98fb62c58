/**
 * The shipped identity adapter packs against local stand-ins of their vendors' APIs, on
 * the embedded engine (peerEngines) (SPEC.md shipped packs `idp_user_suspend_a`: http, identity, read declares
 * `user_status` = SUSPENDED; `idp_user_disable_b`: http oauth2, identity, read declares
 * `account_enabled` = false).
 *
 * Runbooks drive them through the managed identity actions, never directly
 * (tests/integration/managed-identity-containment.test.ts runs idp_user_suspend_a end to
 * end; tests/unit/effects/identity-adapters.test.ts resolves both packs' inputs). Here each pack
 * is proved the way an operator proves a pack before binding it: the stand-in answers as
 * the vendor's published shapes say; the pack installs from packs/ through the registry;
 * its pack test passes every fixture and template and, on a test-mode connection, runs
 * the block, the unblock and the read once for real against the stand-in (and never
 * against a connection that is not in test mode); a response policy binding
 * `disable_identity`/`identity` to it publishes; and a runbook calling its block directly
 * is refused as a containment adapter. tests/support/idp-servers.ts holds the stand-ins;
 * the oauth2 token endpoint is the real one of tests/support/oauth2-server.ts.
 */
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixtureJson } from '../support/fixtures.ts';
import { startGraphUsersStandIn, startOktaStandIn, type GraphUsersStandIn, type OktaStandIn } from '../support/idp-servers.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startOAuth2Server, type OAuth2Server } from '../support/oauth2-server.ts';
import { adapterActions, installPack, packBinding, publishBinding } from '../support/shipped-adapters.ts';
import { peerEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const PACKS_DIR = join(import.meta.dirname, '../../packs');
const GRAPH_SCOPE = 'https://graph.microsoft.com/.default';

type Row = { action: string; check: string; fixture: string | null; status: string; detail: string };

/** The pack test of `pack` on `connection` (none: fixtures only); its rows as `<verb> <check>[/<fixture>]: <status>`. */
async function packTest(svc: InProcessService, pack: string, connection: string | null): Promise<{ rows: Row[]; table: string[]; summary: any }> {
  const tested = await callAs(svc, root, 'POST', `/integration-packs/registry/${pack}/test`, connection === null ? {} : { connections: { http: connection } });
  expect(tested.status, tested.text).toBe(200);
  const rows: Row[] = tested.body.rows;
  const table = rows.map((r) => `${r.action.split('.').pop()} ${r.check}${r.fixture ? `/${r.fixture}` : ''}: ${r.status}`);
  return { rows, table, summary: tested.body.summary };
}

/** A manual runbook whose one step calls `action` directly with `withText`. */
const directRunbook = (slug: string, action: string, withText: string): string => `
id: ${slug}
name: ${slug}
version: 1
trigger: { type: manual }
inputs:
  - { name: user, type: string, required: true }
steps:
  - id: act
    action: ${action}
    with: { target: "{{ inputs.user }}"${withText} }
`;

/** A runbook calling the pack's block directly is refused as a containment adapter, at validation and at save. */
async function expectDirectCallRefused(svc: InProcessService, pack: string, withText: string): Promise<void> {
  const yaml = directRunbook(`${pack.replace(/_/g, '-')}-direct`, `custom.${pack}.block`, withText);
  const pattern = new RegExp(`custom\\.${pack}\\.block' is a containment adapter: a runbook calls it through the response\\.\\* actions`);
  const checked = await callAs(svc, root, 'POST', '/runbooks/validate', { yaml_text: yaml });
  expect(checked.body.errors, checked.text).toEqual([expect.objectContaining({ msg: expect.stringMatching(pattern) })]);
  const saved = await callAs(svc, root, 'POST', `/runbooks/${pack.replace(/_/g, '-')}-direct`, { yaml_text: yaml });
  expect(saved.status, saved.text).toBe(422);
  expect(saved.text).toMatch(pattern);
}

/** Publishes a policy binding `disable_identity`/`identity` to `pack`'s three actions on `connection`; answers the published document. */
async function bindIdentityAdapter(svc: InProcessService, pack: string, connection: string, parameters: Record<string, boolean>): Promise<any> {
  const binding = { effect_type: 'disable_identity', target_type: 'identity', ...packBinding(pack, connection, parameters) };
  await publishBinding(svc, root, binding, { type: 'identity', value: 'Break.Glass@example.com' }, false);
  const published = await callAs(svc, root, 'GET', '/response-policy');
  expect(published.status, published.text).toBe(200);
  return published.body;
}

describe.each(peerEngines)('the shipped idp_user_suspend_a pack on $name', ({ server }) => {
  const TOKEN = '00okta-api-token-for-tests';
  const USER = { id: '00ub0oNGTSWTBKOLGLNR', login: 'isaac.brock@example.com' };
  let svc: InProcessService;
  let okta: OktaStandIn;

  beforeAll(async () => {
    okta = await startOktaStandIn(TOKEN, [
      { ...USER, status: 'ACTIVE' },
      { id: '00u1stagedUSER0000001', login: 'staged.user@example.com', status: 'STAGED' },
      { id: '00u1standInUSER000002', login: 'stand.in@example.com', status: 'ACTIVE' },
    ]);
    svc = await startInProcessService({ server }, { extraEnv: { SVC_PACKS_DIR: PACKS_DIR } });
    for (const [name, testMode] of [
      ['okta', false],
      ['okta-sandbox', true],
    ] as const) {
      const conn = await callAs(svc, root, 'POST', '/connections', {
        kind: 'http',
        name,
        base_url: okta.url,
        secret: TOKEN,
        config: { auth_header: 'Authorization', auth_prefix: 'SSWS ', ...(testMode ? { test_mode: true } : {}) },
      });
      expect(conn.status, conn.text).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await okta?.close();
  });

  const call = (method: string, path: string, token = TOKEN) => fetch(`${okta.url}${path}`, { method, headers: { authorization: `SSWS ${token}` } });

  it('answers suspend, unsuspend, the read, not found and not active as the published Okta shapes', async () => {
    const login = 'stand.in@example.com';
    const suspended = await call('POST', `/api/v1/users/${login}/lifecycle/suspend`);
    expect(suspended.status).toBe(200);
    expect(await suspended.json()).toEqual({});
    const read = await call('GET', `/api/v1/users/${login.toUpperCase()}`);
    const user = (await read.json()) as Record<string, any>;
    expect(read.status).toBe(200);
    expect(Object.keys(user).sort()).toEqual(Object.keys(readFixtureJson<object>('vendors', 'okta', 'GET_user.200.example.json')).sort());
    expect(user).toMatchObject({ id: '00u1standInUSER000002', status: 'SUSPENDED', profile: { login } });

    const again = await call('POST', '/api/v1/users/00u1standInUSER000002/lifecycle/suspend');
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({
      errorCode: 'E0000001',
      errorSummary: 'Api validation failed: Cannot suspend a user that is not active',
      errorLink: 'E0000001',
      errorId: expect.any(String),
      errorCauses: [],
    });
    const staged = await call('POST', '/api/v1/users/staged.user@example.com/lifecycle/suspend');
    expect(((await staged.json()) as any).errorSummary).toBe('Api validation failed: Cannot suspend a user that is not active');

    const unsuspended = await call('POST', `/api/v1/users/${login}/lifecycle/unsuspend`);
    expect(unsuspended.status).toBe(200);
    expect(await unsuspended.json()).toEqual({});
    expect(okta.users.get('00u1standInUSER000002')?.status).toBe('ACTIVE');
    const notSuspended = await call('POST', `/api/v1/users/${login}/lifecycle/unsuspend`);
    expect(notSuspended.status).toBe(400);
    expect(((await notSuspended.json()) as any).errorCode).toBe('E0000001');

    for (const path of ['/api/v1/users/00uNOSUCHUSER/lifecycle/suspend', '/api/v1/users/00uNOSUCHUSER']) {
      const missing = await call(path.endsWith('suspend') ? 'POST' : 'GET', path);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({
        errorCode: 'E0000007',
        errorSummary: 'Not found: Resource not found: 00uNOSUCHUSER (User)',
        errorCauses: [],
      });
    }
    const denied = await call('POST', `/api/v1/users/${login}/lifecycle/suspend`, 'wrong-token');
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as any).errorCode).toBe('E0000011');
    expect(okta.users.get('00u1standInUSER000002')?.status).toBe('ACTIVE');
  });

  it('installs from the registry and passes its recorded answers through the pack test', async () => {
    await installPack(svc, root, 'idp_user_suspend_a', Object.values(adapterActions('idp_user_suspend_a')));
    const { table, summary } = await packTest(svc, 'idp_user_suspend_a', null);
    expect(table).toEqual([
      'block compiles: pass',
      'block fixtures/user_suspended: pass',
      'block template/user_suspended: pass',
      'block connection: skipped',
      'block execution/user_suspended: skipped',
      'unblock compiles: pass',
      'unblock fixtures/user_unsuspended: pass',
      'unblock template/user_unsuspended: pass',
      'unblock connection: skipped',
      'unblock execution/user_unsuspended: skipped',
      'status compiles: pass',
      'status fixtures/user_active: pass',
      'status fixtures/user_suspended: pass',
      'status template/user_active: pass',
      'status template/user_suspended: pass',
      'status connection: skipped',
      'status execution/user_active: skipped',
    ]);
    expect(summary).toMatchObject({ fail: 0 });
  });

  it('runs suspend, unsuspend and the read once against the test-mode stand-in, and nothing against a live connection', async () => {
    const before = okta.requests.length;
    const { rows, summary } = await packTest(svc, 'idp_user_suspend_a', 'okta-sandbox');
    expect(summary, JSON.stringify(rows)).toEqual({ pass: 17, fail: 0, skipped: 0 });
    const execution = rows.filter((r) => r.check === 'execution');
    expect(execution.map((r) => [r.action, r.status])).toEqual([
      ['custom.idp_user_suspend_a.block', 'pass'],
      ['custom.idp_user_suspend_a.unblock', 'pass'],
      ['custom.idp_user_suspend_a.status', 'pass'],
    ]);
    expect(execution[2]?.detail).toMatch(/^ran on connection 'okta-sandbox': outputs user_status, user_id, login have their declared types/);
    const sent = okta.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /api/v1/users/${encodeURIComponent(USER.login)}/lifecycle/suspend`,
      `POST /api/v1/users/${encodeURIComponent(USER.login)}/lifecycle/unsuspend`,
      `GET /api/v1/users/${encodeURIComponent(USER.login)}`,
    ]);
    expect(sent.every((r) => r.headers.authorization === `SSWS ${TOKEN}`)).toBe(true);
    expect(okta.users.get(USER.id)?.status).toBe('ACTIVE');

    const live = await packTest(svc, 'idp_user_suspend_a', 'okta');
    expect(live.rows.filter((r) => r.check === 'connection').map((r) => r.status)).toEqual(['fail', 'fail', 'fail']);
    expect(live.rows.filter((r) => r.check === 'execution').map((r) => r.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(okta.requests.length).toBe(before + 3);
  });

  it('publishes a disable_identity/identity binding to the pack', async () => {
    const policy = await bindIdentityAdapter(svc, 'idp_user_suspend_a', 'okta', {});
    expect(JSON.stringify(policy)).toContain('custom.idp_user_suspend_a.status');
  });

  it('refuses a runbook that calls the suspension directly, around the response policy', async () => {
    const before = okta.requests.length;
    await expectDirectCallRefused(svc, 'idp_user_suspend_a', ', connection: okta');
    expect(okta.requests.length).toBe(before);
  });
});

describe.each(peerEngines)('the shipped idp_user_disable_b pack on $name', ({ server }) => {
  const CLIENT_ID = 'svc-graph-app';
  const CLIENT_SECRET = 'graph-client-secret-5e2f';
  const USER = { id: '87d349ed-44d7-43e1-9a83-5f2406dee5bd', displayName: 'Adele Vance', userPrincipalName: 'AdeleV@contoso.com' };
  const OTHER = { id: '5bde3e51-d13b-4db1-9948-fe4b109d11a7', displayName: 'Megan Bowen', userPrincipalName: 'MeganB@contoso.com' };
  let svc: InProcessService;
  let oauth: OAuth2Server;
  let graph: GraphUsersStandIn;

  beforeAll(async () => {
    oauth = await startOAuth2Server(CLIENT_ID, CLIENT_SECRET);
    graph = await startGraphUsersStandIn(
      (token) => oauth.grantOf(token)?.scope === GRAPH_SCOPE,
      [
        { ...USER, accountEnabled: true },
        { ...OTHER, accountEnabled: true },
      ],
    );
    svc = await startInProcessService({ server }, { extraEnv: { SVC_PACKS_DIR: PACKS_DIR, SVC_OUTBOUND_CA_FILE: oauth.caFile } });
    for (const [name, testMode] of [
      ['graph', false],
      ['graph-sandbox', true],
    ] as const) {
      const conn = await callAs(svc, root, 'POST', '/connections', {
        kind: 'http',
        name,
        base_url: graph.url,
        secret: CLIENT_SECRET,
        config: {
          auth: 'oauth2_client_credentials',
          token_url: oauth.tokenUrl,
          client_id: CLIENT_ID,
          scope: GRAPH_SCOPE,
          client_auth: 'post',
          ...(testMode ? { test_mode: true } : {}),
        },
      });
      expect(conn.status, conn.text).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await graph?.close();
    await oauth?.close();
  });

  /** A token minted by the test's authorization server for `scope` (Graph's by default), over its self-signed TLS. */
  const mint = (scope = GRAPH_SCOPE): Promise<string> =>
    new Promise((resolve, reject) => {
      const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope }).toString();
      const req = request(oauth.tokenUrl, { method: 'POST', ca: oauth.ca, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { access_token: string }).access_token));
      });
      req.on('error', reject);
      req.end(form);
    });
  const call = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${graph.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('answers the PATCH with 204, the read with $select, not found and a text flag as Graph does', async () => {
    const token = await mint();
    const disabled = await call(token, 'PATCH', `/v1.0/users/${OTHER.userPrincipalName.toLowerCase()}`, { accountEnabled: false });
    expect(disabled.status).toBe(204);
    expect(await disabled.text()).toBe('');
    const read = await call(token, 'GET', `/v1.0/users/${OTHER.id}?$select=accountEnabled,userPrincipalName`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({
      '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users(accountEnabled,userPrincipalName)/$entity',
      accountEnabled: false,
      userPrincipalName: OTHER.userPrincipalName,
    });
    const text = await call(token, 'PATCH', `/v1.0/users/${OTHER.id}`, { accountEnabled: 'true' });
    expect(text.status).toBe(400);
    expect(((await text.json()) as any).error.code).toBe('Request_BadRequest');
    expect(graph.users.get(OTHER.id)?.accountEnabled).toBe(false);
    expect((await call(token, 'PATCH', `/v1.0/users/${OTHER.id}`, { accountEnabled: true })).status).toBe(204);
    expect(graph.users.get(OTHER.id)?.accountEnabled).toBe(true);

    const missing = await call(token, 'PATCH', '/v1.0/users/00000000-0000-0000-0000-000000000404', { accountEnabled: false });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: {
        code: 'Request_ResourceNotFound',
        message: "Resource '00000000-0000-0000-0000-000000000404' does not exist or one of its queried reference-property objects are not present.",
        innerError: { 'request-id': expect.any(String), 'client-request-id': expect.any(String) },
      },
    });
    for (const bad of ['not-a-minted-token', await mint('https://other.example/.default')]) {
      const denied = await call(bad, 'PATCH', `/v1.0/users/${OTHER.id}`, { accountEnabled: false });
      expect(denied.status).toBe(401);
      expect(((await denied.json()) as any).error.code).toBe('InvalidAuthenticationToken');
    }
    expect(graph.users.get(OTHER.id)?.accountEnabled).toBe(true);
  });

  it('installs from the registry and passes its recorded answers through the pack test', async () => {
    await installPack(svc, root, 'idp_user_disable_b', Object.values(adapterActions('idp_user_disable_b')));
    const { table, summary } = await packTest(svc, 'idp_user_disable_b', null);
    expect(table).toEqual([
      'block compiles: pass',
      'block fixtures/account_disabled: pass',
      'block template/account_disabled: pass',
      'block connection: skipped',
      'block execution/account_disabled: skipped',
      'unblock compiles: pass',
      'unblock fixtures/account_enabled: pass',
      'unblock template/account_enabled: pass',
      'unblock connection: skipped',
      'unblock execution/account_enabled: skipped',
      'status compiles: pass',
      'status fixtures/account_disabled: pass',
      'status fixtures/account_enabled: pass',
      'status template/account_disabled: pass',
      'status template/account_enabled: pass',
      'status connection: skipped',
      'status execution/account_disabled: skipped',
    ]);
    expect(summary).toMatchObject({ fail: 0 });
  });

  it('runs the disable, the enable and the read once against the test-mode stand-in with a minted Graph token', async () => {
    const before = graph.requests.length;
    const { rows, summary } = await packTest(svc, 'idp_user_disable_b', 'graph-sandbox');
    expect(summary, JSON.stringify(rows)).toEqual({ pass: 17, fail: 0, skipped: 0 });
    expect(rows.filter((r) => r.check === 'execution').map((r) => r.status)).toEqual(['pass', 'pass', 'pass']);
    const sent = graph.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PATCH /v1.0/users/${USER.id}`,
      `PATCH /v1.0/users/${USER.id}`,
      `GET /v1.0/users/${USER.id}?%24select=accountEnabled%2CuserPrincipalName`,
    ]);
    expect(sent.slice(0, 2).map((r) => JSON.parse(r.body))).toEqual([{ accountEnabled: false }, { accountEnabled: true }]);
    for (const r of sent) {
      const bearer = /^Bearer (.+)$/.exec(String(r.headers.authorization))?.[1] ?? '';
      expect(oauth.grantOf(bearer)).toEqual({ audience: null, scope: GRAPH_SCOPE });
    }
    expect(graph.users.get(USER.id)?.accountEnabled).toBe(true);

    const live = await packTest(svc, 'idp_user_disable_b', 'graph');
    expect(live.rows.filter((r) => r.check === 'execution').map((r) => r.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(graph.requests.length).toBe(before + 3);
  });

  it('publishes a disable_identity/identity binding with the two accountEnabled parameters', async () => {
    const policy = await bindIdentityAdapter(svc, 'idp_user_disable_b', 'graph', { account_enabled_on_block: false, account_enabled_on_release: true });
    expect(JSON.stringify(policy)).toContain('"account_enabled_on_block":false');
  });

  it('refuses a runbook that calls the disable directly, around the response policy', async () => {
    const before = graph.requests.length;
    await expectDirectCallRefused(svc, 'idp_user_disable_b', ', account_enabled_on_block: false, connection: graph');
    expect(graph.requests.length).toBe(before);
  });
});
