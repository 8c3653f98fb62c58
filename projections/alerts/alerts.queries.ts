/**
 * Alert inbox queries (SPEC.md "Alerts"): filters `status`, `severity`, `source`; newest first;
 * scoped by team like cases.
 */
import type { Kysely } from 'kysely';
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

/**
 * Alerts `scope` may see: org-wide alerts (no team), every alert for a realm grant,
 * and the alerts of the caller's teams (the case-scope rule for cases that are not private).
 */
export async function listAlerts(db: Kysely<Database>, f: AlertFilters, scope: CaseScope) {
  let q = db.selectFrom('alerts');
  if (!scope.all && !scope.realm) {
    const teams = scope.teams;
    q = q.where((eb) => (teams.length === 0 ? eb('team', 'is', null) : eb.or([eb('team', 'is', null), eb('team', 'in', teams)])));
  }
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
