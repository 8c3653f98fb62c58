/**
 * `POST /alerts/backfill` and `GET /peer/v1/exchanges` on the real service, on every
 * engine (SPEC.md "Alerts", "Peer endpoints"), with the outbound edge as in production:
 * private targets refused, the detector reachable as a configured suite peer host and the
 * identity service as the exact exchange origin. Real peers on 127.0.0.1: an HTTPS
 * OAuth2 token endpoint standing in for the workload exchange, and a detector that
 * follows docs/suite-contracts.md and checks every token's audience and scope.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDetectorServer, type DetectorServer } from '../support/detector-server.ts';
import { callAs, detectorIntake, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { startOAuth2Server, type OAuth2Server } from '../support/oauth2-server.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);
const EXCHANGE_SECRET = 'xs_backfill-exchange-secret-51ad';

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/** Native alerts as the detector lists them: two correlate on one root, one has a bad severity, one no rule. */
function detectorAlerts(): Record<string, unknown>[] {
  const alert = (id: string, minutes: number, extra: Record<string, unknown> = {}) => ({
    alert_id: id,
    rule: { id: `rule-${id}`, title: `Detection ${id}`, severity: 'high' },
    detected_at: minutesAgo(minutes),
    matched_log: { source: { ip: '203.0.113.7' } },
    ...extra,
  });
  return [
    alert('bf-old', 60 * 48),
    alert('bf-1', 50, { correlation_root: 'host-a' }),
    alert('bf-2', 40, { correlation_root: 'host-a' }),
    alert('bf-3', 30),
    alert('bf-bad', 25, { severity: 'bogus' }),
    { alert_id: 'bf-norule', detected_at: minutesAgo(20) },
    alert('bf-4', 10),
  ];
}

