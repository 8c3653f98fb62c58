/**
 * The case scope of a person (projections/cases/case-scope.ts) from its grants
 * (CONTRACTS.md section 2): any grant that reads gives its team; an `admin`
 * permission in a team makes the team's private cases visible; a realm admin sees all.
 * Used for callers (their principal) and for mentioned users (their stored grants).
 */
import { canSeeCase, type CaseScope, type ScopedCase } from '../../projections/cases/case-scope.ts';
import type { PermissionMatrix } from './permissions.ts';
import type { Grant } from './principal.ts';

export function caseScopeOf(person: { userId: string | null; grants: readonly Grant[] }, matrix: PermissionMatrix): CaseScope {
  const reading = person.grants.filter((g) => matrix[g.role]?.includes('read'));
  const admin = person.grants.filter((g) => matrix[g.role]?.includes('admin'));
  return {
    all: admin.some((g) => g.team === null),
    userId: person.userId,
    realm: reading.some((g) => g.team === null),
    teams: [...new Set(reading.flatMap((g) => (g.team === null ? [] : [g.team])))],
    adminTeams: [...new Set(admin.flatMap((g) => (g.team === null ? [] : [g.team])))],
  };
}

/**
 * Whether `user` (its id and the grants of its last token, as stored) can see `theCase`:
 * the one rule for whom a mention may notify, whom a case or a task may be given to, and
 * whom a task comment notifies (issue 46).
 */
export function userCanSeeCase(user: { id: string; grants: readonly Grant[] }, theCase: ScopedCase, matrix: PermissionMatrix): boolean {
  return canSeeCase(caseScopeOf({ userId: user.id, grants: user.grants }, matrix), theCase);
}
