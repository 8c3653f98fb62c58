/**
 * The suite shell's peer endpoints on the real service, on every engine (SPEC.md "Peer
 * endpoints" nav, home, notifications, search; "Authentication"; "Limits";
 * docs/suite-contracts.md "Suite shell peer endpoints"): identity's status token only,
 * `no-store`, 400 `peer_bad_request` for bad input, every answer as /openapi.json declares.
 *
 * The service runs a custom permission matrix (analyst holds manage_runbooks but approver
 * does not; admin lacks manage_connections), which the nav and home read, a `merged` case
 * status, and a clock the test moves.
 */
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../adapters/db/connect.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { createProjector } from '../../projections/projector.ts';
import { milestonesProjection } from '../../projections/peer/milestones.projection.ts';
import { migrateToLatest } from '../../runtime/migrate.ts';
import { migrationProvider } from '../../runtime/schema-migrations.ts';
import { manualClock } from '../support/clock.ts';
import {
  assertionAs,
  callAs,
  expectDeclared,
  runWhen,
  startInProcessService,
  testPerson,
  type InProcessService,
  type TestPerson,
} from '../support/in-process-service.ts';
import { createServerDatabase, engines } from '../support/engines.ts';
import { e2eEngines } from '../support/service-process.ts';

const matrix = {
  viewer: ['read'],
  analyst: ['read', 'manage_cases', 'run_runbooks', 'manage_runbooks'],
  approver: ['read', 'manage_cases', 'run_runbooks', 'approve_runbooks'],
  admin: ['read', 'manage_cases', 'run_runbooks', 'approve_runbooks', 'manage_runbooks', 'admin'],
};