describe.each(e2eEngines)('alert backfill on $name', ({ server: onServer }) => {
  let svc: InProcessService;
  let oauth: OAuth2Server;
  let detector: DetectorServer;
  let connectionId: string;

  beforeAll(async () => {
    oauth = await startOAuth2Server('svc', EXCHANGE_SECRET);
    detector = await startDetectorServer(detectorAlerts(), oauth.grantOf);
    svc = await startInProcessService(
      { server: onServer },
      {
        extraEnv: {
          SVC_ALLOW_PRIVATE_TARGETS: 'false',
          SVC_SUITE_PEER_HOSTS: new URL(detector.url).host,
          SVC_IDENTITY_URL: oauth.origin,
          SVC_EXCHANGE_TOKEN_PATH: '/oauth/token',
          SVC_EXCHANGE_CLIENT_SECRET: EXCHANGE_SECRET,
          SVC_OUTBOUND_CA_FILE: oauth.caFile,
          SVC_DETECTOR_BOOTSTRAP_SECRET: 'bootstrap-backfill',
        },
      },
    );
    const created = await callAs(svc, root, 'POST', '/connections', { kind: 'detector', name: 'detector', base_url: detector.url, config: { page_size: 2 } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.config).toEqual({ page_size: 2, alerts_path: '/api/v1/alerts', rules_path: '/api/v1/rules' });
    connectionId = created.body.id;
  });
  afterAll(async () => {
    await svc?.close();
    await detector?.close();
    await oauth?.close();
  });
  beforeEach(() => {
    detector.failure = null;
    detector.pages.length = 0;
  });

  const backfill = (body: Record<string, unknown>, who = root) => callAs(svc, who, 'POST', '/alerts/backfill', body);
  const alertsOf = async () =>
    (await callAs(svc, root, 'GET', '/alerts?source=detector&limit=100')).body.items as { external_id: string; case_id: string; repeat_count: number }[];

  it('pages the detector with one read-scoped exchange token, skips what intake holds and reports bad items', async () => {
    const pushed = await detectorIntake(svc, detectorAlerts()[3]);
    expect(pushed.status, pushed.text).toBe(202);

    const res = await backfill({ detector_connection_id: connectionId, since: minutesAgo(24 * 60) });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      detector_connection_id: connectionId,
      pages: 3,
      fetched: 6,
      created: 3,
      duplicates: 1,
      rejected_count: 2,
      complete: true,
      runs: 0,
    });
    expect(res.body.rejected).toEqual([
      { page: 2, index: 1, alert_id: 'bf-bad', detail: [{ loc: ['severity'], msg: 'must be one of low, medium, high, critical', type: 'value_error' }] },
      { page: 3, index: 0, alert_id: 'bf-norule', detail: [{ loc: ['rule'], msg: expect.stringContaining('"rule"'), type: 'value_error' }] },
    ]);
    expect(detector.pages.map((p) => [p.limit, p.cursor === null])).toEqual([
      [2, true],
      [2, false],
      [2, false],
    ]);

    expect(oauth.mints).toEqual([{ clientAuth: 'basic', clientId: 'svc', audience: 'detector', scope: 'detector:alerts:read' }]);
    const alerts = await alertsOf();
    expect(alerts.map((a) => a.external_id).sort()).toEqual(['bf-1', 'bf-2', 'bf-3', 'bf-4']);
    const byId = Object.fromEntries(alerts.map((a) => [a.external_id, a]));
    expect(byId['bf-3']?.repeat_count).toBe(0);
    expect(byId['bf-1']?.case_id).toBe(byId['bf-2']?.case_id);
    expect(res.body.cases).toHaveLength(2);
    expect(res.body.cases).toContain(byId['bf-1']?.case_id);
  });

  it('a second backfill over the same window takes nothing twice and reuses the cached token', async () => {
    const res = await backfill({ detector_connection_id: connectionId, since: minutesAgo(24 * 60) });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ fetched: 6, created: 0, duplicates: 4, rejected_count: 2, cases: [] });
    expect(oauth.mints).toHaveLength(1);
    expect((await alertsOf()).every((a) => a.repeat_count === 0)).toBe(true);
  });

  it('stops at limit and says the list was not finished; since defaults to the lookback window', async () => {
    const res = await backfill({ detector_connection_id: connectionId, limit: 3 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ fetched: 3, pages: 2, complete: false });
    expect(detector.pages.map((p) => p.limit)).toEqual([2, 1]);
    const since = Date.parse(detector.pages[0]?.since ?? '');
    expect(Math.abs(since - (Date.now() - 24 * 3_600_000))).toBeLessThan(60_000);
  });

  it("a refused token is replaced once; a detector error fails with the detector's detail and what had landed", async () => {
    oauth.revokeAll();
    const retried = await backfill({ detector_connection_id: connectionId, limit: 1 });
    expect(retried.status, retried.text).toBe(200);
    expect(oauth.mints).toHaveLength(2);

    detector.failure = { status: 409, body: { detail: 'tenant is being re-indexed' } };
    const failed = await backfill({ detector_connection_id: connectionId });
    expect(failed.status, failed.text).toBe(502);
    expect(failed.body).toEqual({
      code: 'detector_error',
      detail: `alerts.backfill: detector ${new URL(detector.url).host} answered HTTP 409: tenant is being re-indexed`,
      params: { detector_connection_id: connectionId, pages: 0, fetched: 0, created: 0, duplicates: 0, rejected_count: 0, retryable: false },
    });
  });

  it('refuses a connection that is not a detector, an unknown one, bad fields and a caller without manage_connections', async () => {
    const http = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name: 'not-detector', base_url: detector.url, config: {} });
    expect((await backfill({ detector_connection_id: http.body.id })).body.detail).toEqual([
      { loc: ['body', 'detector_connection_id'], msg: 'must name a detector connection, not http', type: 'value_error' },
    ]);
    const unknown = await backfill({ detector_connection_id: '0b0f8c9e-4a43-4d8e-9a55-3f0b7d9a1c21' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'connection_not_found']);
    const bad = await backfill({ detector_connection_id: connectionId, since: 'yesterday', limit: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'since'],
      ['body', 'limit'],
    ]);
    expect((await backfill({ detector_connection_id: connectionId }, ana)).status).toBe(403);
    expect(detector.pages).toHaveLength(0);
  });

  it('GET /peer/v1/exchanges declares what the exchange client asks for, to the identity service only', async () => {
    const token = await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:status:read' });
    const res = await svc.request('/peer/v1/exchanges', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      contract_version: 1,
      product: 'svc',
      exchanges: {
        detector: ['detector:alerts:read', 'detector:alerts:write', 'detector:exceptions:write', 'detector:rules:write'],
        identity: ['identity:approval-settings:read', 'identity:grants:read'],
      },
    });

    const otherScope = await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:cases:read' });
    expect((await svc.request('/peer/v1/exchanges', { headers: { authorization: `Bearer ${otherScope}` } })).status).toBe(403);
    expect((await callAs(svc, root, 'GET', '/peer/v1/exchanges')).status).toBe(403);
  });

  it('never shows the exchange secret or a detector token in an answer or error log line', async () => {
    const listed = await callAs(svc, root, 'GET', `/connections/${connectionId}`);
    const logged = JSON.stringify(svc.errors());
    for (const text of [listed.text, logged]) expect(text).not.toContain(EXCHANGE_SECRET);
    const tokens = detector.received.map((r) => /^Bearer (.+)$/.exec(r.headers.authorization ?? '')?.[1]).filter((t): t is string => t !== undefined);
    expect(tokens.length).toBeGreaterThan(0);
    for (const t of tokens) expect(logged).not.toContain(t);
  });
});

describe('alert backfill through the guarded edge', () => {
  it('refuses a detector on a private address that is not a suite peer host', async () => {
    const oauth = await startOAuth2Server('svc', EXCHANGE_SECRET);
    const detector = await startDetectorServer(detectorAlerts(), oauth.grantOf);
    const svc = await startInProcessService(
      { server: false },
      {
        extraEnv: {
          SVC_ALLOW_PRIVATE_TARGETS: 'false',
          SVC_IDENTITY_URL: oauth.origin,
          SVC_EXCHANGE_TOKEN_PATH: '/oauth/token',
          SVC_EXCHANGE_CLIENT_SECRET: EXCHANGE_SECRET,
          SVC_OUTBOUND_CA_FILE: oauth.caFile,
        },
      },
    );
    try {
      const created = await callAs(svc, root, 'POST', '/connections', { kind: 'detector', name: 'detector', base_url: detector.url });
      const res = await callAs(svc, root, 'POST', '/alerts/backfill', { detector_connection_id: created.body.id });
      expect(res.status, res.text).toBe(502);
      expect(res.body.code).toBe('target_refused');
      expect(detector.received).toHaveLength(0);
      expect(oauth.mints).toHaveLength(1);
    } finally {
      await svc.close();
      await detector.close();
      await oauth.close();
    }
  });
});
