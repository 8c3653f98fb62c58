/**
 * Caller tokens on the case routes of the real service, in process, on every engine
 * (CONTRACTS.md section 2; SPEC.md "Authentication" and "Errors"): a missing, forged,
 * expired, replayed or wrongly bound token is 401, a valid token without the permission
 * is 403, each in the `{detail, code, params}` shape with nothing stored. Webhook
 * intake takes its own token, never a caller token.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessService, type InProcessService } from '../support/in-process-service.ts';
import { createTestIdentity, e2eEngines } from '../support/service-process.ts';

const subject = '6d1f0c2e-4b7a-4e0e-9a51-3c2b1a0f9e87';
type Answer = { status: number; body: any; text: string };
type Role = 'viewer' | 'analyst' | 'approver' | 'admin';

function expectRefusal(res: Answer, status: 401 | 403, detail?: RegExp): void {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['code', 'detail', 'params']);
  expect(res.body.code).toBe(status === 401 ? 'unauthenticated' : 'forbidden');
  expect(typeof res.body.detail).toBe('string');
  if (detail) expect(res.body.detail).toMatch(detail);
  expect(res.body.params).toBeTypeOf('object');
  expect(res.text).not.toMatch(/\n\s+at |\bat .+\.[cm]?[jt]s:\d+|node_modules|stack|eyJ/i);
}

describe.each(e2eEngines)('caller tokens on case routes on $name', ({ server }) => {
  let svc: InProcessService;

  const call = async (method: string, path: string, token: string | null, body?: unknown): Promise<Answer> => {
    const res = await svc.request(path, {
      method,
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text), text };
  };
  /** A request-bound assertion as the gateway mints it (CONTRACTS.md section 2). */
  const assertion = (htm: string, htu: string, role: Role = 'analyst', extra: Record<string, unknown> = {}) =>
    svc.identity.sign({ token_use: 'assertion', sub: subject, email: 'ana@example.com', name: 'Ana', grants: [{ team: null, role }], htm, htu, ...extra });
  const newCase = { title: 'Suspicious login', severity: 'medium' };

  /** Cases as an admin sees them, through a token unrelated to the one under test. */
  const storedCases = async () => {
    const res = await call('GET', '/cases?limit=200&include_total=true', await svc.identity.mint([{ team: null, role: 'admin' }]));
    expect(res.status).toBe(200);
    return { total: res.body.total as number, ids: (res.body.items as { id: string }[]).map((c) => c.id).sort() };
  };

  beforeAll(async () => {
    svc = await startInProcessService({ server });
    const seeded = await call('POST', '/cases', await assertion('POST', '/cases'), { title: 'Seeded', severity: 'low' });
    expect(seeded.status, seeded.text).toBe(201);
  });
  afterAll(async () => svc?.close());

  it('accepts a valid assertion on GET and POST /cases', async () => {
    expect((await call('GET', '/cases', await assertion('GET', '/cases', 'viewer'))).status).toBe(200);
    const before = await storedCases();
    const created = await call('POST', '/cases', await assertion('POST', '/cases'), newCase);
    expect(created.status, created.text).toBe(201);
    expect((await storedCases()).total).toBe(before.total + 1);
  });

  it('answers 401 without a token or with a garbled one', async () => {
    const before = await storedCases();
    expectRefusal(await call('GET', '/cases', null), 401, /missing bearer token/);
    expectRefusal(await call('POST', '/cases', null, newCase), 401, /missing bearer token/);
    for (const token of ['garbage', 'a.b.c', '']) {
      expectRefusal(await call('GET', '/cases', token), 401);
      expectRefusal(await call('POST', '/cases', token, newCase), 401);
    }
    expect(await storedCases()).toEqual(before);
  });

  it('answers 401 to a token signed by another key, under a trusted or an unknown key id', async () => {
    const before = await storedCases();
    const forger = await createTestIdentity(svc.identity.issuer);
    const claims = (htm: string) => ({
      token_use: 'assertion',
      sub: subject,
      email: 'ana@example.com',
      name: 'Ana',
      grants: [{ team: null, role: 'admin' }],
      htm,
      htu: '/cases',
    });
    expectRefusal(await call('GET', '/cases', await forger.sign(claims('GET'), { kid: svc.identity.kid })), 401, /signature is invalid/);
    expectRefusal(await call('POST', '/cases', await forger.sign(claims('POST'), { kid: svc.identity.kid }), newCase), 401, /signature is invalid/);
    expectRefusal(await call('GET', '/cases', await forger.sign(claims('GET'))), 401, /unknown key/);
    expectRefusal(await call('POST', '/cases', await forger.mint([{ team: null, role: 'admin' }]), newCase), 401, /unknown key/);
    expect(await storedCases()).toEqual(before);
  });

  it('answers 401 to an expired token, an assertion and an exchange token alike', async () => {
    const before = await storedCases();
    const now = Math.floor(Date.now() / 1000);
    const expired = { iat: now - 400, exp: now - 300 };
    expectRefusal(await call('GET', '/cases', await assertion('GET', '/cases', 'admin', expired)), 401, /expired/);
    expectRefusal(await call('POST', '/cases', await assertion('POST', '/cases', 'admin', expired), newCase), 401, /expired/);
    const exchange = await svc.identity.sign({
      token_use: 'exchange',
      sub: 'batch',
      scope: 'svc:cases:read svc:cases:write',
      act: { sub: subject, email: 'ana@example.com', grants: [{ team: null, role: 'admin' }] },
      ...expired,
    });
    expectRefusal(await call('POST', '/cases', exchange, newCase), 401, /expired/);
    expect(await storedCases()).toEqual(before);
  });

  it('answers 401 to a token for another issuer or audience', async () => {
    const before = await storedCases();
    expectRefusal(await call('GET', '/cases', await assertion('GET', '/cases', 'admin', { iss: 'https://elsewhere.example' })), 401, /iss/);
    expectRefusal(await call('POST', '/cases', await assertion('POST', '/cases', 'admin', { aud: 'other-service' }), newCase), 401, /aud/);
    expect(await storedCases()).toEqual(before);
  });

  it('accepts an assertion once: the replay is 401 and changes nothing', async () => {
    const read = await assertion('GET', '/cases');
    expect((await call('GET', '/cases', read)).status).toBe(200);
    expectRefusal(await call('GET', '/cases', read), 401, /already used/);

    const write = await assertion('POST', '/cases');
    expect((await call('POST', '/cases', write, { title: 'Once', severity: 'low' })).status).toBe(201);
    const before = await storedCases();
    expectRefusal(await call('POST', '/cases', write, { title: 'Twice', severity: 'low' }), 401, /already used/);
    expect(await storedCases()).toEqual(before);
  });

  it('answers 401 to an assertion bound to another method or path', async () => {
    const before = await storedCases();
    expectRefusal(await call('POST', '/cases', await assertion('GET', '/cases'), newCase), 401, /not bound/);
    expectRefusal(await call('GET', '/cases', await assertion('POST', '/cases')), 401, /not bound/);
    expectRefusal(await call('GET', '/cases', await assertion('GET', '/auth/me')), 401, /not bound/);
    expectRefusal(await call('POST', '/cases', await assertion('POST', '/cases/')), 401, /not bound/);
    expectRefusal(await call('GET', '/cases', await assertion('GET', '/cases?status=new')), 401, /not bound/);
    // A refused binding does not spend the token id: the same assertion still works where it belongs.
    const token = await assertion('GET', '/cases');
    expectRefusal(await call('GET', '/auth/me', token), 401, /not bound/);
    expect((await call('GET', '/cases?status=new', token)).status).toBe(200);
    expect(await storedCases()).toEqual(before);
  });

  it('answers 403 to a valid token whose role lacks the permission, and to a scope that does not cover the route', async () => {
    const before = await storedCases();
    const viewer = await call('POST', '/cases', await assertion('POST', '/cases', 'viewer'), newCase);
    expectRefusal(viewer, 403);
    expect(viewer.body.params).toEqual({ permission: 'manage_cases' });
    const viewerExchange = await svc.identity.mint([{ team: null, role: 'viewer' }]);
    expectRefusal(await call('POST', '/cases', viewerExchange, newCase), 403);
    const readOnly = await svc.identity.sign({
      token_use: 'exchange',
      sub: 'mcp',
      scope: 'svc:cases:read',
      act: { sub: subject, email: 'ana@example.com', grants: [{ team: null, role: 'admin' }] },
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    expect((await call('GET', '/cases', readOnly)).status).toBe(200);
    const scoped = await call('POST', '/cases', readOnly, newCase);
    expectRefusal(scoped, 403);
    expect(scoped.body.params).toEqual({ scope: 'svc:cases:write' });
    expect(await storedCases()).toEqual(before);
  });

  it('refuses a caller token on the detector webhook: it takes its own token only', async () => {
    const before = await storedCases();
    const alert = { alert_id: `a-${randomUUID()}`, rule: { id: 'r1', title: 'Rule', severity: 'high' } };
    const post = (headers: Record<string, string>) =>
      svc
        .request('/webhooks/detector', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(alert) })
        .then(async (res) => {
          const text = await res.text();
          return { status: res.status, body: JSON.parse(text), text };
        });
    expectRefusal(await post({}), 401);
    expectRefusal(await post({ authorization: `Bearer ${await svc.identity.mint([{ team: null, role: 'admin' }])}` }), 401);
    expectRefusal(await post({ 'x-svc-token': 'not-the-secret' }), 401);
    expect(await storedCases()).toEqual(before);
    const alerts = await call('GET', '/alerts', await svc.identity.mint([{ team: null, role: 'admin' }]));
    expect(alerts.body.items).toEqual([]);
  });
});
