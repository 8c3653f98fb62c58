/**
 * The identity service client's reading of answers (adapters/identity-service/client.ts;
 * docs/suite-contracts.md "Identity: live grants and approval settings") over a fake
 * transport: what counts as an answer, what is "cannot read", the one retry on a 401, and
 * that every scope it asks for is declared in /peer/v1/exchanges. The real transport, the
 * exchange and the failure modes on the wire are tests/integration/peer-approvals.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { isDeclared } from '../../../adapters/exchange/declared.ts';
import type { ExchangeClient } from '../../../adapters/exchange/client.ts';
import {
  APPROVAL_SETTINGS_SCOPE,
  createIdentityServiceClient,
  GRANTS_SCOPE,
  IDENTITY_AUDIENCE,
  IdentityUnavailable,
} from '../../../adapters/identity-service/client.ts';

const SUBJECT = '0b9f3c1e-2d4a-4f6b-8c7d-9e0f1a2b3c4d';
const settings = { url: 'https://identity.example/api', grantsPath: '/peer/v1/grants', approvalSettingsPath: '/peer/v1/approval-settings', timeoutMs: 1000 };

/** A client whose peer answers `answers` in turn (status and JSON body, or raw text), recording the URLs and tokens sent. */
function clientWith(answers: [number, unknown][]) {
  const sent: { url: string; authorization: string | null }[] = [];
  const asked: { audience: string; scopes: readonly string[]; fresh: boolean }[] = [];
  const dropped: string[] = [];
  const exchange: ExchangeClient = {
    token: async (_action, audience, scopes, _signal, fresh = false) => {
      asked.push({ audience, scopes, fresh });
      return `token-${asked.length}`;
    },
    invalidate: (_audience, token) => void dropped.push(token),
  };
  const outbound = async (url: string, init: RequestInit) => {
    sent.push({ url, authorization: new Headers(init.headers).get('authorization') });
    const [status, body] = answers[Math.min(sent.length - 1, answers.length - 1)] ?? [500, null];
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { client: createIdentityServiceClient({ outbound, exchange, settings }), sent, asked, dropped };
}

const reasonOf = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IdentityUnavailable);
  return (error as IdentityUnavailable).reason;
};

describe('identity service client', () => {
  it('reads live grants below SVC_IDENTITY_URL with an identity token for the grants scope', async () => {
    const live = { user: SUBJECT, active: true, grants: [{ team: null, role: 'approver' }], four_eyes_exception: true, extra: 1 };
    const { client, sent, asked } = clientWith([[200, live]]);
    expect(await client.liveGrants(SUBJECT)).toEqual({ user: SUBJECT, active: true, grants: [{ team: null, role: 'approver' }], fourEyesException: true });
    expect(sent).toEqual([{ url: `https://identity.example/api/peer/v1/grants?user=${SUBJECT}`, authorization: 'Bearer token-1' }]);
    expect(asked).toEqual([{ audience: IDENTITY_AUDIENCE, scopes: [GRANTS_SCOPE], fresh: false }]);
  });

  it('reads a 404 as a subject identity does not know', async () => {
    expect(await clientWith([[404, { detail: 'no such user' }]]).client.liveGrants(SUBJECT)).toBeNull();
  });

  it('asks once more with a fresh token after a 401, and no more', async () => {
    const settingsAnswer: [number, unknown] = [200, { default_deadline_hours: 1.5 }];
    const once = clientWith([[401, {}], settingsAnswer]);
    expect(await once.client.approvalSettings()).toEqual({ defaultDeadlineHours: 1.5 });
    expect(once.asked.map((a) => [a.scopes, a.fresh])).toEqual([
      [[APPROVAL_SETTINGS_SCOPE], false],
      [[APPROVAL_SETTINGS_SCOPE], true],
    ]);
    expect(once.dropped).toEqual(['token-1']);
    const twice = clientWith([[401, {}]]);
    expect(await reasonOf(twice.client.approvalSettings())).toBe('http_status');
    expect(twice.sent).toHaveLength(2);
  });

  it('reads anything outside the contract as identity unavailable', async () => {
    const grants = (body: unknown, status = 200) => reasonOf(clientWith([[status, body]]).client.liveGrants(SUBJECT));
    const base = { user: SUBJECT, active: true, grants: [], four_eyes_exception: false };
    expect(await grants(base, 500)).toBe('http_status');
    expect(await grants(base, 403)).toBe('http_status');
    expect(await grants('{"user": ')).toBe('bad_response');
    expect(await grants({ ...base, user: '1b9f3c1e-2d4a-4f6b-8c7d-9e0f1a2b3c4d' })).toBe('bad_response');
    expect(await grants({ ...base, grants: [{ team: 'blue', role: 'owner' }] })).toBe('bad_response');
    expect(await grants({ ...base, grants: [{ team: '', role: 'admin' }] })).toBe('bad_response');
    expect(await grants({ ...base, four_eyes_exception: 'yes' })).toBe('bad_response');
    const hours = (value: unknown) => reasonOf(clientWith([[200, { default_deadline_hours: value }]]).client.approvalSettings());
    for (const value of [0, -1, '24', null, 8761]) expect(await hours(value)).toBe('bad_response');
  });

  it('says when identity is not configured, before any request', async () => {
    const { sent } = clientWith([]);
    const unconfigured = createIdentityServiceClient({
      outbound: async () => new Response(null),
      exchange: { token: async () => 't', invalidate: () => undefined },
      settings: { ...settings, url: null },
    });
    expect(await reasonOf(unconfigured.liveGrants(SUBJECT))).toBe('not_configured');
    expect(sent).toEqual([]);
  });

  it('declares every scope it asks for in /peer/v1/exchanges', () => {
    expect(isDeclared(IDENTITY_AUDIENCE, [GRANTS_SCOPE])).toBe(true);
    expect(isDeclared(IDENTITY_AUDIENCE, [APPROVAL_SETTINGS_SCOPE])).toBe(true);
  });
});
