/**
 * The detector actions (SPEC.md "Action registry entry", "Detector exceptions") against a
 * detector on 127.0.0.1 that follows docs/suite-contracts.md and checks every token's
 * audience and scope, with tokens from a real HTTPS token endpoint standing in for the
 * workload exchange, through the guarded edge set as in production (private targets
 * refused; the detector a suite peer host, the exchange its exact origin).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActionFailure, type ActionContext, type ActionDefinition, type ResolvedConnection } from '../../../adapters/actions/action.ts';
import { detectorActions } from '../../../adapters/detector/actions.ts';
import { createTokenSource } from '../../../adapters/actions/oauth2-token.ts';
import { createDetectorClient } from '../../../adapters/detector/client.ts';
import { createExchangeClient } from '../../../adapters/exchange/client.ts';
import { createGuardedFetch, type GuardedFetch } from '../../../adapters/outbound/guarded-fetch.ts';
import { startDetectorServer, type DetectorServer } from '../../support/detector-server.ts';
import { startOAuth2Server, type OAuth2Server } from '../../support/oauth2-server.ts';

const SECRET = 'xs_detector-actions-secret-8e21';
const ALERT = { alert_id: 'det-1', rule: { id: 'r-ssh', title: 'SSH brute force', severity: 'high' }, detected_at: '2026-11-23T08:00:00Z' };

let oauth: OAuth2Server;
let detector: DetectorServer;
let outbound: GuardedFetch;
let actions: Map<string, ActionDefinition>;
let connection: ResolvedConnection;

const context = (attempt = 1, deliveryId = 'delivery-1'): ActionContext => ({
  runId: 'run-7',
  stepId: 'tell-detector',
  attempt,
  deliveryId,
  caseId: null,
  connection,
  signal: new AbortController().signal,
  cases: null,
  approval: null,
  resume: null,
  now: () => new Date(),
});
const run = (name: string, input: Record<string, unknown>, attempt = 1, deliveryId = 'delivery-1') =>
  actions.get(name)!.execute(input, context(attempt, deliveryId));
const failureOf = async (promise: Promise<unknown>): Promise<ActionFailure> => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ActionFailure);
  return error as ActionFailure;
};

beforeAll(async () => {
  oauth = await startOAuth2Server('svc', SECRET);
  detector = await startDetectorServer([ALERT], oauth.grantOf);
  outbound = createGuardedFetch({ allowPrivate: false, allowedHosts: [new URL(detector.url).host], exchangeOrigin: oauth.origin, extraCa: oauth.ca });
  const exchange = createExchangeClient({ tokenUrl: oauth.tokenUrl, clientId: 'svc', clientSecret: SECRET }, createTokenSource(outbound));
  actions = new Map(detectorActions(createDetectorClient(outbound, exchange)).map((a) => [a.name, a]));
  connection = {
    id: '0c7c2b5e-1111-4a4a-9b9b-222233334444',
    kind: 'detector',
    name: 'detector',
    base_url: detector.url,
    config: {},
    secret: null,
    previous_secret: null,
    bot_token: null,
  };
});
afterAll(async () => {
  await outbound?.close();
  await detector?.close();
  await oauth?.close();
});
beforeEach(() => {
  detector.failure = null;
  detector.changes.length = 0;
});

describe('detector actions', () => {
  it('get_alert reads the alert with a read-scoped token; a missing one fails with the detector detail', async () => {
    expect(await run('detector.get_alert', { alert_id: 'det-1' })).toEqual({ alert: ALERT });
    expect(oauth.mints.at(-1)).toMatchObject({ audience: 'detector', scope: 'detector:alerts:read' });
    const missing = await failureOf(run('detector.get_alert', { alert_id: 'det/../9' }));
    expect([missing.type, missing.retryable]).toEqual(['detector_error', false]);
    expect(missing.message).toBe(`detector.get_alert: detector ${new URL(detector.url).host} answered HTTP 404: alert det/../9 not found`);
  });

  it('comment_alert posts once per delivery, whatever the attempt, with a write-scoped token', async () => {
    const first = await run('detector.comment_alert', { alert_id: 'det-1', comment: 'Contained by SVC-12' });
    const retry = await run('detector.comment_alert', { alert_id: 'det-1', comment: 'Contained by SVC-12' }, 2);
    expect(retry).toEqual(first);
    expect(detector.comments.size).toBe(1);
    // Another goto pass or for_each item of the step is another delivery: the detector applies it too.
    const nextPass = await run('detector.comment_alert', { alert_id: 'det-1', comment: 'Contained by SVC-12' }, 1, 'delivery-2');
    expect(nextPass).not.toEqual(first);
    expect(detector.comments.size).toBe(2);
    expect(detector.changes.map((c) => [c.path, c.idempotencyKey, c.body])).toEqual([
      ['/api/v1/alerts/det-1/comments', 'svc-delivery-1', { comment: 'Contained by SVC-12' }],
      ['/api/v1/alerts/det-1/comments', 'svc-delivery-1', { comment: 'Contained by SVC-12' }],
      ['/api/v1/alerts/det-1/comments', 'svc-delivery-2', { comment: 'Contained by SVC-12' }],
    ]);
    expect(oauth.mints.map((m) => m.scope)).toContain('detector:alerts:write');
  });

  it('snooze_rule answers the time the rule sleeps until', async () => {
    const out = (await run('detector.snooze_rule', { rule_id: 'r-ssh', duration_s: 3600, reason: 'maintenance window' })) as {
      rule_id: string;
      snoozed_until: string;
    };
    expect(out.rule_id).toBe('r-ssh');
    expect(Date.parse(out.snoozed_until)).toBeGreaterThan(Date.now() + 3500_000);
    expect(detector.changes[0]).toMatchObject({ path: '/api/v1/rules/r-ssh/snooze', body: { duration_s: 3600, reason: 'maintenance window' } });
  });

  it('add_exception records applied, pending_review or indeterminate, and never reads a bare 2xx as applied', async () => {
    const input = { rule_id: 'r-ssh', field: 'source.ip', value: '198.51.100.4', reason: 'scanner', expires_at: '2026-12-01T00:00:00Z' };
    expect(await run('detector.add_exception', input)).toEqual({ outcome: 'applied', exception_id: 'exc-1', proposal_id: null });
    expect(detector.changes[0]).toMatchObject({
      path: '/api/v1/rules/r-ssh/exceptions',
      body: { field: 'source.ip', value: '198.51.100.4', reason: 'scanner', expires_at: '2026-12-01T00:00:00Z' },
    });

    detector.exceptionAnswer = { status: 202, body: { outcome: 'pending_review', proposal_id: 'prop-7' } };
    expect(await run('detector.add_exception', input)).toEqual({ outcome: 'pending_review', exception_id: null, proposal_id: 'prop-7' });
    detector.exceptionAnswer = { status: 200, body: { status: 'ok', exception_id: 'exc-9' } };
    expect(await run('detector.add_exception', input)).toEqual({ outcome: 'indeterminate', exception_id: 'exc-9', proposal_id: null });
    detector.exceptionAnswer = { status: 201, body: { outcome: 'applied' } };
    expect(await run('detector.add_exception', input)).toEqual({ outcome: 'indeterminate', exception_id: null, proposal_id: null });
    detector.exceptionAnswer = { status: 204, body: '' };
    expect((await run('detector.add_exception', input)) as { outcome: string }).toMatchObject({ outcome: 'indeterminate' });

    detector.exceptionAnswer = { status: 422, body: { detail: 'field source.ip is not indexed for rule r-ssh' } };
    const refused = await failureOf(run('detector.add_exception', input));
    expect([refused.type, refused.retryable]).toEqual(['detector_error', false]);
    expect(refused.message).toMatch(/answered HTTP 422: field source.ip is not indexed for rule r-ssh$/);
    detector.exceptionAnswer = { status: 201, body: { outcome: 'applied', exception_id: 'exc-1' } };
  });

  it('a 5xx is retryable; previews show method, URL and body and mint no token', async () => {
    detector.failure = { status: 503, body: { detail: 'indexing' } };
    expect((await failureOf(run('detector.get_alert', { alert_id: 'det-1' }))).retryable).toBe(true);

    const mints = oauth.mints.length;
    const preview = await actions.get('detector.comment_alert')!.preview({ alert_id: 'det 1', comment: 'hi' }, context());
    expect(preview).toEqual({
      method: 'POST',
      url: `${detector.url}/api/v1/alerts/det%201/comments`,
      scopes: ['detector:alerts:write'],
      body: { comment: 'hi' },
    });
    expect(oauth.mints.length).toBe(mints);
  });
});
