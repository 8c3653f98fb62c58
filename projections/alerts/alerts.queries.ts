/**
 * Alert inbox queries (SPEC.md "Alerts"): filters `status`, `severity`, `source`; newest first.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';

export type AlertFilters = { status?: string | undefined; severity?: string | undefined; source?: string | undefined; limit: number; offset: number };

export async function listAlerts(db: Kysely<Database>, f: AlertFilters) {
  let q = db.selectFrom('alerts');
  if (f.status) q = q.where('status', '=', f.status);
  if (f.severity) q = q.where('severity', '=', f.severity);
  if (f.source) q = q.where('source', '=', f.source);
  return q.selectAll().orderBy('received_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute();
}
