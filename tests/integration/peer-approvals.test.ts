/**
 * `GET /peer/v1/approvals?user=<subject>` on the real service and worker, on every engine
 * (SPEC.md "Peer endpoints" and the paragraph below it, "Approval gate item",
 * "Authentication" row "Peer status endpoints", "Errors", "Limits"), with the outbound edge
 * as in production: private targets refused, the identity stand-in reachable only as the
 * exact origin of SVC_IDENTITY_URL. Identity (tests/support/identity-server.ts) serves the
 * workload exchange, the users' live grants and the approval settings over HTTPS on
 * 127.0.0.1, and fails on demand: slow, 500, malformed, refused.
 *
 * The service runs on a manual clock with a long worker poll, so a gate whose deadline the
 * clock passed stays pending in the read model until the test looks: the listing's own
 * deadline check is what hides it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import { GRANTS_PATH, identityServiceEnv, startIdentityServer, type IdentityServer, type IdentityUser } from '../support/identity-server.ts';
import { callAs, expectDeclared, runWhen, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { gatedStepRunbookYaml } from '../support/runbook-definitions.ts';

const EXCHANGE_SECRET = 'xs_peer-approvals-secret-4b7e';

const gated = (id: string, approval: string) =>
  gatedStepRunbookYaml(id, 'case.update', '{ tags_add: ["approved"] }', approval, { stepId: 'contain', name: `${id} runbook` });
const runbooks = {
  'approver-gate.yml': gated('approver-gate', '{ roles: [approver], message: "Contain the host?" }'),
  'admin-gate.yml': gated('admin-gate', '{ roles: [admin] }'),
  'short-gate.yml': gated('short-gate', '{ roles: [approver], timeout_h: 1 }'),
  'mid-gate.yml': gated('mid-gate', '{ roles: [approver], timeout_h: 2 }'),
};

// Callers, as their tokens say.
const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const rita = testPerson('rita@example.com', [{ team: 'red', role: 'analyst' }]);
const vic = testPerson('vic@example.com', [{ team: null, role: 'viewer' }]);
const realmApproverCaller = testPerson('rac@example.com', [{ team: null, role: 'approver' }]);
// Listed users: alice requests a run herself; bob never signed in here.
const alice = testPerson('alice@example.com', [{ team: 'blue', role: 'approver' }]);
const bob = testPerson('bob@example.com', []);

const aliceLive: IdentityUser = { active: true, grants: [{ team: 'blue', role: 'approver' }], four_eyes_exception: false };
const bobLive: IdentityUser = { active: true, grants: [{ team: null, role: 'approver' }], four_eyes_exception: false };
const rootLive: IdentityUser = { active: true, grants: [{ team: null, role: 'admin' }], four_eyes_exception: false };

type Listing = { status: number; body: any; cache: string | null };

describe.each(e2eEngines)('peer approvals listing on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let identity: IdentityServer;
  let svc: InProcessService;
  const cases = { blue: '', red: '', org: '', privateBlue: '' };
  const runs = { blue: '', blueAdmin: '', red: '', org: '', privateBlue: '', aliceOwn: '', short: '', mid: '', cancelled: '' };

  const statusToken = (scope = 'svc:peer:status:read') => svc.identity.sign({ token_use: 'service', sub: 'identity', scope });
  /** `GET /peer/v1/approvals<query>` with `token` (identity's status token by default), held to /openapi.json. */
  const peerGet = async (query: string, token?: string): Promise<Listing> => {
    const path = `/peer/v1/approvals${query}`;
    const res = await svc.request(path, { headers: { authorization: `Bearer ${token ?? (await statusToken())}` } });
    const text = await res.text();
    await expectDeclared(svc, 'GET', path, res, text);
    return { status: res.status, body: text === '' ? null : JSON.parse(text), cache: res.headers.get('cache-control') };
  };
  const listFor = async (who: TestPerson) => {
    const listing = await peerGet(`?user=${who.sub}`);
    expect(listing.status, JSON.stringify(listing.body)).toBe(200);
    return listing.body;
  };
  const idsFor = async (who: TestPerson): Promise<string[]> => (await listFor(who)).approvals.map((a: { id: string }) => a.id);
  const queue = async (who: TestPerson, caseId: string, slug: string) => {
    const queued = await callAs(svc, who, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, {});
    expect(queued.status, queued.text).toBe(202);
    return queued.body.id as string;
  };
  const waiting = async (who: TestPerson, caseId: string, slug: string) => {
    const id = await queue(who, caseId, slug);
    await runWhen(svc, root, id, /^waiting_approval$/);
    return id;
  };
  const createCase = async (who: TestPerson, team: string | null, isPrivate = false) => {
    const created = await callAs(svc, who, 'POST', '/cases', { title: `Approvals ${team ?? 'org'}`, severity: 'high', team, private: isPrivate });
    expect(created.status, created.text).toBe(201);
    return created.body.id as string;
  };

  beforeAll(async () => {
    identity = await startIdentityServer('svc', EXCHANGE_SECRET);
    identity.settings = { default_deadline_hours: 48 };
    identity.slowMs = 2500;
    for (const [who, live] of [
      [alice, aliceLive],
      [bob, bobLive],
      [root, rootLive],
    ] as const)
      identity.setUser(who.sub, live);
    svc = await startInProcessService(
      { server },
      {
        runbooks,
        clock: clock.now,
        extraEnv: {
          ...identityServiceEnv(identity, EXCHANGE_SECRET),
          SVC_PUBLIC_PREFIX: '/suite/svc',
          SVC_ENVIRONMENT: 'staging',
          // Nothing polls: the worker runs when a run is queued, never on its own at a deadline.
          SVC_POLL_INTERVAL_MS: '600000',
        },
      },
    );
    cases.blue = await createCase(ana, 'blue');
    cases.privateBlue = await createCase(ana, 'blue', true);
    cases.red = await createCase(rita, 'red');
    cases.org = await createCase(root, null);
    runs.blue = await waiting(ana, cases.blue, 'approver-gate');
    runs.blueAdmin = await waiting(ana, cases.blue, 'admin-gate');
    runs.privateBlue = await waiting(ana, cases.privateBlue, 'approver-gate');
    runs.red = await waiting(rita, cases.red, 'approver-gate');
    runs.org = await waiting(root, cases.org, 'approver-gate');
    runs.aliceOwn = await waiting(alice, cases.blue, 'approver-gate');
    runs.short = await waiting(ana, cases.blue, 'short-gate');
    runs.mid = await waiting(ana, cases.blue, 'mid-gate');
    runs.cancelled = await waiting(ana, cases.blue, 'approver-gate');
    const cancelled = await callAs(svc, ana, 'POST', `/runs/${runs.cancelled}/cancel`, {});
    expect(cancelled.status, cancelled.text).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
    await identity?.close();
  });

  it('answers the document, no-store, with each gate as an approval item under the public prefix', async () => {
    const listing = await peerGet(`?user=${alice.sub}`);
    expect(listing.status).toBe(200);
    expect(listing.cache).toBe('no-store');
    expect(listing.body).toMatchObject({ contract_version: 1, product: 'svc', user: alice.sub, observed_at: clock.now().toISOString(), truncated: false });
    const run = (await callAs(svc, root, 'GET', `/runs/${runs.blue}`)).body;
    const item = listing.body.approvals.find((a: { id: string }) => a.id === runs.blue);
    expect(item).toEqual({
      id: runs.blue,
      kind: 'run_step',
      step_id: 'contain',
      title: 'approver-gate runbook: step contain',
      summary: 'Contain the host?',
      environment: 'staging',
      team_id: 'blue',
      requester_email: ana.email,
      requester_subject: ana.sub,
      self_requested: false,
      requested_at: run.gates[0].opened_at,
      expires_at: run.gates[0].expires_at,
      href: `/suite/svc/runs/${runs.blue}`,
      decide_tool: 'svc_approve_run',
    });
    // The install default came from identity's approval settings (48 hours).
    expect(Date.parse(item.expires_at) - Date.parse(item.requested_at)).toBe(48 * 3_600_000);
    const declared = (await (await svc.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: object; parameters: unknown[] }>>;
    };
    const operation = declared.paths['/peer/v1/approvals']?.get;
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['200', '503']));
    expect(operation?.parameters).toContainEqual(expect.objectContaining({ name: 'user', in: 'query', required: true }));
  });

  it('lists a gate by a grant covering its team whose role holds approve_runbooks and is accepted by the gate', async () => {
    // Alice approves in blue: blue gates of role approver, not admin ones, not red or org-wide runs, not a cancelled run.
    expect(await idsFor(alice)).toEqual(expect.arrayContaining([runs.blue, runs.short, runs.mid]));
    for (const hidden of [runs.blueAdmin, runs.red, runs.org, runs.cancelled]) expect(await idsFor(alice)).not.toContain(hidden);
    // Bob's realm grant covers every team and org-wide runs; an approver still does not take an admin gate.
    const bobs = await idsFor(bob);
    expect(bobs).toEqual(expect.arrayContaining([runs.blue, runs.red, runs.org, runs.aliceOwn]));
    expect(bobs).not.toContain(runs.blueAdmin);
    // A realm admin takes the admin gate only: role names match exactly, an admin is not an approver.
    expect(await idsFor(root)).toEqual([runs.blueAdmin]);
  });

  it('reads the live grants from identity on every call, not the grants stored from a token', async () => {
    identity.setUser(alice.sub, { ...aliceLive, grants: [{ team: 'red', role: 'approver' }] });
    try {
      const ids = await idsFor(alice);
      expect(ids).toContain(runs.red);
      expect(ids).not.toContain(runs.blue);
      identity.setUser(alice.sub, {
        ...aliceLive,
        grants: [
          { team: 'blue', role: 'viewer' },
          { team: 'blue', role: 'analyst' },
        ],
      });
      expect(await idsFor(alice)).toEqual([]);
      identity.setUser(alice.sub, { ...aliceLive, active: false });
      expect(await idsFor(alice)).toEqual([]);
    } finally {
      identity.setUser(alice.sub, aliceLive);
    }
    const asked = identity.requests.filter((r) => r.path === GRANTS_PATH && r.user === alice.sub).length;
    await idsFor(alice);
    expect(identity.requests.filter((r) => r.path === GRANTS_PATH && r.user === alice.sub)).toHaveLength(asked + 1);
    // A subject identity does not know lists nothing.
    expect(await idsFor(testPerson('nobody@example.com', []))).toEqual([]);
  });

  it("hides a private case's gate from a person who may not see the case", async () => {
    expect(await idsFor(bob)).not.toContain(runs.privateBlue);
    identity.setUser(bob.sub, { ...bobLive, grants: [...bobLive.grants, { team: 'blue', role: 'admin' }] });
    try {
      expect(await idsFor(bob)).toContain(runs.privateBlue);
    } finally {
      identity.setUser(bob.sub, bobLive);
    }
  });

  it('shows a person their own run only while identity grants the four-eyes exception, marked self_requested', async () => {
    expect(await idsFor(alice)).not.toContain(runs.aliceOwn);
    identity.setUser(alice.sub, { ...aliceLive, four_eyes_exception: true });
    try {
      const listing = await listFor(alice);
      const own = listing.approvals.find((a: { id: string }) => a.id === runs.aliceOwn);
      expect(own).toMatchObject({ self_requested: true, requester_email: alice.email, requester_subject: alice.sub });
      expect(listing.approvals.filter((a: { self_requested: boolean }) => a.self_requested).map((a: { id: string }) => a.id)).toEqual([runs.aliceOwn]);
    } finally {
      identity.setUser(alice.sub, aliceLive);
    }
    expect(await idsFor(alice)).not.toContain(runs.aliceOwn);
  });

  it("takes identity's status token, a realm admin install-wide and a team admin for its teams only; anyone else is 403", async () => {
    const asStatus = await idsFor(bob);
    const asRoot = await callAs(svc, root, 'GET', `/peer/v1/approvals?user=${bob.sub}`);
    expect(asRoot.status, asRoot.text).toBe(200);
    expect(asRoot.body.approvals.map((a: { id: string }) => a.id)).toEqual(asStatus);
    const asTeamAdmin = await callAs(svc, blueAdmin, 'GET', `/peer/v1/approvals?user=${bob.sub}`);
    expect(asTeamAdmin.status, asTeamAdmin.text).toBe(200);
    const teamIds = asTeamAdmin.body.approvals.map((a: { id: string }) => a.id);
    expect(teamIds).toEqual(asStatus.filter((id) => id !== runs.red && id !== runs.org));
    expect(teamIds).toContain(runs.blue);
    expect(asTeamAdmin.body.approvals.every((a: { team_id: string | null }) => a.team_id === 'blue')).toBe(true);

    for (const who of [ana, vic, realmApproverCaller]) {
      const refused = await callAs(svc, who, 'GET', `/peer/v1/approvals?user=${bob.sub}`);
      expect([who.email, refused.status, refused.body.code]).toEqual([who.email, 403, 'forbidden']);
    }
    expect((await peerGet(`?user=${bob.sub}`, await statusToken('svc:cases:read'))).status).toBe(403);
  });

  it('answers 400 in the peer shape unless user is the only parameter, once, a lowercase UUID', async () => {
    for (const query of [
      '',
      '?user=',
      `?user=${alice.sub}&team=blue`,
      `?user=${alice.sub}&user=${alice.sub}`,
      `?user=${alice.sub.toUpperCase()}`,
      '?user=alice',
      `?who=${alice.sub}`,
    ]) {
      const bad = await peerGet(query);
      expect([query, bad.status, bad.body.code, typeof bad.body.detail, bad.body.params]).toEqual([
        query,
        400,
        'peer_bad_request',
        'string',
        expect.any(Object),
      ]);
    }
  });

  it('answers 503 upstream_unavailable when identity is slow, fails, answers garbage or refuses the connection', async () => {
    for (const [mode, reason] of [
      ['slow', 'timeout'],
      ['error', 'http_status'],
      ['malformed', 'bad_response'],
      ['refused', 'network_error'],
    ] as const) {
      await identity.setMode(mode);
      try {
        const started = Date.now();
        const failed = await peerGet(`?user=${alice.sub}`);
        expect([mode, failed.status, failed.body.code, failed.body.params]).toEqual([mode, 503, 'upstream_unavailable', { upstream: 'identity', reason }]);
        // Bounded by SVC_IDENTITY_TIMEOUT_MS: no retries while identity stays slow.
        expect(Date.now() - started).toBeLessThan(identity.slowMs);
      } finally {
        await identity.setMode('normal');
      }
    }
    expect(await idsFor(alice)).toContain(runs.blue);
  });

  it('sorts by expires_at then run id and lists at most 100, saying when it cut the list', async () => {
    const more = [];
    for (let batch = 0; batch < 10; batch++) more.push(...(await Promise.all(Array.from({ length: 10 }, () => queue(ana, cases.blue, 'approver-gate')))));
    await expect
      .poll(async () => (await callAs(svc, root, 'GET', `/runs?status=waiting_approval&case_id=${cases.blue}&limit=200`)).body.items.length, {
        timeout: 60_000,
        interval: 200,
      })
      .toBe(more.length + 5);
    const listing = await listFor(alice);
    expect(listing.truncated).toBe(true);
    expect(listing.approvals).toHaveLength(100);
    const order = (a: { expires_at: string; id: string }, b: { expires_at: string; id: string }) =>
      Date.parse(a.expires_at) - Date.parse(b.expires_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    expect(listing.approvals).toEqual([...listing.approvals].sort(order));
    expect(listing.approvals.slice(0, 2).map((a: { id: string }) => a.id)).toEqual([runs.short, runs.mid]);
    // Every gate alice may decide, in order: the first 100 are shown.
    const all = [runs.blue, ...more].sort();
    expect(listing.approvals.slice(2).map((a: { id: string }) => a.id)).toEqual(all.slice(0, 98));
    expect((await listFor(bob)).truncated).toBe(true);
  }, 120_000);

  it('leaves out a gate whose deadline the service clock passed, before any worker expired it', async () => {
    expect(await idsFor(alice)).toContain(runs.short);
    clock.advance(61 * 60_000);
    const listing = await listFor(alice);
    expect(listing.observed_at).toBe(clock.now().toISOString());
    expect(listing.approvals.map((a: { id: string }) => a.id)).not.toContain(runs.short);
    expect(listing.approvals[0].id).toBe(runs.mid);
    expect((await callAs(svc, root, 'GET', `/runs/${runs.short}`)).body.status).toBe('waiting_approval');
  });
});
