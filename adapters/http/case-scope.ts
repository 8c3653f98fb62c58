/**
 * The case scope of a caller (projections/cases/case-scope.ts) from its grants
 * (CONTRACTS.md section 2): any grant that reads gives its team; an `admin`
 * permission in a team makes the team's private cases visible; a realm admin sees all.
 */
import type { Kysely } from 'kysely';
import { DomainError, notFound } from '../../domain/shared/errors.ts';
import type { CaseScope } from '../../projections/cases/case-scope.ts';
import { findVisibleCase, type CaseRow } from '../../projections/cases/cases.queries.ts';
import type { Database } from '../../projections/database.ts';
import { hasPermission, type PermissionMatrix } from '../identity/permissions.ts';
import type { Permission, Principal } from '../identity/principal.ts';

export function caseScopeOf(principal: Principal, matrix: PermissionMatrix): CaseScope {
  const reading = principal.grants.filter((g) => matrix[g.role].includes('read'));
  const admin = principal.grants.filter((g) => matrix[g.role].includes('admin'));
  return {
    all: admin.some((g) => g.team === null),
    userId: principal.userId,
    realm: reading.some((g) => g.team === null),
    teams: [...new Set(reading.flatMap((g) => (g.team === null ? [] : [g.team])))],
    adminTeams: [...new Set(admin.flatMap((g) => (g.team === null ? [] : [g.team])))],
  };
}

/**
 * Case lookups for routes: an invisible case is 404 `case_not_found` exactly like an
 * absent one; acting on a visible case needs `permission` in the case's own team
 * (or a realm grant), else 403 `forbidden`.
 */
export function caseAccess(db: Kysely<Database>, matrix: PermissionMatrix) {
  const visible = async (principal: Principal, id: string): Promise<CaseRow> => {
    const row = await findVisibleCase(db, id, caseScopeOf(principal, matrix));
    if (!row) throw notFound('case_not_found', 'case not found', { case_id: id });
    return row;
  };
  return {
    visible,
    actOn: async (principal: Principal, id: string, permission: Permission): Promise<CaseRow> => {
      const row = await visible(principal, id);
      if (!hasPermission(principal, permission, matrix, row.team)) {
        throw new DomainError('forbidden', 403, `permission ${permission} required in the case's team`, { permission, team: row.team });
      }
      return row;
    },
  };
}
