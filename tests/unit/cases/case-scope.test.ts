/**
 * Case visibility (SPEC.md "Case": `team`, `private`; projections/cases/case-scope.ts):
 * a realm admin sees every case; anyone sees its own cases (created or owned); a case
 * that is not private is seen by org-wide callers when org-wide, by realm grants, and by
 * grants in its team; a private case only by its members and admins of its team (a
 * private org-wide case: members and realm admins only). Scopes are built from grants
 * with caseScopeOf (CONTRACTS.md section 2, default role matrix).
 */
import { describe, expect, it } from 'vitest';
import { caseScopeOf } from '../../../adapters/identity/case-scope.ts';
import { defaultPermissionMatrix, parsePermissionMatrix } from '../../../adapters/identity/permissions.ts';
import type { Grant } from '../../../adapters/identity/principal.ts';
import { canSeeCase, type CaseScope, type ScopedCase } from '../../../projections/cases/case-scope.ts';

const ids = {
  realmAdmin: 'u-realm-admin',
  analystX: 'u-analyst-a-x',
  analystY: 'u-analyst-a-y',
  analystB: 'u-analyst-b',
  adminA: 'u-admin-a',
  realmViewer: 'u-realm-viewer',
  realmAnalystZ: 'u-realm-analyst-z',
  mixed: 'u-viewer-a-analyst-b',
} as const;
type Who = keyof typeof ids;

const grants: Record<Who, Grant[]> = {
  realmAdmin: [{ team: null, role: 'admin' }],
  analystX: [{ team: 'a', role: 'analyst' }],
  analystY: [{ team: 'a', role: 'analyst' }],
  analystB: [{ team: 'b', role: 'analyst' }],
  adminA: [{ team: 'a', role: 'admin' }],
  realmViewer: [{ team: null, role: 'viewer' }],
  realmAnalystZ: [{ team: null, role: 'analyst' }],
  mixed: [
    { team: 'a', role: 'viewer' },
    { team: 'b', role: 'analyst' },
  ],
};

const scopeOf = (who: Who) => caseScopeOf({ userId: ids[who], grants: grants[who] }, defaultPermissionMatrix);

/** The cases of the HTTP matrix (tests/integration/http-cases-scope.test.ts). */
const cases = {
  orgPublic: { team: null, private: false, owner_id: null, created_by_id: ids.realmAnalystZ },
  aPublic: { team: 'a', private: false, owner_id: null, created_by_id: ids.analystX },
  aPrivateByX: { team: 'a', private: true, owner_id: null, created_by_id: ids.analystX },
  bPublic: { team: 'b', private: false, owner_id: null, created_by_id: ids.analystB },
  bPrivateByB: { team: 'b', private: true, owner_id: null, created_by_id: ids.analystB },
  orgPrivateByZ: { team: null, private: true, owner_id: null, created_by_id: ids.realmAnalystZ },
} satisfies Record<string, ScopedCase>;
type CaseName = keyof typeof cases;
const allCases = Object.keys(cases) as CaseName[];

const visibleTo = (scope: CaseScope, set: Record<CaseName, ScopedCase> = cases) => allCases.filter((n) => canSeeCase(scope, set[n]));

describe('caseScopeOf', () => {
  it('derives the scope from grants under the default matrix', () => {
    expect(scopeOf('realmAdmin')).toEqual({ all: true, userId: ids.realmAdmin, realm: true, teams: [], adminTeams: [] });
    expect(scopeOf('analystX')).toEqual({ all: false, userId: ids.analystX, realm: false, teams: ['a'], adminTeams: [] });
    expect(scopeOf('adminA')).toEqual({ all: false, userId: ids.adminA, realm: false, teams: ['a'], adminTeams: ['a'] });
    expect(scopeOf('realmViewer')).toEqual({ all: false, userId: ids.realmViewer, realm: true, teams: [], adminTeams: [] });
    expect(scopeOf('mixed')).toEqual({ all: false, userId: ids.mixed, realm: false, teams: ['a', 'b'], adminTeams: [] });
  });

  it('follows a configured matrix: a role without read gives no team, a role without admin no private cases', () => {
    const matrix = parsePermissionMatrix(JSON.stringify({ viewer: [], admin: ['read', 'manage_cases'] }));
    expect(caseScopeOf({ userId: 'u', grants: [{ team: 'a', role: 'viewer' }] }, matrix)).toMatchObject({ teams: [], realm: false });
    expect(caseScopeOf({ userId: 'u', grants: [{ team: null, role: 'admin' }] }, matrix)).toMatchObject({ all: false, realm: true, adminTeams: [] });
  });
});

