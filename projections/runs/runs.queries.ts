/**
 * Run queries (SPEC.md "Runbooks and runs"): list, detail with steps and action
 * log, the log alone, and verification of the whole action-log chain.
 */
import type { Kysely } from 'kysely';
import { createChainVerifier } from '../../domain/runs/hash-chain.ts';
import type { Database } from '../database.ts';

export type RunFilters = { caseId?: string | undefined; status?: string | undefined; limit: number; offset: number };

export async function listRuns(db: Kysely<Database>, f: RunFilters) {
  let q = db.selectFrom('runs');
  if (f.caseId) q = q.where('case_id', '=', f.caseId);
  if (f.status) q = q.where('status', '=', f.status);
  return q.selectAll().orderBy('queued_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute();
}

export async function findRun(db: Kysely<Database>, id: string) {
  return db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function runSteps(db: Kysely<Database>, runId: string) {
  return db.selectFrom('run_steps').selectAll().where('run_id', '=', runId).orderBy('position').execute();
}

export async function runActionLog(db: Kysely<Database>, runId: string) {
  return db.selectFrom('action_log').selectAll().where('run_id', '=', runId).orderBy('chain_index').execute();
}

/**
 * Recomputes the action-log chain page by page (SPEC.md `GET /runs/chain/verify`):
 * `{valid, checked, first_broken_index}`.
 */
export async function verifyActionLogChain(db: Kysely<Database>, pageSize = 1000) {
  const verifier = createChainVerifier();
  let after = -1;
  for (;;) {
    const page = await db
      .selectFrom('action_log')
      .select(['chain_index', 'row', 'prev_hash', 'hash'])
      .where('chain_index', '>', after)
      .orderBy('chain_index')
      .limit(pageSize)
      .execute();
    for (const r of page) verifier.push(r);
    if (page.length < pageSize) break;
    after = Number(page[page.length - 1]?.chain_index);
  }
  return verifier.result();
}
