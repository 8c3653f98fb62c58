/**
 * Reading the audit log (SPEC.md `GET /audit`): oldest first from a chain index, so an
 * auditor pages through the chain in the order it was hashed.
 */
import type { Kysely, Selectable } from 'kysely';
import type { AuditLogTable, Database } from '../database.ts';

export type AuditFilters = {
  /** Only rows with a larger `chain_index` (the previous page's `next_after`). */
  after: number | undefined;
  limit: number;
  action: string | undefined;
  targetType: string | undefined;
  targetId: string | undefined;
  /** Only entries recorded at or after this instant (RFC 3339). */
  since?: string;
  /** Only entries recorded before this instant (RFC 3339). */
  until?: string;
};

/** One chained row as listAudit reads it. */
export type AuditRow = Pick<Selectable<AuditLogTable>, 'chain_index' | 'row' | 'prev_hash' | 'hash'>;

/** One page of chained rows: the entry, its index and both hashes. */
export async function listAudit(db: Kysely<Database>, f: AuditFilters): Promise<AuditRow[]> {
  let q = db.selectFrom('audit_log').select(['chain_index', 'row', 'prev_hash', 'hash']);
  if (f.after !== undefined) q = q.where('chain_index', '>', f.after);
  if (f.action !== undefined) q = q.where('action', '=', f.action);
  if (f.targetType !== undefined) q = q.where('target_type', '=', f.targetType);
  if (f.targetId !== undefined) q = q.where('target_id', '=', f.targetId);
  if (f.since !== undefined) q = q.where('at', '>=', new Date(f.since));
  if (f.until !== undefined) q = q.where('at', '<', new Date(f.until));
  return q.orderBy('chain_index').limit(f.limit).execute();
}
