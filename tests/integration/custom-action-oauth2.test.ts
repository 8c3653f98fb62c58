/**
 * A custom HTTP action whose http connection uses `auth: oauth2_client_credentials`
 * (SPEC.md "Connection"; docs/configuration.md "Custom actions"), run in a runbook on the
 * real service and worker, on every engine, against real peers on 127.0.0.1: the HTTPS
 * token endpoint of tests/support/oauth2-server.ts (trusted through SVC_OUTBOUND_CA_FILE)
 * and a plain HTTP receiver. Proves that the service mints a token with the client
 * credentials grant (client id and secret by client_secret_basic, the connection's scope),
 * sends the receiver exactly that token as `Authorization: Bearer`, and the step succeeds
 * with its outputs; that a token endpoint refusing the client (401 invalid_client) fails
 * the step with an error naming host, status and OAuth code while the receiver gets
 * nothing; and that neither the token nor the client secret appears in the run view, the
 * run's action log or the service's logged errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionListed, callAs, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startOAuth2Server, type OAuth2Server } from '../support/oauth2-server.ts';
import { startReceiver } from '../support/receiver.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const CLIENT_ID = 'svc-edr-client';
const CLIENT_SECRET = 'cs_custom-oauth2-secret-5e8a1f';
const WRONG_SECRET = 'cs_custom-oauth2-wrong-secret-77d2';

const lookup = {
  name: 'custom.oauth.host_lookup',
  title: 'EDR host lookup',
  transport: 'http',
  default_connection: 'edr',
  inputs: [{ name: 'host', type: 'string', required: true }],
  http: { method: 'POST', path: '/hosts/{{ inputs.host }}/lookup', body: { host: '{{ inputs.host }}' } },
  outputs: [
    { name: 'org', path: '$.data.org', type: 'string' },
    { name: 'score', path: '$.score', type: 'number' },
  ],
  effect_type: 'enrich',
  risk: 'read',
};

const runbook = (slug: string, connection: string) => `
id: ${slug}
name: ${slug}
version: 1
trigger: { type: manual }
steps:
  - id: call
    action: custom.oauth.host_lookup
    autonomous: true
    with: { connection: ${connection}, host: "ws-042" }
`;

type Run = { id: string; status: string; error: string | null; steps: any[]; action_log: any[] };

describe.each(e2eEngines)('custom HTTP action with oauth2 client credentials on $name', ({ server }) => {
  let svc: InProcessService;
  let oauth: OAuth2Server;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let caseId = '';
  let tokenHost = '';

  beforeAll(async () => {
    oauth = await startOAuth2Server(CLIENT_ID, CLIENT_SECRET);
    tokenHost = new URL(oauth.origin).host;
    receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { org: 'ACME' }, score: 7.5 }));
    });
    svc = await startInProcessService({ server }, { extraEnv: { SVC_OUTBOUND_CA_FILE: oauth.caFile } });
    const oauth2 = { auth: 'oauth2_client_credentials', token_url: oauth.tokenUrl, client_id: CLIENT_ID, scope: 'hosts.read' };
    for (const [name, secret] of [
      ['edr', CLIENT_SECRET],
      ['edr-refused', WRONG_SECRET],
    ] as const) {
      const conn = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name, base_url: `${receiver.url}/api`, secret, config: oauth2 });
      expect(conn.status, conn.text).toBe(201);
    }
    const bare = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name: 'edr-no-secret', base_url: `${receiver.url}/api`, config: oauth2 });
    expect(bare.status, bare.text).toBe(201);
    const created = await callAs(svc, root, 'POST', '/custom-actions', { spec: lookup });
    expect(created.status, created.text).toBe(201);
    await listed(lookup.name);
    const kase = await callAs(svc, root, 'POST', '/cases', { title: 'Custom action oauth2', severity: 'high', team: null });
    expect(kase.status, kase.text).toBe(201);
    caseId = kase.body.id;
    for (const [slug, connection] of [
      ['oauth-lookup', 'edr'],
      ['oauth-refused', 'edr-refused'],
      ['oauth-no-secret', 'edr-no-secret'],
    ] as const) {
      const saved = await callAs(svc, root, 'POST', `/runbooks/${slug}`, { yaml_text: runbook(slug, connection) });
      expect(saved.status, saved.text).toBeLessThan(300);
    }
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
    await oauth?.close();
  });

  const listed = (name: string) => actionListed(svc, root, name);
  /** Starts a manual run of `slug` on the case and waits until it ends; the run view with its action log. */
  const runToEnd = async (slug: string): Promise<{ run: Run; log: unknown }> => {
    const queued = await callAs(svc, root, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, {});
    expect(queued.status, queued.text).toBe(202);
    const id = queued.body.id as string;
    const run: Run = await runWhen(svc, root, id, /^(succeeded|failed|cancelled)$/);
    const log = await callAs(svc, root, 'GET', `/runs/${id}/log`);
    expect(log.status, log.text).toBe(200);
    return { run: { ...run, id }, log: log.body };
  };
  /** What the service shows or logs of a run must not hold any of `secrets`. */
  const expectNoneOf = (secrets: string[], ...shown: unknown[]) => {
    const text = JSON.stringify([...shown, svc.errors()]);
    for (const secret of secrets) expect(text).not.toContain(secret);
  };

  it('mints a token with the client credentials, calls the receiver with it as a bearer token, and keeps both out of the run', async () => {
    const mintsBefore = oauth.mints.length;
    const receivedBefore = receiver.received.length;
    const { run, log } = await runToEnd('oauth-lookup');
    expect(run.status, JSON.stringify(run)).toBe('succeeded');

    expect(oauth.mints.slice(mintsBefore)).toEqual([{ clientAuth: 'basic', clientId: CLIENT_ID, scope: 'hosts.read', audience: null }]);
    expect(oauth.api).toHaveLength(0);
    const received = receiver.received.slice(receivedBefore);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/api/hosts/ws-042/lookup');
    expect(JSON.parse(request?.body ?? '')).toEqual({ host: 'ws-042' });
    const token = /^Bearer (\S+)$/.exec(String(request?.headers.authorization))?.[1] ?? '';
    // The bearer token is one the token endpoint minted for this grant, not the client secret.
    expect(oauth.grantOf(token)).toEqual({ audience: null, scope: 'hosts.read' });
    expect(JSON.stringify(request?.headers)).not.toContain(CLIENT_SECRET);

    const step = run.steps.find((s) => s.id === 'call');
    expect(step.status).toBe('ok');
    expect(step.output).toEqual({ org: 'ACME', score: 7.5 });
    const row = run.action_log.find((r) => r.step_id === 'call' && r.status === 'ok');
    expect(row.input).toEqual({ connection: 'edr', host: 'ws-042' });
    expect(row.output).toEqual({ org: 'ACME', score: 7.5 });
    expectNoneOf([token, CLIENT_SECRET], run, log);
  });

  it('fails the step with a clear error when the token endpoint refuses the client (401), and sends the receiver nothing', async () => {
    const tokenRequestsBefore = oauth.tokenRequests;
    const mintsBefore = oauth.mints.length;
    const receivedBefore = receiver.received.length;
    const { run, log } = await runToEnd('oauth-refused');
    expect(run.status, JSON.stringify(run)).toBe('failed');

    const step = run.steps.find((s) => s.id === 'call');
    const error = `oauth2_token_error: custom.oauth.host_lookup: token request to ${tokenHost} failed with status 401, OAuth error invalid_client`;
    expect(step).toMatchObject({ status: 'error', output: null, error });
    expect(run.error).toBe(`step call failed: ${error}`);
    expect(run.action_log.filter((r) => r.step_id === 'call')).toEqual([expect.objectContaining({ status: 'error', output: null, error })]);
    // Refused credentials are final: one token request, no mint, no retry, no call.
    expect(oauth.tokenRequests - tokenRequestsBefore).toBe(1);
    expect(oauth.mints).toHaveLength(mintsBefore);
    expect(receiver.received).toHaveLength(receivedBefore);
    expectNoneOf([WRONG_SECRET, CLIENT_SECRET], run, log);
  });

  it('fails the step naming the custom action and the connection when the oauth2 connection has no client secret, before any request', async () => {
    const tokenRequestsBefore = oauth.tokenRequests;
    const receivedBefore = receiver.received.length;
    const { run } = await runToEnd('oauth-no-secret');
    expect(run.status, JSON.stringify(run)).toBe('failed');
    expect(run.steps.find((s) => s.id === 'call')).toMatchObject({
      status: 'error',
      error: "connection_invalid: custom.oauth.host_lookup: connection 'edr-no-secret' has no client secret",
    });
    expect(oauth.tokenRequests).toBe(tokenRequestsBefore);
    expect(receiver.received).toHaveLength(receivedBefore);
  });
});
