import type { Kysely } from 'kysely';
import { DomainError, notFound } from '../../domain/shared/errors.ts';
import { findVisibleCase, type CaseRow } from '../../projections/cases/cases.queries.ts';
import type { Database } from '../../projections/database.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { hasPermission, type PermissionMatrix } from '../identity/permissions.ts';
import type { Permission, Principal } from '../identity/principal.ts';
import { requirePermission } from './auth.ts';

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

/**
 * What every case route module starts with: the case lookups, and the middleware for
 * reading cases (`read`, scope `svc:cases:read`) and changing them (`manage_cases`,
 * scope `svc:cases:write`).
 */
export function caseRouteGuards(db: Kysely<Database>, matrix: PermissionMatrix) {
  return {
    access: caseAccess(db, matrix),
    read: requirePermission('read', 'svc:cases:read', matrix),
    manage: requirePermission('manage_cases', 'svc:cases:write', matrix),
  };
}
