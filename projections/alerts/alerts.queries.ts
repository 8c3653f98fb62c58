/**
 * Alert inbox queries (SPEC.md "Alerts"): filters `status`, `severity`, `source`; newest first;
 * scoped by team like cases.
 */
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';

export type AlertFilters = {
  id?: string | undefined;
  status?: string | undefined;
  severity?: string | undefined;
  source?: string | undefined;
  limit: number;
  offset: number;
};

/** The SQL form of the alert rule below, over the `alerts` table. */
export function visibleAlerts(scope: CaseScope) {
  return (eb: ExpressionBuilder<Database, 'alerts'>): Expression<SqlBool> => {
    if (scope.all || scope.realm) return eb.lit(true);
    return scope.teams.length === 0 ? eb('alerts.team', 'is', null) : eb.or([eb('alerts.team', 'is', null), eb('alerts.team', 'in', scope.teams)]);
  };
}

/**
 * Alerts `scope` may see: org-wide alerts (no team), every alert for a realm grant,
 * and the alerts of the caller's teams (the case-scope rule for cases that are not private).
 */
export async function listAlerts(db: Kysely<Database>, f: AlertFilters, scope: CaseScope) {
  let q = db.selectFrom('alerts').where(visibleAlerts(scope));
  if (f.id) q = q.where('id', '=', f.id);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.severity) q = q.where('severity', '=', f.severity);
  if (f.source) q = q.where('source', '=', f.source);
  return q.selectAll().orderBy('received_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute();
}

/** The alerts a case holds, newest first (the case's visibility was checked by the caller). */
export async function caseAlerts(db: Kysely<Database>, caseId: string) {
  return db.selectFrom('alerts').selectAll().where('case_id', '=', caseId).orderBy('received_at', 'desc').orderBy('id').limit(500).execute();
}
