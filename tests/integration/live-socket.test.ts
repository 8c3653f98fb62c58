/**
 * `WS /ws` on the real service with the `ws` client, on every engine (SPEC.md "Live
 * updates and inbox"; docs/operations.md "Live updates"): authenticated upgrades; only
 * the four inbound frames, each at most 2 KiB (a larger one closes with 1009, anything
 * else is refused with an `error` frame); joins check case visibility; presence expires
 * on missed heartbeats; case, alert, run, approval, notification and presence updates
 * reach exactly the callers allowed to see them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, detectorIntake, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { connectLive, refusedUpgrade, type Frame, type LiveClient } from '../support/live-client.ts';
import { gatedTagRunbook } from '../support/runbooks.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'approver' }]);
const bob = testPerson('bob@example.com', [{ team: 'blue', role: 'analyst' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);
const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

/** Waits `ms`: used only to show that a frame did NOT arrive after one that did. */
const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

describe.each(e2eEngines)('WebSocket live updates on $name', ({ server }) => {
  let svc: InProcessService;
  let blueCase = '';
  let privateCase = '';
  const clients: LiveClient[] = [];
  const connect = async (who: typeof ana) => {
    const c = await connectLive(svc.url, svc.identity, who);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      { listen: true, runbooks: { 'gated.yml': gatedTagRunbook }, extraEnv: { SVC_PRESENCE_HEARTBEAT_SECONDS: '1' } },
    );
    blueCase = (await callAs(svc, ana, 'POST', '/cases', { title: 'Blue case', severity: 'high', team: 'blue' })).body.id;
    privateCase = (await callAs(svc, root, 'POST', '/cases', { title: 'Private', severity: 'low', team: 'blue', private: true })).body.id;
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    await svc?.close();
  });

  it('refuses an upgrade without a token bound to GET /ws, or at another path, in the API error shape', async () => {
    const ws = `${svc.url.replace(/^http/, 'ws')}/ws`;
    expect(await refusedUpgrade(ws, {})).toMatchObject({ status: 401, body: { code: 'unauthenticated' } });
    const elsewhere = await svc.identity.sign({
      token_use: 'assertion',
      sub: ana.sub,
      email: ana.email,
      name: ana.email,
      grants: ana.grants,
      htm: 'GET',
      htu: '/cases',
    });
    expect(await refusedUpgrade(ws, { authorization: `Bearer ${elsewhere}` })).toMatchObject({ status: 401 });
    const noGrant = testPerson('nobody@example.com', []);
    const token = await svc.identity.sign({
      token_use: 'assertion',
      sub: noGrant.sub,
      email: noGrant.email,
      name: noGrant.email,
      grants: [],
      htm: 'GET',
      htu: '/ws',
    });
    expect(await refusedUpgrade(ws, { authorization: `Bearer ${token}` })).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await refusedUpgrade(`${svc.url.replace(/^http/, 'ws')}/elsewhere`, {})).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('answers ping, refuses unknown, malformed and binary frames without closing, and closes on a frame over 2 KiB', async () => {
    const c = await connect(ana);
    c.send({ type: 'ping' });
    expect(await c.next((f) => f.type === 'pong')).toMatchObject({ at: expect.any(String) });
    c.send({ type: 'subscribe', topic: 'everything' });
    expect(await c.next((f) => f.type === 'error' && /type must be/.test(f.detail))).toMatchObject({ code: 'frame_refused' });
    c.sendRaw('not json');
    expect(await c.next((f) => f.type === 'error' && /JSON object/.test(f.detail))).toMatchObject({ code: 'frame_refused' });
    c.send({ type: 'presence.join', case_id: 'not-a-uuid' });
    expect(await c.next((f) => f.type === 'error' && /case_id/.test(f.detail))).toMatchObject({ code: 'frame_refused' });
    c.sendRaw(Buffer.from([1, 2, 3]));
    expect(await c.next((f) => f.type === 'error' && /text/.test(f.detail))).toMatchObject({ code: 'frame_refused' });
    c.send({ type: 'ping', pad: 'x'.repeat(1900) });
    expect((await c.next((f) => f.type === 'pong' && c.frames.filter((g) => g.type === 'pong').length === 2)).type).toBe('pong');
    c.send({ type: 'ping', pad: 'x'.repeat(2100) });
    expect(await c.closed).toBe(1009);
  });

  it('joins only a case the caller may see, and pushes presence to the others who may see it', async () => {
    const a = await connect(ana);
    const b = await connect(bob);
    const e = await connect(eve);
    e.send({ type: 'presence.join', case_id: blueCase });
    expect(await e.next((f) => f.type === 'error' && f.case_id === blueCase)).toMatchObject({ code: 'case_not_found' });
    b.send({ type: 'presence.join', case_id: privateCase });
    expect(await b.next((f) => f.type === 'error' && f.case_id === privateCase)).toMatchObject({ code: 'case_not_found' });
    const missing = randomUUID();
    b.send({ type: 'presence.ping', case_id: missing });
    expect(await b.next((f) => f.type === 'error' && f.case_id === missing)).toMatchObject({ code: 'not_joined' });

    a.send({ type: 'presence.join', case_id: blueCase });
    const joined = await a.next((f) => f.type === 'presence.joined');
    expect(joined).toMatchObject({ case_id: blueCase, heartbeat_interval_s: 1, viewers: [expect.objectContaining({ email: ana.email })] });
    const seen = await b.next((f) => f.type === 'presence.updated' && f.case_id === blueCase && f.viewers.length === 1);
    expect(seen.viewers[0]).toMatchObject({ user_id: expect.any(String), email: ana.email });
    expect((await callAs(svc, bob, 'GET', `/cases/${blueCase}/presence`)).body.items.map((v: { email: string }) => v.email)).toEqual([ana.email]);
    await settle();
    expect(e.frames.filter((f) => f.type === 'presence.updated')).toEqual([]);

    // No heartbeat for two intervals: ana expires, and bob sees the roster empty.
    const gone = await b.next((f) => f.type === 'presence.updated' && f.case_id === blueCase && f.viewers.length === 0, 6000);
    expect(gone.viewers).toEqual([]);

    a.send({ type: 'presence.join', case_id: blueCase });
    await b.next((f) => f.type === 'presence.updated' && f.viewers.length === 1 && b.frames.filter((g) => g.type === 'presence.updated').length >= 3);
    for (let i = 0; i < 3; i++) {
      a.send({ type: 'presence.ping', case_id: blueCase });
      await settle(500);
    }
    expect((await callAs(svc, bob, 'GET', `/cases/${blueCase}/presence`)).body.items).toHaveLength(1);
    a.send({ type: 'presence.leave', case_id: blueCase });
    await a.next((f) => f.type === 'presence.left');
    await b.next((f) => f.type === 'presence.updated' && f.viewers.length === 0 && b.frames.filter((g) => g.type === 'presence.updated').length >= 4);
  }, 20_000);

  it('pushes case, alert, run, approval and notification updates to exactly the callers who may see them', async () => {
    const a = await connect(ana);
    const b = await connect(bob);
    const e = await connect(eve);
    const r = await connect(root);
    const of = (c: LiveClient, type: string) => c.frames.filter((f: Frame) => f.type === type);

    expect((await callAs(svc, root, 'POST', `/cases/${privateCase}/comments`, { body: 'members only' })).status).toBe(201);
    expect((await callAs(svc, ana, 'POST', `/cases/${blueCase}/comments`, { body: `@${bob.email} have a look` })).status).toBe(201);
    expect(await b.next((f) => f.type === 'case.updated' && f.case_id === blueCase)).toMatchObject({ event: 'case.comment_added' });
    const note = await b.next((f) => f.type === 'notification.created');
    expect((await callAs(svc, bob, 'GET', '/notifications')).body.items.map((n: { id: string }) => n.id)).toContain(note.notification_id);
    await r.next((f) => f.type === 'case.updated' && f.case_id === privateCase);

    const alert = await detectorIntake(svc, {
      alert_id: `ws-${randomUUID()}`,
      rule: { id: 'r1', title: 'Blue rule', severity: 'low' },
      detected_at: new Date().toISOString(),
      team: 'blue',
    });
    expect(alert.status).toBe(202);
    await b.next((f) => f.type === 'alert.updated' && f.alert_id === alert.body.alert_id);
    await b.next((f) => f.type === 'case.updated' && f.case_id === alert.body.case_id);

    const run = await callAs(svc, ana, 'POST', `/cases/${blueCase}/runbooks/gated-tag/run`, {});
    expect(run.status, run.text).toBe(202);
    const runId = run.body.run_id ?? run.body.id;
    expect(await b.next((f) => f.type === 'approval.updated' && f.run_id === runId)).toMatchObject({ step_id: 'tag', status: 'pending' });
    expect((await callAs(svc, ana, 'POST', `/runs/${runId}/approve`, { step_id: 'tag', note: null })).status).toBe(200);
    await b.next((f) => f.type === 'approval.updated' && f.run_id === runId && f.status === 'approved');
    await b.next((f) => f.type === 'run.updated' && f.run_id === runId && f.status === 'succeeded', 10_000);
    await a.next((f) => f.type === 'run.updated' && f.run_id === runId && f.status === 'succeeded');

    await settle();
    for (const type of ['case.updated', 'alert.updated', 'run.updated', 'approval.updated', 'notification.created']) expect(of(e, type), type).toEqual([]);
    expect(of(b, 'case.updated').map((f) => f.case_id)).not.toContain(privateCase);
    expect(of(a, 'notification.created')).toEqual([]);
    for (const f of [...a.frames, ...b.frames]) expect(JSON.stringify(f)).not.toContain('have a look');
  }, 30_000);
});

describe.each(e2eEngines.filter((e) => e.name === 'pglite'))('WebSocket sessions on $name', ({ server }) => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService({ server }, { listen: true, extraEnv: { SVC_WS_SESSION_MAX_S: '1' } });
  }, 60_000);
  afterAll(async () => svc?.close());

  it('ends a session after SVC_WS_SESSION_MAX_S with 4001, for a reconnect with a fresh token', async () => {
    const c = await connectLive(svc.url, svc.identity, ana);
    expect(c.frames[0]).toMatchObject({ type: 'hello', session_expires_in_s: 1 });
    expect(await c.closed).toBe(4001);
  });
});
