/**
 * Case scoping, PUT /cases/<id> and the acknowledgement clock on the real service, in
 * process, on every engine (SPEC.md "Case", "Case acknowledgement", "Cases (mutation
 * needs manage_cases)", "Other case moves"; CONTRACTS.md section 2).
 *
 * Visibility follows projections/cases/case-scope.ts (`canSeeCase`):
 * - a realm admin sees every case;
 * - a member (creator or owner) sees its case, private or not, whatever its team;
 * - a case that is not private is seen by everyone when org-wide (team null), by every
 *   realm grant, and by any grant (any role that reads) in its team;
 * - a private case is seen by its members and by admins of its team only (an org-wide
 *   private case by its members and realm admins only).
 * An invisible case answers 404 `case_not_found` exactly like an absent one; acting on a
 * visible case needs the permission in the case's team or a realm grant, else 403
 * `forbidden` (adapters/http/case-access.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../adapters/shared/clock.ts';
import { manualClock, type ManualClock } from '../support/clock.ts';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestAnswer, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { manualNoteRunbook } from '../support/runbooks.ts';

const manualRunbook = manualNoteRunbook('scope-note', 'scoped note');

// Team names are free text from identity grants.
const people = {
  realmAdmin: testPerson('realm-admin@example.com', [{ team: null, role: 'admin' }]),
  /** Team-A analyst who creates the team-A cases, including the private one. */
  analystX: testPerson('x@example.com', [{ team: 'team-a', role: 'analyst' }]),
  /** Another team-A analyst, no member of X's private case. */
  analystY: testPerson('y@example.com', [{ team: 'team-a', role: 'analyst' }]),
  analystB: testPerson('b@example.com', [{ team: 'team-b', role: 'analyst' }]),
  adminA: testPerson('admin-a@example.com', [{ team: 'team-a', role: 'admin' }]),
  realmViewer: testPerson('viewer@example.com', [{ team: null, role: 'viewer' }]),
  /** Realm analyst who opens the org-wide cases, including the org-wide private one. */
  realmAnalystZ: testPerson('z@example.com', [{ team: null, role: 'analyst' }]),
  /** Reads team A, manages team B: sees team-A cases without being able to act on them. */
  viewerAAnalystB: testPerson('mixed@example.com', [
    { team: 'team-a', role: 'viewer' },
    { team: 'team-b', role: 'analyst' },
  ]),
} satisfies Record<string, TestPerson>;
type Who = keyof typeof people;
const everyone = Object.keys(people) as Who[];

const caseNames = ['orgPublic', 'aPublic', 'aPrivate', 'bPublic', 'bPrivate', 'orgPrivate'] as const;
type CaseName = (typeof caseNames)[number];

/** Who sees what, derived from canSeeCase (see the file comment). */
const visibility: Record<Who, CaseName[]> = {
  realmAdmin: [...caseNames],
  // Team-A analyst and creator of aPrivate: org-wide public, team-A public, its own private case.
  analystX: ['orgPublic', 'aPublic', 'aPrivate'],
  // Team-A analyst, not a member of aPrivate: no private case at all.
  analystY: ['orgPublic', 'aPublic'],
  // Team-B analyst: never a team-A case, even the public one (team cases need a grant in the team).
  analystB: ['orgPublic', 'bPublic', 'bPrivate'],
  // Team-A admin: team-A private cases too, but not the org-wide private one (realm admins only).
  adminA: ['orgPublic', 'aPublic', 'aPrivate'],
  // Realm viewer: every case that is not private.
  realmViewer: ['orgPublic', 'aPublic', 'bPublic'],
  // Realm analyst: every case that is not private, plus the private one it opened.
  realmAnalystZ: ['orgPublic', 'aPublic', 'bPublic', 'orgPrivate'],
  viewerAAnalystB: ['orgPublic', 'aPublic', 'bPublic'],
};

const searchWord = 'Quokka';

/** A 404 `case_not_found` body with the case id taken out, after checking it names `id`. */
function caseNotFound(res: TestAnswer, id: string) {
  expect(res.status, res.text).toBe(404);
  expect(res.body.code).toBe('case_not_found');
  expect(res.body.params.case_id).toBe(id);
  return { ...res.body, params: { ...res.body.params, case_id: '<id>' } };
}

function expectForbidden(res: TestAnswer, params?: Record<string, unknown>): void {
  expect(res.status, res.text).toBe(403);
  expect(Object.keys(res.body).sort()).toEqual(['code', 'detail', 'params']);
  expect(res.body.code).toBe('forbidden');
  if (params) expect(res.body.params).toEqual(params);
}

