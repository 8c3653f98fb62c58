import type { Kysely } from 'kysely';
import { DomainError, notFound } from '../../domain/shared/errors.ts';
import { findAlert, type AlertRow } from '../../projections/alerts/alerts.queries.ts';
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
 * Alert lookups for routes (SPEC.md "Authentication": team and private-case visibility
 * apply to alerts). `visible` answers the alert's row; an alert outside the caller's
 * teams, or held by a case the caller cannot see, is 404 `alert_not_found` exactly like
 * an absent one, so no route reveals or moves what a private case holds. `actOn` also
 * needs `manage_cases` in the alert's team and in the holding case's team (a move
 * changes that case too), else 403 `forbidden`. A route passes the row's `case_id` on to
 * the command, which refuses the move when the alert left that case meanwhile.
 */
export function alertAccess(db: Kysely<Database>, matrix: PermissionMatrix) {
  const held = async (principal: Principal, id: string): Promise<{ alert: AlertRow; holder: CaseRow | null }> => {
    const scope = caseScopeOf(principal, matrix);
    const alert = await findAlert(db, id, scope);
    const holder = alert?.case_id ? await findVisibleCase(db, alert.case_id, scope) : null;
    if (!alert || holder === undefined) throw notFound('alert_not_found', 'alert not found', { alert_id: id });
    return { alert, holder };
  };
  const forbidden = (whose: string, team: string | null) =>
    new DomainError('forbidden', 403, `permission manage_cases required in the ${whose} team`, { permission: 'manage_cases', team });
  return {
    /** The alert and the case holding it (null when none), both visible to `principal`. */
    held,
    visible: async (principal: Principal, id: string): Promise<AlertRow> => (await held(principal, id)).alert,
    actOn: async (principal: Principal, id: string): Promise<AlertRow> => {
      const { alert, holder } = await held(principal, id);
      if (!hasPermission(principal, 'manage_cases', matrix, alert.team)) throw forbidden("alert's", alert.team);
      if (holder && !hasPermission(principal, 'manage_cases', matrix, holder.team)) throw forbidden("holding case's", holder.team);
      return alert;
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