describe('canSeeCase over the matrix', () => {
  it.each<[Who, CaseName[]]>([
    ['realmAdmin', allCases],
    ['analystX', ['orgPublic', 'aPublic', 'aPrivateByX']],
    ['analystY', ['orgPublic', 'aPublic']],
    ['analystB', ['orgPublic', 'bPublic', 'bPrivateByB']],
    ['adminA', ['orgPublic', 'aPublic', 'aPrivateByX']],
    ['realmViewer', ['orgPublic', 'aPublic', 'bPublic']],
    ['realmAnalystZ', ['orgPublic', 'aPublic', 'bPublic', 'orgPrivateByZ']],
    ['mixed', ['orgPublic', 'aPublic', 'bPublic']],
  ])('%s sees %j', (who, expected) => {
    expect(visibleTo(scopeOf(who))).toEqual(expected);
  });

  it('makes a private case visible to its owner, and only to it among non-admins', () => {
    const owned = { ...cases, aPrivateByX: { ...cases.aPrivateByX, owner_id: ids.analystY } };
    expect(visibleTo(scopeOf('analystY'), owned)).toEqual(['orgPublic', 'aPublic', 'aPrivateByX']);
    expect(visibleTo(scopeOf('analystB'), owned)).not.toContain('aPrivateByX');
  });

  it('never opens a case of another team to its owner or creator: membership counts only where the team does (issue 46)', () => {
    const ownedByB = { ...cases, aPrivateByX: { ...cases.aPrivateByX, owner_id: ids.analystB } };
    expect(visibleTo(scopeOf('analystB'), ownedByB)).not.toContain('aPrivateByX');
    const scope = scopeOf('analystB');
    expect(canSeeCase(scope, { team: 'a', private: false, owner_id: ids.analystB, created_by_id: null })).toBe(false);
    expect(canSeeCase(scope, { team: 'a', private: false, owner_id: null, created_by_id: ids.analystB })).toBe(false);
    expect(canSeeCase(scope, { team: 'a', private: true, owner_id: ids.analystB, created_by_id: null })).toBe(false);
    expect(canSeeCase(scope, { team: null, private: true, owner_id: ids.analystB, created_by_id: null })).toBe(true);
  });

  it('never takes a null user id for a member of a case without creator or owner', () => {
    const machine: CaseScope = { all: false, userId: null, realm: false, teams: [], adminTeams: [] };
    expect(canSeeCase(machine, { team: 'a', private: true, owner_id: null, created_by_id: null })).toBe(false);
    expect(canSeeCase(machine, { team: null, private: true, owner_id: null, created_by_id: null })).toBe(false);
    // An org-wide case that is not private is visible to any caller.
    expect(canSeeCase(machine, { team: null, private: false, owner_id: null, created_by_id: null })).toBe(true);
    expect(canSeeCase(machine, { team: 'a', private: false, owner_id: null, created_by_id: null })).toBe(false);
  });

  it('does not open an org-wide private case to team admins', () => {
    expect(canSeeCase(scopeOf('adminA'), cases.orgPrivateByZ)).toBe(false);
    expect(canSeeCase(scopeOf('realmViewer'), cases.orgPrivateByZ)).toBe(false);
  });
});