/** A 422 in the framework shape, naming `loc` when given. */
function expectValidation(res: TestAnswer, loc?: (string | number)[]): void {
  expect(res.status, res.text).toBe(422);
  expect(Object.keys(res.body)).toEqual(['detail']);
  expect(Array.isArray(res.body.detail)).toBe(true);
  if (loc) expect(res.body.detail).toContainEqual(expect.objectContaining({ loc }));
}

describe.each(e2eEngines)('case scoping and PUT /cases on $name', ({ server }) => {
  let svc: InProcessService;
  const userIds = new Map<Who, string>();
  const caseIds = {} as Record<CaseName, string>;
  const runIds = {} as Partial<Record<CaseName, string>>;

  const call = (who: Who, method: string, path: string, body?: unknown) => callAs(svc, people[who], method, path, body);
  const open = async (who: Who, body: Record<string, unknown>) => {
    const res = await call(who, 'POST', '/cases', body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const timeline = async (id: string, who: Who = 'realmAdmin') => {
    const res = await call(who, 'GET', `/cases/${id}/timeline`);
    expect(res.status, res.text).toBe(200);
    return res.body.items as { kind: string; payload: Record<string, unknown> }[];
  };
  const nameOf = (id: string) => caseNames.find((n) => caseIds[n] === id) ?? id;
  const adminTotal = async () => (await call('realmAdmin', 'GET', '/cases?limit=200&include_total=true')).body.total as number;

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks: { 'scope-note.yml': manualRunbook } });
    // A user row exists from the first accepted assertion; assignment needs one.
    for (const who of everyone) {
      const me = await call(who, 'GET', '/auth/me');
      expect(me.status, me.text).toBe(200);
      userIds.set(who, me.body.id);
    }
    const opened = {
      orgPublic: await open('realmAnalystZ', { title: `${searchWord} org-wide public`, severity: 'low' }),
      aPublic: await open('analystX', { title: `${searchWord} team-a public`, severity: 'medium' }),
      aPrivate: await open('analystX', { title: `${searchWord} team-a private`, severity: 'high', private: true }),
      bPublic: await open('analystB', { title: `${searchWord} team-b public`, severity: 'low' }),
      bPrivate: await open('analystB', { title: `${searchWord} team-b private`, severity: 'low', private: true }),
      orgPrivate: await open('realmAnalystZ', { title: `${searchWord} org-wide private`, severity: 'low', team: null, private: true }),
    };
    for (const n of caseNames) caseIds[n] = opened[n].id;
    // Without `team`, a single-team analyst's case lands in its team; a realm analyst's is org-wide.
    expect(opened.orgPublic).toMatchObject({ team: null, private: false });
    expect(opened.aPublic).toMatchObject({ team: 'team-a', private: false });
    expect(opened.aPrivate).toMatchObject({ team: 'team-a', private: true });
    expect(opened.bPrivate).toMatchObject({ team: 'team-b', private: true });
    expect(opened.orgPrivate).toMatchObject({ team: null, private: true });
    // One dry run on a team-A public and on the team-A private case, by their creator.
    for (const n of ['aPublic', 'aPrivate'] as const) {
      const run = await call('analystX', 'POST', `/cases/${caseIds[n]}/runbooks/scope-note/run`, { dry_run: true });
      expect(run.status, run.text).toBe(202);
      runIds[n] = run.body.id;
    }
  });
  afterAll(async () => svc?.close());

  // Runs first: later tests open more cases, and the totals here are exact.
  it.each(everyone)('lists to %s exactly the cases it may see, with the same total, also when searching', async (who) => {
    const expected = visibility[who].map((n) => caseIds[n]).sort();
    const listed = await call(who, 'GET', '/cases?limit=200&include_total=true');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items.map((c: { id: string }) => nameOf(c.id)).sort()).toEqual([...visibility[who]].sort());
    expect(listed.body.items.map((c: { id: string }) => c.id).sort()).toEqual(expected);
    expect(listed.body.total).toBe(expected.length);

    const searched = await call(who, 'GET', `/cases?search=${searchWord.toLowerCase()}&limit=200&include_total=true`);
    expect(searched.status, searched.text).toBe(200);
    expect(searched.body.items.map((c: { id: string }) => c.id).sort()).toEqual(expected);
    expect(searched.body.total).toBe(expected.length);
    // A search for a private title does not leak the case to those who cannot see it.
    const privateSearch = await call(who, 'GET', '/cases?search=team-a%20private&include_total=true');
    expect(privateSearch.body.total).toBe(visibility[who].includes('aPrivate') ? 1 : 0);
  });

  it('pages with has_more and counts total only when include_total=true', async () => {
    const first = await call('realmAdmin', 'GET', `/cases?search=${searchWord}&limit=4`);
    expect(first.body).toMatchObject({ has_more: true, limit: 4, offset: 0 });
    expect(first.body.items).toHaveLength(4);
    expect(first.body).not.toHaveProperty('total');
    const last = await call('realmAdmin', 'GET', `/cases?search=${searchWord}&limit=4&offset=4&include_total=true`);
    expect(last.body).toMatchObject({ has_more: false, total: 6, total_relation: 'eq' });
    expect(last.body.items).toHaveLength(2);
    expectValidation(await call('realmAdmin', 'GET', '/cases?include_total=yes'), ['query', 'include_total']);
  });

  it.each(everyone)('finds one case by its exact key for %s, never a longer key, and only when it may see it', async (who) => {
    for (const n of ['aPublic', 'aPrivate'] as const) {
      const key = (await call('realmAdmin', 'GET', `/cases/${caseIds[n]}`)).body.key as string;
      const found = await call(who, 'GET', `/cases?key=${key.toLowerCase()}`);
      expect(found.status, found.text).toBe(200);
      expect(found.body.items.map((c: { id: string }) => c.id)).toEqual(visibility[who].includes(n) ? [caseIds[n]] : []);
      expect((await call(who, 'GET', `/cases?key=${key.slice(0, -1)}`)).body.items.map((c: { key: string }) => c.key)).not.toContain(key);
    }
  });

  it.each(everyone)('answers %s on detail, timeline and runs of visible cases, and 404 exactly like an absent case otherwise', async (who) => {
    const absent = randomUUID();
    const absentBodies = {
      detail: caseNotFound(await call(who, 'GET', `/cases/${absent}`), absent),
      timeline: caseNotFound(await call(who, 'GET', `/cases/${absent}/timeline`), absent),
      runs: caseNotFound(await call(who, 'GET', `/cases/${absent}/runs`), absent),
    };
    for (const n of caseNames) {
      const id = caseIds[n];
      const detail = await call(who, 'GET', `/cases/${id}`);
      const tl = await call(who, 'GET', `/cases/${id}/timeline`);
      const runs = await call(who, 'GET', `/cases/${id}/runs`);
      if (visibility[who].includes(n)) {
        expect(detail.status, `${who} ${n}: ${detail.text}`).toBe(200);
        expect(detail.body.id).toBe(id);
        expect(tl.status, tl.text).toBe(200);
        expect(tl.body.items[0].kind).toBe('opened');
        expect(runs.status, runs.text).toBe(200);
        expect(runs.body.items.map((r: { id: string }) => r.id)).toEqual(runIds[n] ? [runIds[n]] : []);
      } else {
        expect(caseNotFound(detail, id), `${who} ${n}`).toEqual(absentBodies.detail);
        expect(caseNotFound(tl, id), `${who} ${n}`).toEqual(absentBodies.timeline);
        expect(caseNotFound(runs, id), `${who} ${n}`).toEqual(absentBodies.runs);
      }
    }
  });

  it('scopes run detail and the run listing, also by runbook and in its total, like the run’s case', async () => {
    for (const who of everyone) {
      const listed = (await call(who, 'GET', '/runs?limit=200')).body.items.map((r: { id: string }) => r.id).sort();
      const expected = (['aPublic', 'aPrivate'] as const)
        .filter((n) => visibility[who].includes(n))
        .map((n) => runIds[n])
        .sort();
      expect(listed, who).toEqual(expected);
      const byRunbook = (await call(who, 'GET', '/runs?runbook_id=scope-note&limit=200')).body.items.map((r: { id: string }) => r.id).sort();
      expect(byRunbook, `${who} runbook_id`).toEqual(expected);
      expect((await call(who, 'GET', '/runs?runbook_id=another-runbook')).body.items, `${who} other runbook`).toEqual([]);
      const counted = (await call(who, 'GET', '/runs?runbook_id=scope-note&limit=1&include_total=true')).body;
      expect(counted, `${who} total`).toMatchObject({ total: expected.length, total_relation: 'eq', has_more: expected.length > 1, limit: 1, offset: 0 });
      for (const n of ['aPublic', 'aPrivate'] as const) {
        const run = await call(who, 'GET', `/runs/${runIds[n]}`);
        if (visibility[who].includes(n)) expect(run.status, run.text).toBe(200);
        else {
          expect(run.status, `${who} ${n}`).toBe(404);
          expect(run.body.code).toBe('run_not_found');
        }
      }
    }
  });

  it('makes a private case visible to the user it is assigned to, and hides it again on unassignment', async () => {
    const id = caseIds.aPrivate;
    expect((await call('analystY', 'GET', `/cases/${id}`)).status).toBe(404);
    const assigned = await call('analystX', 'POST', `/cases/${id}/assign`, { owner_id: userIds.get('analystY') });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.body).toMatchObject({ owner_id: userIds.get('analystY'), owner_email: people.analystY.email });

    const detail = await call('analystY', 'GET', `/cases/${id}`);
    expect(detail.status, detail.text).toBe(200);
    expect((await call('analystY', 'GET', `/cases/${id}/timeline`)).status).toBe(200);
    expect((await call('analystY', 'GET', `/cases/${id}/runs`)).body.items.map((r: { id: string }) => r.id)).toEqual([runIds.aPrivate]);
    const listed = await call('analystY', 'GET', `/cases?search=team-a%20private`);
    expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([id]);
    // As a member, the owner may act on it.
    expect((await call('analystY', 'POST', `/cases/${id}/comments`, { body: 'on it' })).status).toBe(201);
    // Still hidden from team B and from the realm viewer.
    expect((await call('analystB', 'GET', `/cases/${id}`)).status).toBe(404);
    expect((await call('realmViewer', 'GET', `/cases/${id}`)).status).toBe(404);

    expect((await call('analystX', 'POST', `/cases/${id}/assign`, { owner_id: null })).status).toBe(200);
    expect((await call('analystY', 'GET', `/cases/${id}`)).status).toBe(404);
  });

  describe('mutations across teams', () => {
    it('gives a team-B analyst 404 on a team-A public case: it cannot see it, so it cannot learn it exists', async () => {
      // The brief expected 403 here; by canSeeCase a team case needs a grant in its team, so it is invisible.
      const id = caseIds.aPublic;
      const before = await timeline(id);
      for (const [method, path, body] of [
        ['POST', `/cases/${id}/comments`, { body: 'from team b' }],
        ['PUT', `/cases/${id}`, { title: 'taken over' }],
        ['POST', `/cases/${id}/status`, { status: 'in_progress' }],
        ['POST', `/cases/${id}/acknowledge`, undefined],
        ['POST', `/cases/${id}/assign`, { owner_id: null }],
        ['POST', `/cases/${id}/runbooks/scope-note/run`, { dry_run: true }],
      ] as const) {
        const res = await call('analystB', method, path, body);
        expect(res.body.code, `${method} ${path}`).toBe('case_not_found');
        expect(res.status).toBe(404);
      }
      expect(await timeline(id)).toEqual(before);
    });

    it('refuses 403 to a caller who sees a team case but holds manage_cases in another team only', async () => {
      const id = caseIds.aPublic;
      const before = await timeline(id);
      expect((await call('viewerAAnalystB', 'GET', `/cases/${id}`)).status).toBe(200);
      const params = { permission: 'manage_cases', team: 'team-a' };
      expectForbidden(await call('viewerAAnalystB', 'POST', `/cases/${id}/comments`, { body: 'hello' }), params);
      expectForbidden(await call('viewerAAnalystB', 'PUT', `/cases/${id}`, { title: 'changed' }), params);
      expectForbidden(await call('viewerAAnalystB', 'POST', `/cases/${id}/status`, { status: 'in_progress' }), params);
      expectForbidden(await call('viewerAAnalystB', 'POST', `/cases/${id}/acknowledge`), params);
      expectForbidden(await call('viewerAAnalystB', 'POST', `/cases/${id}/assign`, { owner_id: null }), params);
      expectForbidden(await call('viewerAAnalystB', 'POST', `/cases/${id}/runbooks/scope-note/run`, { dry_run: true }), {
        permission: 'run_runbooks',
        team: 'team-a',
      });
      expect(await timeline(id)).toEqual(before);
      expect((await call('realmAdmin', 'GET', `/cases/${id}/runs`)).body.items).toHaveLength(1);
    });

    it('refuses 403 to a team-only analyst or admin acting on an org-wide case, and to a realm viewer on any case', async () => {
      const id = caseIds.orgPublic;
      const before = await timeline(id);
      // Visible (org-wide, not private), but manage_cases in team-a does not reach org-wide cases.
      expect((await call('adminA', 'GET', `/cases/${id}`)).status).toBe(200);
      expectForbidden(await call('adminA', 'POST', `/cases/${id}/comments`, { body: 'x' }), { permission: 'manage_cases', team: null });
      expectForbidden(await call('analystX', 'PUT', `/cases/${id}`, { severity: 'high' }), { permission: 'manage_cases', team: null });
      // A realm viewer has no manage_cases anywhere: refused before the case is looked at.
      for (const [method, path, body] of [
        ['POST', `/cases/${id}/comments`, { body: 'viewer' }],
        ['PUT', `/cases/${id}`, { title: 'viewer edit' }],
        ['POST', `/cases/${id}/status`, { status: 'in_progress' }],
        ['POST', `/cases/${id}/acknowledge`, undefined],
      ] as const) {
        expectForbidden(await call('realmViewer', method, path, body), { permission: 'manage_cases' });
      }
      expectForbidden(await call('realmViewer', 'POST', `/cases/${id}/runbooks/scope-note/run`, {}), { permission: 'run_runbooks' });
      expectForbidden(await call('realmViewer', 'POST', '/cases', { title: 'viewer case', severity: 'low' }), { permission: 'manage_cases' });
      expect(await timeline(id)).toEqual(before);
      // A realm analyst acts on every team's visible cases.
      expect((await call('realmAnalystZ', 'POST', `/cases/${caseIds.aPublic}/comments`, { body: 'realm note' })).status).toBe(201);
    });

    it('opens cases only in a team the caller manages; without team, in its only managed team', async () => {
      const total = await adminTotal();
      expectForbidden(await call('analystX', 'POST', '/cases', { title: 'into b', severity: 'low', team: 'team-b' }), {
        permission: 'manage_cases',
        team: 'team-b',
      });
      expectForbidden(await call('analystX', 'POST', '/cases', { title: 'org-wide', severity: 'low', team: null }), { permission: 'manage_cases', team: null });
      expectForbidden(await call('adminA', 'POST', '/cases', { title: 'into b', severity: 'low', team: 'team-b' }), {
        permission: 'manage_cases',
        team: 'team-b',
      });
      expect(await adminTotal()).toBe(total);

      // Viewer in team-a, analyst in team-b: manages team-b only, so its case lands there.
      expect(await open('viewerAAnalystB', { title: 'mixed default', severity: 'low' })).toMatchObject({ team: 'team-b' });
      expectForbidden(await call('viewerAAnalystB', 'POST', '/cases', { title: 'into a', severity: 'low', team: 'team-a' }), {
        permission: 'manage_cases',
        team: 'team-a',
      });
      expect(await open('analystY', { title: 'y default', severity: 'low' })).toMatchObject({ team: 'team-a', private: false });
      expect(await open('realmAdmin', { title: 'admin into a', severity: 'low', team: 'team-a' })).toMatchObject({ team: 'team-a' });
      expect(await open('realmAdmin', { title: 'admin default', severity: 'low' })).toMatchObject({ team: null });
      expectValidation(await call('analystX', 'POST', '/cases', { title: 't', severity: 'low', team: '' }), ['body', 'team']);
      expectValidation(await call('analystX', 'POST', '/cases', { title: 't', severity: 'low', private: 'yes' }), ['body', 'private']);
    });
  });

  describe('PUT /cases/<id>', () => {
    let id = '';
    const put = (body: unknown, who: Who = 'analystX', caseId = id) => call(who, 'PUT', `/cases/${caseId}`, body);
    const techniqueEvents = async () => (await timeline(id)).filter((e) => e.kind === 'attack_techniques_updated');

    beforeAll(async () => {
      id = (await open('analystX', { title: 'Credential phishing', severity: 'medium', tags: ['mail'], description: 'first' })).id;
    });

    it('normalizes technique ids: trims, upper-cases, de-duplicates, and records one event with added/removed', async () => {
      const res = await put({ attack_techniques: [' t1059.001 ', 'T1059.001', 't1566', 'T1566 ', 'T1078'] });
      expect(res.status, res.text).toBe(200);
      expect(res.body.attack_techniques).toEqual(['T1059.001', 'T1566', 'T1078']);
      const detail = await call('analystY', 'GET', `/cases/${id}`);
      expect(detail.body.attack_techniques).toEqual(['T1059.001', 'T1566', 'T1078']);
      const events = await techniqueEvents();
      expect(events).toHaveLength(1);
      expect(events[0]?.payload).toMatchObject({ added: ['T1059.001', 'T1566', 'T1078'], removed: [] });
    });

    it('records nothing when the same set is sent again, also in another order or case (decide.ts compares sets)', async () => {
      const before = await timeline(id);
      for (const list of [
        ['T1059.001', 'T1566', 'T1078'],
        ['T1078', 't1566', 'T1059.001'],
        ['t1078', 'T1078', 'T1566', 'T1059.001'],
      ]) {
        const res = await put({ attack_techniques: list });
        expect(res.status, res.text).toBe(200);
        // No event, so the stored order is the first one, not the order just sent.
        expect(res.body.attack_techniques).toEqual(['T1059.001', 'T1566', 'T1078']);
      }
      expect(await timeline(id)).toEqual(before);
    });

    it('records exactly what was added and removed on a real change, and removes all with []', async () => {
      const res = await put({ attack_techniques: ['T1566', 'T1003.001'] });
      expect(res.body.attack_techniques).toEqual(['T1566', 'T1003.001']);
      let events = await techniqueEvents();
      expect(events).toHaveLength(2);
      expect(events[1]?.payload).toMatchObject({ added: ['T1003.001'], removed: ['T1059.001', 'T1078'] });

      expect((await put({ attack_techniques: [] })).body.attack_techniques).toEqual([]);
      events = await techniqueEvents();
      expect(events).toHaveLength(3);
      expect(events[2]?.payload).toMatchObject({ added: [], removed: ['T1566', 'T1003.001'] });
      expect((await put({ attack_techniques: [] })).status).toBe(200);
      expect(await techniqueEvents()).toHaveLength(3);
    });

    it('refuses a technique id of the wrong shape with 422 at its index, and changes nothing', async () => {
      await put({ attack_techniques: ['T1110'] });
      const before = await timeline(id);
      for (const [list, index] of [
        [['T1059', 'T12a'], 1],
        [['1059'], 0],
        [['T1566', 'T1078', 'T1059.'], 2],
        [['T1059.001.1'], 0],
        [['TA0001'], 0],
        [[''], 0],
        [['T1059', 1059], 1],
      ] as const) {
        expectValidation(await put({ attack_techniques: list }), ['body', 'attack_techniques', index]);
      }
      expectValidation(await put({ attack_techniques: 'T1059' }), ['body', 'attack_techniques']);
      expectValidation(await put({ attack_techniques: null }), ['body', 'attack_techniques']);
      expect(await timeline(id)).toEqual(before);
      expect((await call('analystX', 'GET', `/cases/${id}`)).body.attack_techniques).toEqual(['T1110']);
    });

    it('accepts at most 50 distinct ids, counted after de-duplication', async () => {
      const fifty = Array.from({ length: 50 }, (_, i) => `T${1000 + i}`);
      const before = await timeline(id);
      expectValidation(await put({ attack_techniques: [...fifty, 'T1999'] }), ['body', 'attack_techniques']);
      expect(await timeline(id)).toEqual(before);
      const withDuplicates = await put({ attack_techniques: [...fifty, ...fifty.map((t) => t.toLowerCase())] });
      expect(withDuplicates.status, withDuplicates.text).toBe(200);
      expect(withDuplicates.body.attack_techniques).toEqual(fifty);
    });

    it('refuses a body with no known field, and bad values with 422', async () => {
      const before = await timeline(id);
      expectValidation(await put({}));
      expectValidation(await put({ colour: 'red' }));
      expectValidation(await put({ status: 'closed' }));
      expectValidation(await put({ team: 'team-b' }));
      expectValidation(await put({ title: '' }), ['body', 'title']);
      expectValidation(await put({ title: null }), ['body', 'title']);
      expectValidation(await put({ severity: 'urgent' }), ['body', 'severity']);
      expectValidation(await put({ tags: ['ok', ''] }), ['body', 'tags', 1]);
      expectValidation(await put({ private: 'true' }), ['body', 'private']);
      expectValidation(await call('analystX', 'PUT', '/cases/not-a-uuid', { title: 'x' }), ['path', 'id']);
      expect(await timeline(id)).toEqual(before);
      const absent = randomUUID();
      caseNotFound(await put({ title: 'x' }, 'analystX', absent), absent);
    });

    it('changes title, description, severity and tags, visible in detail, list and timeline', async () => {
      const res = await put({ title: '  Credential phishing wave  ', description: null, severity: 'critical', tags: ['mail', 'phish', 'mail'] });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ title: 'Credential phishing wave', description: null, severity: 'critical', tags: ['mail', 'phish'] });
      const detail = await call('adminA', 'GET', `/cases/${id}`);
      expect(detail.body).toMatchObject({ title: 'Credential phishing wave', description: null, severity: 'critical', tags: ['mail', 'phish'] });
      const listed = await call('analystY', 'GET', '/cases?severity=critical&search=wave');
      expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([id]);
      const updated = (await timeline(id)).filter((e) => e.kind === 'updated');
      expect(updated.at(-1)?.payload).toMatchObject({
        changes: { title: 'Credential phishing wave', description: null, severity: 'critical', tags: ['mail', 'phish'] },
      });

      // Sending the values it already has records nothing.
      const before = await timeline(id);
      expect((await put({ title: 'Credential phishing wave', severity: 'critical' })).status).toBe(200);
      expect(await timeline(id)).toEqual(before);

      // Fields and techniques together: one event each.
      const both = await put({ description: 'second', attack_techniques: ['T1110', 'T1566'] });
      expect(both.body).toMatchObject({ description: 'second', attack_techniques: ['T1110', 'T1566'] });
      const after = (await timeline(id)).slice(before.length);
      expect(after.map((e) => e.kind).sort()).toEqual(['attack_techniques_updated', 'updated']);
    });

    it('hides the case from non-members with private: true, and shows it again with private: false', async () => {
      expect((await call('analystY', 'GET', `/cases/${id}`)).status).toBe(200);
      const res = await put({ private: true });
      expect(res.status, res.text).toBe(200);
      expect(res.body.private).toBe(true);
      for (const who of ['analystY', 'analystB', 'realmViewer', 'viewerAAnalystB', 'realmAnalystZ'] as const) {
        caseNotFound(await call(who, 'GET', `/cases/${id}`), id);
        expect((await call(who, 'GET', '/cases?search=wave&include_total=true')).body.total, who).toBe(0);
      }
      for (const who of ['analystX', 'adminA', 'realmAdmin'] as const) expect((await call(who, 'GET', `/cases/${id}`)).status, who).toBe(200);
      // A non-member of the now private case cannot act on it either (it does not exist for it).
      caseNotFound(await put({ private: false }, 'analystY'), id);

      // A team admin may open it again.
      expect((await put({ private: false }, 'adminA')).body.private).toBe(false);
      expect((await call('analystY', 'GET', `/cases/${id}`)).status).toBe(200);
      expect((await call('analystB', 'GET', `/cases/${id}`)).status).toBe(404);
    });

    it('answers a non-member who makes a team case private with the case it can no longer see', async () => {
      // Y is a team-A analyst but no member of this case (X created it, nobody owns it).
      // The command is accepted (Y holds manage_cases in team-a); the answer is read back
      // in Y's scope, where the case is now invisible: the service answers 404 after a
      // successful write. Asserted as the code behaves; see the report.
      const other = (await open('analystX', { title: 'Hidden by a colleague', severity: 'low' })).id;
      const res = await put({ private: true }, 'analystY', other);
      expect(res.status, res.text).toBe(404);
      expect(res.body.code).toBe('case_not_found');
      expect((await call('analystX', 'GET', `/cases/${other}`)).body.private).toBe(true);
    });
  });
});

