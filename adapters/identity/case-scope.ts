/**
 * The case scope of a person (projections/cases/case-scope.ts) from its grants
 * (CONTRACTS.md section 2): any grant that reads gives its team; an `admin`
 * permission in a team makes the team's private cases visible; a realm admin sees all.
 * Used for callers (their principal) and for mentioned users (their stored grants).
 */
import type { CaseScope } from '../../projections/cases/case-scope.ts';
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