const runbooks = {
  'triage.yml': `
id: phishing-triage
name: Phishing triage
version: 1
trigger: { type: manual }
steps:
  - id: note
    action: case.update
    with: { comment: triaged }
`,
  'contain.yml': `
id: contain-host
name: Contain host
version: 1
trigger: { type: manual }
steps:
  - id: contain
    approval: { roles: [approver], message: Contain the host? }
    action: case.update
    with: { comment: contained }
`,
};

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const approver = testPerson('approver@example.com', [{ team: null, role: 'approver' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const bob = testPerson('bob@example.com', [{ team: 'blue', role: 'admin' }]);
const mia = testPerson('mia@example.com', [{ team: 'blue', role: 'viewer' }]);
const olga = testPerson('olga@example.com', [{ team: 'blue', role: 'analyst' }]);
const eve = testPerson('eve@example.com', [{ team: 'red', role: 'analyst' }]);
const gone = testPerson('gone@example.com', [{ team: 'blue', role: 'analyst' }]);
const UNKNOWN = '00000000-0000-4000-8000-00000000dead';

type Answer = { status: number; body: any; text: string; cache: string | null };

describe.each(e2eEngines)('suite shell peer endpoints on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  const ids = new Map<TestPerson, string>();
  /** The home answer before the first case was opened. */
  let firstHome: any;

  const call = (who: TestPerson, method: string, path: string, body?: unknown) => callAs(svc, who, method, path, body);
  const statusToken = () => svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:status:read' });
  /** A peer request with `token` (identity's status token unless given); the answer is held to /openapi.json. */
  const peer = async (method: string, path: string, body?: unknown, token?: string, rawBody?: string): Promise<Answer> => {
    const res = await svc.request(path, {
      method,
      headers: {
        authorization: `Bearer ${token ?? (await statusToken())}`,
        ...(body === undefined && rawBody === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(rawBody !== undefined ? { body: rawBody } : body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    await expectDeclared(svc, method, path, res, text);
    return { status: res.status, body: text === '' ? null : JSON.parse(text), text, cache: res.headers.get('cache-control') };
  };
  const ok = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await peer(method, path, body);
    expect(res.status, res.text).toBe(200);
    expect(res.cache).toBe('no-store');
    return res.body;
  };
  const badRequest = async (method: string, path: string, body?: unknown, rawBody?: string) => {
    const res = await peer(method, path, body, undefined, rawBody);
    expect(res.status, `${method} ${path} ${rawBody ?? JSON.stringify(body)}: ${res.text}`).toBe(400);
    expect(res.body.code).toBe('peer_bad_request');
  };
  /** Opens a case as `who` a second after the previous one (the clock stands still otherwise). */
  const openCase = async (who: TestPerson, body: { title: string; team: string | null; private?: boolean }) => {
    clock.advance(1000);
    const res = await call(who, 'POST', '/cases', { severity: 'high', ...body });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; key: string };
  };
  const assign = async (caseId: string, owner: TestPerson) => {
    const res = await call(root, 'POST', `/cases/${caseId}/assign`, { owner_id: ids.get(owner) });
    expect(res.status, res.text).toBe(200);
  };
  const setStatus = async (caseId: string, status: string) => {
    const res = await call(root, 'POST', `/cases/${caseId}/status`, { status });
    expect(res.status, res.text).toBe(200);
  };
  const search = async (who: { sub: string }, q: string, extra = ''): Promise<any[]> =>
    (await ok('GET', `/peer/v1/search?user=${who.sub}&q=${encodeURIComponent(q)}${extra}`)).items;
  const titles = (items: any[]) => items.map((i) => i.title);

  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      {
        runbooks,
        clock: clock.now,
        extraEnv: {
          SVC_PERMISSIONS: JSON.stringify(matrix),
          SVC_CASE_STATUSES: 'new,in_progress,merged,resolved,closed',
          SVC_CASE_CLOSED_STATUSES: 'merged,resolved,closed',
          SVC_CASE_MERGED_STATUSES: 'merged',
        },
      },
    );
    firstHome = await ok('GET', '/peer/v1/home');
    // Every person is seen once, so the service knows its user row and grants.
    for (const p of [root, approver, ana, bob, mia, olga, eve, gone]) {
      const me = await call(p, 'GET', '/auth/me');
      expect(me.status, me.text).toBe(200);
      ids.set(p, me.body.id);
    }
  }, 120_000);
  afterAll(async () => svc?.close());

  describe('who may call', () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/peer/v1/nav'],
      ['GET', '/peer/v1/home'],
      ['GET', `/peer/v1/notifications?user=${UNKNOWN}`],
      ['POST', '/peer/v1/notifications/read', { user: UNKNOWN, all: true }],
      ['GET', `/peer/v1/search?user=${UNKNOWN}&q=phish`],
    ];

    it.each(routes)('%s %s refuses a realm admin’s own assertion and a service token without the status scope', async (method, path, body) => {
      const human = await peer(method, path, body, await assertionAs(svc, root, method, path));
      expect(human.status, human.text).toBe(403);
      const wrongScope = await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:account:write' });
      expect((await peer(method, path, body, wrongScope)).status).toBe(403);
      const exchange = await svc.identity.sign({
        token_use: 'exchange',
        sub: 'workload',
        scope: 'svc:peer:status:read',
        act: { sub: root.sub, email: root.email, grants: root.grants },
      });
      expect((await peer(method, path, body, exchange)).status).toBe(403);
      expect((await peer(method, path, body)).status).toBe(200);
    });

    it('declares every route in /openapi.json', async () => {
      const doc = (await (await svc.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
      for (const [method, path] of routes) expect(doc.paths[path.split('?')[0] as string], path).toHaveProperty(method.toLowerCase());
    });
  });

  describe('GET /peer/v1/nav', () => {
    it('lists the console pages, with no requiredRole where every role of the configured matrix reads', async () => {
      const nav = await ok('GET', '/peer/v1/nav');
      expect(nav.product).toBe('svc');
      expect(nav.sections.map((e: any) => [e.id, e.href, e.requiredRole])).toEqual([
        ['cases', '/svc/cases', undefined],
        ['alerts', '/svc/alerts', undefined],
        ['runbooks', '/svc/runbooks', undefined],
        ['runs', '/svc/runs', undefined],
        ['effects', '/svc/effects', undefined],
        ['approvals', '/svc/approvals', undefined],
        ['metrics', '/svc/metrics', undefined],
      ]);
      // This install's matrix grants manage_connections to no role, so the connections and webhook sources pages are left out, and
      // manage_runbooks to analyst and admin but not approver, so packs need admin (tests/unit/peer/nav.test.ts
      // shows both under the default matrix, and holds each href to the console's routes).
      expect(nav.settings.map((e: any) => [e.id, e.href, e.requiredRole])).toEqual([
        ['packs', '/svc/settings/packs', 'admin'],
        ['policy', '/svc/settings/policy', 'admin'],
        ['audit', '/svc/settings/audit', 'admin'],
        ['retention', '/svc/settings/retention', 'admin'],
        ['ai', '/svc/settings/ai', 'admin'],
      ]);
      expect(nav.actions).toEqual([{ id: 'search', title: 'Search cases and runbooks', method: 'GET', endpoint: '/peer/v1/search' }]);
    });

    it('links only pages that exist as routes', async () => {
      const nav = await ok('GET', '/peer/v1/nav');
      const doc = (await (await svc.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
      // A page reads the API route of its name (/svc/runs reads GET /runs, /svc/settings/connections GET /connections),
      // but for the packs page, which reads the registry, the policy page, which reads the response policy, the AI page, and the dashboard.
      const own: Record<string, string> = {
        '/svc/settings/packs': '/integration-packs/registry',
        '/svc/settings/policy': '/response-policy',
        '/svc/settings/ai': '/settings/ai',
        '/svc/metrics': '/metrics/soc',
      };
      const reads = (href: string) => own[href] ?? href.replace(/^\/svc(\/settings)?/, '');
      for (const entry of [...nav.sections, ...nav.settings]) expect(doc.paths[reads(entry.href)], entry.href).toHaveProperty('get');
      expect(doc.paths[nav.actions[0].endpoint]).toHaveProperty('get');
    });

    it('refuses a query parameter it does not take', async () => {
      await badRequest('GET', '/peer/v1/nav?user=x');
    });
  });

  describe('notifications', () => {
    let caseId = '';
    const commentIds: string[] = [];
    let goneNotification = '';

    beforeAll(async () => {
      caseId = (await openCase(root, { title: 'Mentions', team: 'blue' })).id;
      const mention = async (who: TestPerson, i: number) => {
        const res = await call(root, 'POST', `/cases/${caseId}/comments`, { body: `ping ${i} @${who.email}` });
        expect(res.status, res.text).toBe(201);
        return res.body.id as string;
      };
      for (let i = 0; i < 51; i++) commentIds.push(await mention(ana, i));
      await mention(gone, 0);
      goneNotification = (
        await svc.service.opened.db
          .selectFrom('notifications')
          .select('id')
          .where('user_id', '=', ids.get(gone) as string)
          .executeTakeFirstOrThrow()
      ).id;
      await svc.service.opened.db
        .updateTable('users')
        .set({ active: false })
        .where('id', '=', ids.get(gone) as string)
        .execute();
    });

    it('answers at most 50, newest first, in the in-app notification shape, with the unread count', async () => {
      const doc = await ok('GET', `/peer/v1/notifications?user=${ana.sub}`);
      expect(doc.product).toBe('svc');
      expect(doc.unread).toBe(51);
      expect(doc.items).toHaveLength(50);
      expect(doc.items.map((n: any) => n.context.comment_id)).toEqual(commentIds.slice(1).reverse());
      expect(doc.items[0]).toEqual({
        id: expect.any(String),
        kind: 'mention',
        severity: 'info',
        title: expect.stringMatching(/^root@example\.com mentioned you in SVC-\d+$/),
        context: expect.objectContaining({ case_id: caseId }),
        at: expect.any(String),
        read: false,
        href: `/svc/cases/${caseId}`,
      });
    });

    it('matches `user` only against the identity subject; unknown and disabled subjects get an empty answer', async () => {
      const empty = { product: 'svc', unread: 0, items: [] };
      expect(await ok('GET', `/peer/v1/notifications?user=${UNKNOWN}`)).toEqual(empty);
      expect(await ok('GET', `/peer/v1/notifications?user=${encodeURIComponent(ana.email)}`)).toEqual(empty);
      expect(await ok('GET', `/peer/v1/notifications?user=${ids.get(ana)}`)).toEqual(empty);
      expect(await ok('GET', `/peer/v1/notifications?user=${gone.sub}`)).toEqual(empty);
      expect(await ok('POST', '/peer/v1/notifications/read', { user: gone.sub, all: true })).toEqual({ product: 'svc', unread: 0 });
    });

    it('refuses a mark-read not sent as application/json, even when its text is JSON, and marks nothing', async () => {
      const text = JSON.stringify({ user: ana.sub, all: true });
      for (const [type, body] of [
        ['text/plain', text],
        ['application/x-www-form-urlencoded', text],
        [null, new Blob([text])],
      ] as const) {
        const res = await svc.request('/peer/v1/notifications/read', {
          method: 'POST',
          headers: { authorization: `Bearer ${await statusToken()}`, ...(type === null ? {} : { 'content-type': type }) },
          body,
        });
        const answer = await res.text();
        await expectDeclared(svc, 'POST', '/peer/v1/notifications/read', res, answer);
        expect(res.status, `${type}: ${answer}`).toBe(400);
        expect(JSON.parse(answer)).toEqual({ detail: 'body must be application/json', code: 'peer_bad_request', params: {} });
      }
      expect((await ok('GET', `/peer/v1/notifications?user=${ana.sub}`)).unread).toBe(51);
    });

    it('marks only that user’s ids read, ignoring anyone else’s, then all', async () => {
      const items = (await ok('GET', `/peer/v1/notifications?user=${ana.sub}`)).items;
      const marked = await ok('POST', '/peer/v1/notifications/read', { user: ana.sub, ids: [items[0].id, items[1].id, goneNotification, UNKNOWN] });
      expect(marked).toEqual({ product: 'svc', unread: 49 });
      const after = (await ok('GET', `/peer/v1/notifications?user=${ana.sub}`)).items;
      expect(after.slice(0, 3).map((n: any) => n.read)).toEqual([true, true, false]);
      const goneRow = await svc.service.opened.db.selectFrom('notifications').select('read_at').where('id', '=', goneNotification).executeTakeFirstOrThrow();
      expect(goneRow.read_at).toBeNull();
      expect(await ok('POST', '/peer/v1/notifications/read', { user: ana.sub, all: true })).toEqual({ product: 'svc', unread: 0 });
    });

    it('answers 400 for any other body or query', async () => {
      const read = '/peer/v1/notifications/read';
      await badRequest('POST', read, undefined, 'not json');
      await badRequest('POST', read, { user: ana.sub });
      await badRequest('POST', read, { user: ana.sub, all: true, extra: 1 });
      await badRequest('POST', read, { user: ana.sub, ids: [commentIds[0]], all: true });
      await badRequest('POST', read, { user: ana.sub, ids: [] });
      await badRequest('POST', read, { user: ana.sub, ids: Array.from({ length: 101 }, () => UNKNOWN) });
      await badRequest('POST', read, { user: ana.sub, ids: ['not-an-id'] });
      await badRequest('POST', read, { user: ana.sub, all: false });
      await badRequest('POST', read, { ids: [UNKNOWN] });
      await badRequest('POST', read, [{ user: ana.sub, all: true }]);
      expect((await peer('POST', read, { user: ana.sub, ids: Array.from({ length: 100 }, () => UNKNOWN) })).status).toBe(200);
      await badRequest('GET', '/peer/v1/notifications');
      await badRequest('GET', `/peer/v1/notifications?user=${ana.sub}&user=${bob.sub}`);
      await badRequest('GET', `/peer/v1/notifications?user=${ana.sub}&limit=5`);
    });
  });

  describe('GET /peer/v1/search', () => {
    const cases: Record<string, { id: string; key: string }> = {};

    beforeAll(async () => {
      const open = async (name: string, body: { title: string; team: string | null; private?: boolean }) => {
        cases[name] = await openCase(root, body);
      };
      await open('alpha', { title: 'Phishing report alpha', team: 'blue' });
      await open('beta', { title: 'Phishing report beta', team: 'blue' });
      await open('contains', { title: 'Suspicious login after phishing', team: 'blue' });
      await open('private', { title: 'Phishing private', team: 'blue', private: true });
      await open('red', { title: 'Phishing red team', team: 'red' });
      await open('orgWide', { title: 'Phishing org-wide', team: null });
      await open('merged', { title: 'Phishing merged', team: 'blue' });
      await open('folded', { title: 'Phishing folded', team: 'blue' });
      await open('percent', { title: 'Discount 100% off', team: 'blue' });
      await open('noPercent', { title: 'Discount 1000 off', team: 'blue' });
      await assign(cases.private?.id as string, mia);
      await setStatus(cases.merged?.id as string, 'merged');
      const folded = await call(root, 'POST', `/cases/${cases.alpha?.id}/merge`, { source_ids: [cases.folded?.id], reason: 'same report' });
      expect(folded.status, folded.text).toBe(200);
      expect((await call(root, 'GET', `/cases/${cases.folded?.id}`)).body.status).toBe('merged');
      for (let i = 0; i < 12; i++) await open(`bulk${i}`, { title: `Bulk beacon ${i}`, team: 'blue' });
      // Opened late, so its number has two digits (a query is at least 2 characters).
      await open('malware', { title: 'Malware on host', team: 'blue' });
      await open('followUp', { title: `${cases.malware?.key} follow-up`, team: 'blue' });
    });

    it('ranks exact, then prefix (runbooks first, newest cases first), then containing; merged cases skipped', async () => {
      const items = await search(root, 'phishing');
      expect(titles(items)).toEqual([
        'Phishing triage',
        'Phishing org-wide',
        'Phishing red team',
        'Phishing private',
        'Phishing report beta',
        'Phishing report alpha',
        'Suspicious login after phishing',
      ]);
      expect(items[0]).toEqual({
        id: 'phishing-triage',
        kind: 'runbook',
        title: 'Phishing triage',
        context: 'Runbook phishing-triage',
        href: '/svc/runbooks/phishing-triage',
      });
      expect(items[1]).toEqual({
        id: cases.orgWide?.id,
        kind: 'case',
        title: 'Phishing org-wide',
        context: `${cases.orgWide?.key} · new · org-wide`,
        href: `/svc/cases/${cases.orgWide?.id}`,
        severity: 'high',
      });
      expect(titles(await search(root, 'merged'))).toEqual([]);
      expect(titles(await search(root, 'folded'))).toEqual([]);
    });

    it('puts an exact case number, key or id and an exact slug first', async () => {
      const malware = cases.malware as { id: string; key: string };
      expect(titles(await search(root, malware.key))).toEqual(['Malware on host', `${malware.key} follow-up`]);
      expect(titles(await search(root, malware.key.toLowerCase()))).toEqual(['Malware on host', `${malware.key} follow-up`]);
      const number = malware.key.replace(/^SVC-/, '');
      expect(number.length).toBeGreaterThan(1);
      expect(titles(await search(root, number))[0]).toBe('Malware on host');
      expect(titles(await search(root, malware.id))).toEqual(['Malware on host']);
      expect(titles(await search(root, 'contain-host'))).toEqual(['Contain host']);
    });

    it('scopes cases like the case list: private cases only for members and team admins, other teams hidden', async () => {
      expect(titles(await search(ana, 'phishing'))).toEqual([
        'Phishing triage',
        'Phishing org-wide',
        'Phishing report beta',
        'Phishing report alpha',
        'Suspicious login after phishing',
      ]);
      expect(titles(await search(mia, 'phishing private'))).toEqual(['Phishing private']);
      expect(titles(await search(bob, 'phishing private'))).toEqual(['Phishing private']);
      expect(titles(await search(ana, 'phishing private'))).toEqual([]);
      expect(titles(await search(eve, 'phishing'))).toEqual(['Phishing triage', 'Phishing org-wide', 'Phishing red team']);
    });

    it('narrows to `team` when the user reads there, and ignores it otherwise', async () => {
      expect(titles(await search(ana, 'phishing', '&team=blue'))).toEqual([
        'Phishing triage',
        'Phishing report beta',
        'Phishing report alpha',
        'Suspicious login after phishing',
      ]);
      expect(titles(await search(ana, 'phishing', '&team=red'))).toEqual(titles(await search(ana, 'phishing')));
      expect(titles(await search(root, 'phishing', '&team=red'))).toEqual(['Phishing triage', 'Phishing red team']);
    });

    it('matches % and _ literally', async () => {
      expect(titles(await search(root, '0% o'))).toEqual(['Discount 100% off']);
      expect(titles(await search(root, 'discount 10_0'))).toEqual([]);
    });

    it('answers at most 10 items', async () => {
      const items = await search(root, 'bulk beacon');
      expect(titles(items)).toEqual(Array.from({ length: 10 }, (_, i) => `Bulk beacon ${11 - i}`));
    });

    it('finds nothing for an unknown or disabled user', async () => {
      expect(await search({ sub: UNKNOWN }, 'phishing')).toEqual([]);
      expect(await search(gone, 'phishing')).toEqual([]);
    });

    it('answers 400 for a query outside 2 to 100 characters after trimming, or a parameter it does not take', async () => {
      expect((await search(root, ` ${'x'.repeat(100)} `)).length).toBe(0);
      await badRequest('GET', `/peer/v1/search?user=${root.sub}&q=%20a%20`);
      await badRequest('GET', `/peer/v1/search?user=${root.sub}&q=${'x'.repeat(101)}`);
      await badRequest('GET', `/peer/v1/search?user=${root.sub}`);
      await badRequest('GET', `/peer/v1/search?q=phishing`);
      await badRequest('GET', `/peer/v1/search?user=${root.sub}&q=phishing&limit=3`);
    });
  });

  describe('GET /peer/v1/home', () => {
    const strip = async () => {
      const doc = await ok('GET', '/peer/v1/home');
      return Object.fromEntries(doc.strip.map((s: any) => [String(s.team), Object.fromEntries(s.stages.map((x: any) => [x.stage, x.count]))]));
    };

    it('showed both setup steps not done before the first case', () => {
      expect(firstHome).toEqual({
        product: 'svc',
        items: [],
        strip: [
          {
            team: null,
            stages: [
              { stage: 'cases', title: 'Open cases', count: 0 },
              { stage: 'actions', title: 'Runbook runs, last 24 hours', count: 0 },
            ],
          },
        ],
        setup: [
          { id: 'open_first_case', title: 'Open the first case', done: false, done_at: null, href: '/svc/cases' },
          expect.objectContaining({ id: 'finish_approved_response', done: false, done_at: null, href: '/svc/runbooks' }),
        ],
      });
    });

    it('lists open owned cases, at most 20 per owner, with assignee, team and Open action; a private one of its member', async () => {
      const owned: string[] = [];
      for (let i = 0; i < 22; i++) {
        const c = await openCase(root, { title: `Owned ${i}`, team: 'blue' });
        await assign(c.id, olga);
        owned.push(c.id);
      }
      await setStatus(owned[21] as string, 'closed');
      const doc = await ok('GET', '/peer/v1/home');
      const olgas = doc.items.filter((i: any) => i.assignee === olga.email);
      expect(olgas).toHaveLength(20);
      expect(olgas.map((i: any) => i.id)).toEqual(owned.slice(1, 21).reverse());
      expect(olgas[0]).toEqual({
        id: owned[20],
        kind: 'case',
        key: expect.stringMatching(/^SVC-\d+$/),
        title: 'Owned 20',
        severity: 'high',
        status: 'new',
        assignee: olga.email,
        team: 'blue',
        updated_at: expect.any(String),
        actions: [{ id: 'open', title: 'Open', href: `/svc/cases/${owned[20]}` }],
      });
      expect(doc.items.filter((i: any) => i.assignee === mia.email).map((i: any) => i.title)).toEqual(['Phishing private']);
    });

    it('counts open cases that are not private and runs of the last 24 hours per team, by the service clock', async () => {
      const before = await strip();
      await openCase(root, { title: 'Strip blue', team: 'blue' });
      await openCase(root, { title: 'Strip private', team: 'blue', private: true });
      const green = await openCase(root, { title: 'Strip green', team: 'green' });
      const closing = await openCase(root, { title: 'Strip closing', team: null });
      await setStatus(closing.id, 'resolved');
      const run = await call(root, 'POST', `/cases/${green.id}/runbooks/phishing-triage/run`, {});
      expect(run.status, run.text).toBe(202);
      await runWhen(svc, root, run.body.id, /^succeeded$/);
      const after = await strip();
      expect(after.blue?.cases).toBe((before.blue?.cases ?? 0) + 1);
      expect(after.null?.cases).toBe(before.null?.cases);
      expect(after.green).toEqual({ cases: 1, actions: 1 });
      clock.advance(24 * 3600 * 1000 + 1000);
      expect((await strip()).green).toEqual({ cases: 1, actions: 0 });
    });

    it('marks setup steps done from milestone stamps set once, and is empty once both are', async () => {
      const db = svc.service.opened.db;
      const stamps = () => db.selectFrom('org_milestones').select(['milestone', 'reached_at', 'ref_id']).orderBy('milestone').execute();
      const first = await db.selectFrom('cases').select(['id', 'created_at']).orderBy('number').executeTakeFirstOrThrow();
      let doc = await ok('GET', '/peer/v1/home');
      expect(doc.setup.map((s: any) => [s.id, s.done, s.done_at])).toEqual([
        ['open_first_case', true, first.created_at.toISOString()],
        ['finish_approved_response', false, null],
      ]);

      const kase = await openCase(root, { title: 'Contain me', team: 'blue' });
      const queued = await call(root, 'POST', `/cases/${kase.id}/runbooks/contain-host/run`, {});
      expect(queued.status, queued.text).toBe(202);
      await runWhen(svc, root, queued.body.id, /^waiting_approval$/);
      const approved = await call(approver, 'POST', `/runs/${queued.body.id}/approve`, { step_id: 'contain' });
      expect(approved.status, approved.text).toBe(200);
      await runWhen(svc, root, queued.body.id, /^succeeded$/);
      await expect.poll(async () => (await ok('GET', '/peer/v1/home')).setup, { timeout: 10_000 }).toEqual([]);

      const stamped = await stamps();
      expect(stamped.map((s) => [s.milestone, s.ref_id])).toEqual([
        ['first_approved_response', queued.body.id],
        ['first_case_opened', first.id],
      ]);
      // Re-applying every event over the stamps, or onto none (a rebuild), gives the same stamps.
      const replay = async (name: string) => createProjector(db, new PostgresEventStore(db), [milestonesProjection], { checkpointName: name }).catchUp();
      await replay('milestones-replay');
      expect(await stamps()).toEqual(stamped);
      await db.deleteFrom('org_milestones').execute();
      await replay('milestones-rebuild');
      expect(await stamps()).toEqual(stamped);
      doc = await ok('GET', '/peer/v1/home');
      expect(doc.setup).toEqual([]);
    });
  });
});

describe.each(engines)('migration 0032 on an install with history, on $name', ({ name }) => {
  it('stamps the milestones the read models already show: the first case, the first approved live run that succeeded', async () => {
    const opened = await openDatabase(name === 'pglite' ? { dataDir: null } : { databaseUrl: await createServerDatabase() });
    try {
      const { db } = opened;
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0031-chain-row-text');
      expect(error).toBeUndefined();
      const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      await sql`
        insert into cases (id, key, number, title, severity, status, created_at, updated_at, version, private)
        values (${uuid(1)}, 'SVC-1', 1, 'second', 'low', 'new', '2026-01-02T00:00:00Z', now(), 1, false),
               (${uuid(2)}, 'SVC-2', 2, 'first', 'low', 'closed', '2026-01-01T00:00:00Z', now(), 1, false)`.execute(db);
      // Earlier finishes that do not count: no approved gate, a dry run, a gate denied.
      await sql`
        insert into runs (id, runbook_id, runbook_version, status, trigger_type, dry_run, queued_at, finished_at)
        values (${uuid(11)}, 'rb', 1, 'succeeded', 'manual', false, now(), '2026-02-01T00:00:00Z'),
               (${uuid(12)}, 'rb', 1, 'succeeded', 'manual', true, now(), '2026-02-02T00:00:00Z'),
               (${uuid(13)}, 'rb', 1, 'denied', 'manual', false, now(), '2026-02-03T00:00:00Z'),
               (${uuid(14)}, 'rb', 1, 'succeeded', 'manual', false, now(), '2026-02-05T00:00:00Z'),
               (${uuid(15)}, 'rb', 1, 'succeeded', 'manual', false, now(), '2026-02-04T00:00:00Z')`.execute(db);
      await sql`
        insert into run_gates (run_id, step_id, opened_at, reason, roles, deadline, status)
        values (${uuid(12)}, 's', now(), 'approval', '[]', now(), 'approved'),
               (${uuid(13)}, 's', now(), 'approval', '[]', now(), 'denied'),
               (${uuid(14)}, 's', now(), 'approval', '[]', now(), 'approved'),
               (${uuid(15)}, 's', now(), 'approval', '[]', now(), 'approved')`.execute(db);
      await migrateToLatest(db);
      const stamps = await db.selectFrom('org_milestones').select(['milestone', 'ref_id', 'reached_at', 'event_position']).orderBy('milestone').execute();
      expect(stamps).toEqual([
        { milestone: 'first_approved_response', ref_id: uuid(15), reached_at: new Date('2026-02-04T00:00:00Z'), event_position: 0 },
        { milestone: 'first_case_opened', ref_id: uuid(2), reached_at: new Date('2026-01-01T00:00:00Z'), event_position: 0 },
      ]);
    } finally {
      await opened.close();
    }
  });
});
