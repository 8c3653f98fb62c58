/**
 * Alert inbox queries (SPEC.md "Alerts"): filters `status`, `severity`, `source`; newest first;
 * scoped by team like cases, and the holding case shown only to who may see it.
 */
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { AlertsTable, Database } from '../database.ts';
import { cappedPage, type Page } from '../page.ts';

/** An `alerts` row as the queries below answer it. */
export type AlertRow = Selectable<AlertsTable>;

export type AlertFilters = {
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
export async function listAlerts(db: Kysely<Database>, f: AlertFilters, scope: CaseScope, totalCap: number | null = null): Promise<Page<AlertRow>> {
  let q = db.selectFrom('alerts').where(visibleAlerts(scope));
  if (f.status) q = q.where('status', '=', f.status);
  if (f.severity) q = q.where('severity', '=', f.severity);
  if (f.source) q = q.where('source', '=', f.source);
  const filtered = q;
  return cappedPage(
    db,
    filtered,
    (take) => filtered.selectAll().orderBy('received_at', 'desc').orderBy('id').limit(take).offset(f.offset).execute(),
    f.limit,
    totalCap,
  );
}

/** The observables extracted from alert `alertId`, by type and normalized value. */
export async function alertObservables(db: Kysely<Database>, alertId: string) {
  return db
    .selectFrom('alert_observables')
    .select(['type', 'value', 'normalized'])
    .where('alert_id', '=', alertId)
    .orderBy('type')
    .orderBy('normalized')
    .execute();
}

/** The alert `id` when `scope` may see it (absent and invisible alike: undefined). */
export async function findAlert(db: Kysely<Database>, id: string, scope: CaseScope): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').where(visibleAlerts(scope)).where('id', '=', id).selectAll().executeTakeFirst();
}

/**
 * `rows` with `case_id` null wherever `scope` may not see the case holding the alert
 * (SPEC.md "Authentication": private-case visibility applies to alerts), so an alert row
 * never names a private case to a non-member; one query for all the rows' cases.
 */
export async function redactCaseLinks<R extends { case_id: string | null }>(db: Kysely<Database>, rows: R[], scope: CaseScope): Promise<R[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.case_id === null ? [] : [r.case_id])))];
  if (ids.length === 0) return rows;
  const seen = await db.selectFrom('cases').select('id').where('id', 'in', ids).where(visibleCases(scope)).execute();
  const visible = new Set(seen.map((c) => c.id));
  return rows.map((r) => (r.case_id === null || visible.has(r.case_id) ? r : { ...r, case_id: null }));
}

/** The alerts a case holds, newest first (the case's visibility was checked by the caller). */
export async function caseAlerts(db: Kysely<Database>, caseId: string): Promise<AlertRow[]> {
  return db.selectFrom('alerts').selectAll().where('case_id', '=', caseId).orderBy('received_at', 'desc').orderBy('id').limit(500).execute();
}
