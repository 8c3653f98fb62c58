/**
 * Run queries (SPEC.md "Runbooks and runs"): list, detail with steps and action
 * log, the log alone (the chain is verified by projections/chains/chain-table.ts).
 */
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';
import { cappedPage } from '../page.ts';

export type RunFilters = { caseId?: string | undefined; runbookId?: string | undefined; status?: string | undefined; limit: number; offset: number };

/** A run is visible when it belongs to no case or to a case `scope` may see. */
export const visibleRuns = (scope: CaseScope) => (eb: ExpressionBuilder<Database, 'runs'>) =>
  eb.or([
    eb('runs.case_id', 'is', null),
    eb.exists(eb.selectFrom('cases').select('cases.id').whereRef('cases.id', '=', 'runs.case_id').where(visibleCases(scope))),
  ]);

/** The runs `scope` may see that match `f` (paging aside). */
function filteredRuns(db: Kysely<Database>, f: RunFilters, scope: CaseScope) {
  let q = db.selectFrom('runs').where(visibleRuns(scope));
  if (f.caseId) {
    // A case's runs include those of the cases merged into it (caseFamily).
    const caseId = f.caseId;
    q = q.where((eb) =>
      eb.or([
        eb('case_id', '=', caseId),
        eb('case_id', 'in', sql<string>`(select (m->>'case_id')::uuid from cases c, jsonb_array_elements(c.merged_from) m where c.id = ${caseId})`),
      ]),
    );
  }
  if (f.runbookId) q = q.where('runbook_id', '=', f.runbookId);
  if (f.status) q = q.where('status', '=', f.status);
  return q;
}

/** Runs `scope` may see, newest first. */
export async function listRuns(db: Kysely<Database>, f: RunFilters, scope: CaseScope) {
  return filteredRuns(db, f, scope).selectAll().orderBy('queued_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute();
}

/** A page of the runs `scope` may see, newest first, with `hasMore` and a total counted up to `totalCap` when given (page.ts). */
export async function pageRuns(db: Kysely<Database>, f: RunFilters, scope: CaseScope, totalCap: number | null) {
  return cappedPage(db, filteredRuns(db, f, scope), (take) => listRuns(db, { ...f, limit: take }, scope), f.limit, totalCap);
}

/** One run if `scope` may see it (an invisible run reads like an absent one). */
export async function findRun(db: Kysely<Database>, id: string, scope: CaseScope) {
  return db.selectFrom('runs').selectAll().where('id', '=', id).where(visibleRuns(scope)).executeTakeFirst();
}

/** Which pending gates to read: only runs of cases in `teams` when given, and only after `after` in the listing order. */
export type PendingGateFilter = {
  teams?: readonly string[] | undefined;
  after?: { deadline: Date; runId: string; stepId: string } | undefined;
};

/**
 * Pending approval gates of runs waiting at them that `scope` may see, whose deadline is
 * still ahead of `now` (the service clock the deadlines were computed with), soonest
 * deadline first, then by run id (SPEC.md `GET /approvals?status=pending`, and
 * `GET /peer/v1/approvals`, which pages with `filter.after`). Each row carries the run's
 * case team (null: no case, or an org-wide case) and its runbook's name.
 */
export async function pendingApprovals(db: Kysely<Database>, scope: CaseScope, limit: number, now: Date, filter: PendingGateFilter = {}) {
  const { teams, after } = filter;
  let gates = db
    .selectFrom('run_gates')
    .innerJoin('runs', 'runs.id', 'run_gates.run_id')
    .leftJoin('cases as run_case', 'run_case.id', 'runs.case_id')
    .leftJoin('runbooks', 'runbooks.slug', 'runs.runbook_id')
    .where('run_gates.status', '=', 'pending')
    .where('runs.status', '=', 'waiting_approval')
    .where('run_gates.deadline', '>', now)
    .where(visibleRuns(scope));
  if (teams !== undefined) gates = gates.where((eb) => (teams.length > 0 ? eb('run_case.team', 'in', teams) : eb.lit(false)));
  if (after !== undefined) {
    gates = gates.where((eb) =>
      eb.or([
        eb('run_gates.deadline', '>', after.deadline),
        eb.and([eb('run_gates.deadline', '=', after.deadline), eb('run_gates.run_id', '>', after.runId)]),
        eb.and([eb('run_gates.deadline', '=', after.deadline), eb('run_gates.run_id', '=', after.runId), eb('run_gates.step_id', '>', after.stepId)]),
      ]),
    );
  }
  return gates
    .select([
      'run_gates.run_id',
      'run_gates.step_id',
      'run_gates.reason',
      'run_gates.roles',
      'run_gates.message',
      'run_gates.opened_at',
      'run_gates.deadline',
      'runs.runbook_id',
      'runs.case_id',
      'runs.trigger_type',
      'runs.requested_by',
      'run_case.team',
      'runbooks.name as runbook_name',
    ])
    .orderBy('run_gates.deadline')
    .orderBy('run_gates.run_id')
    .orderBy('run_gates.step_id')
    .limit(limit)
    .execute();
}

/** The gates a run opened, oldest first. */
export async function runGates(db: Kysely<Database>, runId: string) {
  return db.selectFrom('run_gates').selectAll().where('run_id', '=', runId).orderBy('opened_at').execute();
}

export async function runSteps(db: Kysely<Database>, runId: string) {
  return db.selectFrom('run_steps').selectAll().where('run_id', '=', runId).orderBy('position').execute();
}

export async function runActionLog(db: Kysely<Database>, runId: string) {
  return db.selectFrom('action_log').selectAll().select(sql<string>`row::text`.as('text')).where('run_id', '=', runId).orderBy('chain_index').execute();
}

/** Runs that have not finished (queued, running, waiting for approval), whatever their case: the ones a pack upgrade may not change actions under. */
export async function unfinishedRuns(db: Kysely<Database>) {
  return db.selectFrom('runs').select(['id', 'runbook_id', 'status']).where('status', 'in', ['queued', 'running', 'waiting_approval']).orderBy('id').execute();
}
