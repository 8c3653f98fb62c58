/**
 * Reading the audit log (SPEC.md `GET /audit`): oldest first from a chain index, so an
 * auditor pages through the chain in the order it was hashed.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.ts';

export type AuditFilters = {
  /** Only rows with a larger `chain_index` (the previous page's `next_after`). */
  after: number | undefined;
  limit: number;
  action: string | undefined;
  targetType: string | undefined;
  targetId: string | undefined;
};

/** One page of chained rows: the entry, its index and both hashes. */
export async function listAudit(db: Kysely<Database>, f: AuditFilters) {
  let q = db.selectFrom('audit_log').select(['chain_index', 'row', 'prev_hash', 'hash']);
  if (f.after !== undefined) q = q.where('chain_index', '>', f.after);
  if (f.action !== undefined) q = q.where('action', '=', f.action);
  if (f.targetType !== undefined) q = q.where('target_type', '=', f.targetType);
  if (f.targetId !== undefined) q = q.where('target_id', '=', f.targetId);
  return q.orderBy('chain_index').limit(f.limit).execute();
}
