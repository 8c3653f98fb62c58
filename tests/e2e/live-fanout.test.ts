/**
 * Live updates across API processes on one PostgreSQL server (SPEC.md "Live updates and
 * inbox"; docs/operations.md "Live updates"): two `SVC_ROLE=api` processes and a worker,
 * a `ws` client on each API process. Presence made on one process shows on the other
 * (its WebSocket and `GET /cases/<id>/presence`), and case and run updates projected by
 * whichever process reach the clients of both, through LISTEN/NOTIFY, still scoped.
 * Server only: PGlite is one in-process database.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../support/engines.ts';
import { connectLive, type LiveClient } from '../support/live-client.ts';
import { createTestIdentity, engineEnv, startServiceProcess, startWorkerProcess, type ServiceProcess } from '../support/service-process.ts';
import { testPerson, type TestPerson } from '../support/in-process-service.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const bob = testPerson('bob@example.com', [{ team: 'blue', role: 'analyst' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);

describe.skipIf(!process.env.TEST_DATABASE_URL)('live updates across two API processes on one PostgreSQL server', () => {
  const processes: ServiceProcess[] = [];
  const clients: LiveClient[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close();
    await Promise.allSettled(processes.map((p) => p.stop()));
  });

  it('mirrors presence and fans case updates out to the clients of both processes', async () => {
    const identity = await createTestIdentity();
    const env = { ...engineEnv(identity, await createServerDatabase()), SVC_PRESENCE_HEARTBEAT_SECONDS: '5' };
    const [one, two] = await Promise.all([startServiceProcess({ ...env, SVC_ROLE: 'api' }), startServiceProcess({ ...env, SVC_ROLE: 'api' })]);
    processes.push(one!, two!, startWorkerProcess(env));
    const call = async (url: string, who: TestPerson, method: string, path: string, body?: unknown) => {
      const token = await identity.sign({
        token_use: 'assertion',
        sub: who.sub,
        email: who.email,
        name: who.email,
        grants: who.grants,
        htm: method,
        htu: path,
      });
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    const opened = await call(one!.url, ana, 'POST', '/cases', { title: 'Fan-out', severity: 'high', team: 'blue' });
    expect(opened.status).toBe(201);
    const caseId = opened.body.id as string;
    const a = await connectLive(one!.url, identity, ana);
    const b = await connectLive(two!.url, identity, bob);
    const e = await connectLive(two!.url, identity, eve);
    clients.push(a, b, e);

    a.send({ type: 'presence.join', case_id: caseId });
    await a.next((f) => f.type === 'presence.joined');
    const seen = await b.next((f) => f.type === 'presence.updated' && f.case_id === caseId && f.viewers.length === 1);
    expect(seen.viewers[0]).toMatchObject({ email: ana.email });
    expect((await call(two!.url, bob, 'GET', `/cases/${caseId}/presence`)).body.items.map((v: { email: string }) => v.email)).toEqual([ana.email]);

    // Several changes from both processes: whichever projects a batch, both processes' clients hear of it.
    for (const [url, who] of [
      [one!.url, ana],
      [two!.url, bob],
      [one!.url, ana],
    ] as const) {
      expect((await call(url, who, 'POST', `/cases/${caseId}/comments`, { body: 'fan-out' })).status).toBe(201);
    }
    for (const c of [a, b]) {
      await c.next((f) => f.type === 'case.updated' && f.case_id === caseId && c.frames.filter((g) => g.type === 'case.updated').length >= 3, 10_000);
    }

    a.send({ type: 'presence.leave', case_id: caseId });
    await b.next((f) => f.type === 'presence.updated' && f.case_id === caseId && f.viewers.length === 0);
    expect((await call(two!.url, bob, 'GET', `/cases/${caseId}/presence`)).body.items).toEqual([]);
    expect(e.frames.filter((f) => f.type !== 'hello')).toEqual([]);
  }, 90_000);
});
