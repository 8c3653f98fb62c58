/**
 * Retention reads and the sweep state (SPEC.md `GET /retention`; migration 0022).
 * A case may be purged when its status is a closed one and neither its close nor any
 * later change to it or to one of its tasks is newer than the cutoff.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.ts';

/** The resource the case sweeper keeps its state under. */
export const CASES_RESOURCE = 'cases';

export type PurgeCandidate = { id: string; key: string; team: string | null; version: number; closed_at: Date };

/** Up to `limit` purgeable cases, the longest untouched first. */
export async function purgeCandidates(db: Kysely<Database>, cutoff: Date, closedStatuses: string[], limit: number): Promise<PurgeCandidate[]> {
  if (closedStatuses.length === 0) return [];
  const rows = await db
    .selectFrom('cases')
    .select(['id', 'key', 'team', 'version', sql<Date>`coalesce(closed_at, resolved_at, updated_at)`.as('closed_at')])
    .where('status', 'in', closedStatuses)
    .where('updated_at', '<', cutoff)
    .where(sql<boolean>`coalesce(closed_at, resolved_at, updated_at) < ${cutoff}`)
    // Tasks live in streams of their own: work on one keeps its case too.
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('case_tasks').select('case_tasks.id').whereRef('case_tasks.case_id', '=', 'cases.id').where('case_tasks.updated_at', '>=', cutoff),
        ),
      ),
    )
    .orderBy('updated_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, closed_at: new Date(r.closed_at) }));
}

/** What hangs off a case in other streams: its alerts (by their intake key), tasks, observables, ticket links and attachment files. */
export async function caseDependents(db: Kysely<Database>, caseId: string) {
  const [alerts, tasks, observables, attachments, tickets] = await Promise.all([
    db.selectFrom('alerts').select(['id', 'source', 'external_id']).where('case_id', '=', caseId).orderBy('id').execute(),
    db.selectFrom('case_tasks').select('id').where('case_id', '=', caseId).orderBy('id').execute(),
    db.selectFrom('case_observables').select(['type', 'normalized']).where('case_id', '=', caseId).execute(),
    db.selectFrom('case_attachments').select('sha256').distinct().where('case_id', '=', caseId).execute(),
    db.selectFrom('case_tickets').select('link_id').where('case_id', '=', caseId).orderBy('link_id').execute(),
  ]);
  return {
    alerts,
    taskIds: tasks.map((t) => t.id),
    observables,
    attachmentKeys: attachments.map((a) => a.sha256).sort(),
    ticketLinkIds: tickets.map((t) => t.link_id),
  };
}

/** Of `keys`, those no attachment row refers to any more. */
export async function unreferencedAttachmentKeys(db: Kysely<Database>, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const kept = await db.selectFrom('case_attachments').select('sha256').distinct().where('sha256', 'in', keys).execute();
  const referenced = new Set(kept.map((r) => r.sha256));
  return keys.filter((k) => !referenced.has(k));
}

/** The sweep state row of `resource`, or undefined before the first sweep was scheduled. */
export async function retentionState(db: Kysely<Database>, resource: string) {
  return db.selectFrom('retention_state').selectAll().where('resource', '=', resource).executeTakeFirst();
}

/**
 * Takes the sweep of `resource` when it is due at `now` (or has no state yet) by moving
 * `next_sweep_at` to `holdUntil`; true for the one caller that took it.
 */
export async function claimSweep(db: Kysely<Database>, resource: string, now: Date, holdUntil: Date): Promise<boolean> {
  await db
    .insertInto('retention_state')
    .values({ resource, next_sweep_at: now })
    .onConflict((oc) => oc.column('resource').doNothing())
    .execute();
  const taken = await db
    .updateTable('retention_state')
    .set({ next_sweep_at: holdUntil })
    .where('resource', '=', resource)
    .where('next_sweep_at', '<=', now)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) > 0;
}

/** Records a finished sweep: `deleted` cases purged, `backlog` when it filled its batch; the next is due at `next`. */
export async function finishSweep(db: Kysely<Database>, resource: string, at: Date, deleted: number, backlog: boolean, next: Date): Promise<void> {
  await db
    .updateTable('retention_state')
    .set((eb) => ({ last_sweep_at: at, last_deleted: deleted, total_deleted: eb('total_deleted', '+', deleted), backlog, next_sweep_at: next }))
    .where('resource', '=', resource)
    .execute();
}

/** Records a failed sweep by error class, with what it purged before failing; the next try is due at `next`. */
export async function failSweep(db: Kysely<Database>, resource: string, at: Date, errorClass: string, deleted: number, next: Date): Promise<void> {
  await db
    .updateTable('retention_state')
    .set((eb) => ({ last_error: errorClass, last_error_at: at, total_deleted: eb('total_deleted', '+', deleted), next_sweep_at: next }))
    .where('resource', '=', resource)
    .execute();
}