/**
 * The service runs on a manual clock, started at the real time (the service's events are
 * stamped by it) and moved only by the tests: time-dependent answers are checked without
 * sleeping, at exact instants.
 */
describe.each(e2eEngines)('ack_sla through HTTP on $name (SVC_ACK_SLA_MINUTES=high:1)', ({ server }) => {
  let svc: InProcessService;
  let clock: ManualClock;
  const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);
  const call = (method: string, path: string, body?: unknown) => callAs(svc, ana, method, path, body);
  const open = async (severity: string) => {
    const res = await call('POST', '/cases', { title: `ack ${severity}`, severity });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const ms = (iso: string) => new Date(iso).getTime();

  beforeAll(async () => {
    clock = manualClock(systemClock());
    svc = await startInProcessService({ server }, { extraEnv: { SVC_ACK_SLA_MINUTES: 'high:1' }, clock: clock.now });
  });
  afterAll(async () => svc?.close());

  it('shows a new high case pending, due 60 s after it opened', async () => {
    const c = await open('high');
    expect(c.acknowledged_at).toBeNull();
    expect(c.sla_breached).toBe(false);
    expect(c.ack_sla).toMatchObject({ state: 'pending', acknowledged_at: null, acknowledged_by: null, clock_stopped_at: null, breached: false });
    expect(c.ack_sla.due_at).toBe(new Date(ms(c.created_at) + 60_000).toISOString());
    expect(c.ack_sla.elapsed_seconds).toBeGreaterThanOrEqual(0);
    expect(c.ack_sla.elapsed_seconds).toBeLessThan(60);
    // The list shows the same clock.
    const listed = (await call('GET', '/cases?limit=200')).body.items.find((i: { id: string }) => i.id === c.id);
    expect(listed.ack_sla).toMatchObject({ state: 'pending', due_at: c.ack_sla.due_at });
  });

  it('is met after acknowledgement, the clock stopped at the acknowledgement; a second acknowledge keeps the first stamp', async () => {
    const c = await open('high');
    const acked = await call('POST', `/cases/${c.id}/acknowledge`);
    expect(acked.status, acked.text).toBe(200);
    const b = acked.body;
    expect(b.acknowledged_at).not.toBeNull();
    expect(b.acknowledged_by).toBe(ana.email);
    expect(b.sla_breached).toBe(false);
    expect(b.ack_sla).toEqual({
      state: 'met',
      due_at: new Date(ms(c.created_at) + 60_000).toISOString(),
      acknowledged_at: b.acknowledged_at,
      acknowledged_by: ana.email,
      clock_stopped_at: b.acknowledged_at,
      elapsed_seconds: Math.floor((ms(b.acknowledged_at) - ms(c.created_at)) / 1000),
      breached: false,
    });
    const again = await call('POST', `/cases/${c.id}/acknowledge`);
    expect(again.status).toBe(200);
    expect(again.body.acknowledged_at).toBe(b.acknowledged_at);
    expect(again.body.ack_sla).toEqual(b.ack_sla);
    const kinds = (await call('GET', `/cases/${c.id}/timeline`)).body.items.map((e: { kind: string }) => e.kind);
    expect(kinds.filter((k: string) => k === 'acknowledged')).toHaveLength(1);
  });

  it('shows none and no due time for a severity without a target (the variable replaces the defaults)', async () => {
    for (const severity of ['low', 'critical']) {
      const c = await open(severity);
      expect(c.ack_sla).toMatchObject({ state: 'none', due_at: null, breached: false, clock_stopped_at: null });
      expect(c.sla_breached).toBe(false);
      const acked = await call('POST', `/cases/${c.id}/acknowledge`);
      expect(acked.body.ack_sla).toMatchObject({ state: 'none', due_at: null, clock_stopped_at: acked.body.acknowledged_at });
    }
  });

  it('turns from pending to breached when the service clock passes the due time, unacknowledged', async () => {
    const c = await open('high');
    expect(c.ack_sla).toMatchObject({ state: 'pending', elapsed_seconds: 0, breached: false });
    clock.advance(60_000);
    const atDue = (await call('GET', `/cases/${c.id}`)).body;
    expect(atDue.ack_sla).toMatchObject({ state: 'pending', due_at: c.ack_sla.due_at, elapsed_seconds: 60, breached: false });
    expect(atDue.sla_breached).toBe(false);
    clock.advance(1);
    const late = (await call('GET', `/cases/${c.id}`)).body;
    expect(late.ack_sla).toEqual({ ...c.ack_sla, state: 'breached', elapsed_seconds: 60, breached: true });
    expect(late.sla_breached).toBe(true);
  });

  it('is met with the clock stopped when the case is resolved before any acknowledgement', async () => {
    const c = await open('high');
    clock.advance(30_000);
    const resolvedAt = clock.now().toISOString();
    const resolved = await call('POST', `/cases/${c.id}/status`, { status: 'resolved', note: 'false positive' });
    expect(resolved.status, resolved.text).toBe(200);
    const sla = resolved.body.ack_sla;
    expect(sla).toEqual({
      state: 'met',
      due_at: c.ack_sla.due_at,
      acknowledged_at: null,
      acknowledged_by: null,
      clock_stopped_at: resolvedAt,
      elapsed_seconds: 30,
      breached: false,
    });
    expect(resolved.body.acknowledged_at).toBeNull();
    // Stopped: a read long past the due time reports the same clock.
    clock.advance(3_600_000);
    expect((await call('GET', `/cases/${c.id}`)).body.ack_sla).toEqual(sla);
  });

  it('refuses to acknowledge a closed case that never was acknowledged (422), its clock stopped at the closure', async () => {
    const c = await open('high');
    const closed = await call('POST', `/cases/${c.id}/status`, { status: 'closed' });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body.ack_sla).toMatchObject({ state: 'met', acknowledged_at: null });
    expect(closed.body.ack_sla.clock_stopped_at).not.toBeNull();
    const ack = await call('POST', `/cases/${c.id}/acknowledge`);
    expect(ack.status, ack.text).toBe(422);
  });
});
