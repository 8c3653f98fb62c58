/**
 * Deciding a run's approval gate as a person (SPEC.md "Runs, steps and gates":
 * `waiting_approval` + approve/deny needs `approve_runbooks` and an accepted role). One
 * check for every way a decision arrives, so `POST /runs/<id>/approve|deny` and an approver
 * pressing a button in chat (chat-interactions.routes.ts) are held to the same rules.
 *
 * The run must be visible to the person (else 404 `run_not_found`); `approve_runbooks` is
 * needed in the run's case team, a realm grant for a run without a case (else 403
 * `forbidden`); the gate's roles are matched by exact name against the roles of the
 * person's grants that cover that team and hold `approve_runbooks`
 * (adapters/identity/gate-approval.ts, the rule the peer approvals listing shows gates by;
 * domain/runs/decide.ts: `approval_role_required`, `approval_expired`, `gate_not_open`,
 * `run_finished`).
 */
import { DomainError, notFound } from '../../domain/shared/errors.ts';
import { findRun } from '../../projections/runs/runs.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { approvingRoles } from '../identity/gate-approval.ts';
import { hasPermission } from '../identity/permissions.ts';
import type { Principal } from '../identity/principal.ts';
import { caseAccess } from './case-access.ts';
import type { HttpDeps } from './deps.ts';

export type GateDecision = { runId: string; stepId: string; decision: 'approved' | 'denied'; note: string | null };

/** What deciding a gate reads of the service (adapters/http/deps.ts). */
export type GateDecisionDeps = Pick<HttpDeps, 'db' | 'permissions' | 'runs' | 'waitFor'>;

/** The run `id` as `principal` may see it; 404 `run_not_found` otherwise. */
export async function visibleRun(deps: Pick<HttpDeps, 'db' | 'permissions'>, principal: Principal, id: string) {
  const run = await findRun(deps.db, id, caseScopeOf(principal, deps.permissions));
  if (!run) throw notFound('run_not_found', 'run not found', { run_id: id });
  return run;
}

/** A run's team: its case's team, null (realm) for a run without a case. */
export async function runTeam(deps: Pick<HttpDeps, 'db' | 'permissions'>, principal: Principal, caseId: string | null): Promise<string | null> {
  return caseId === null ? null : (await caseAccess(deps.db, deps.permissions).visible(principal, caseId)).team;
}

/** Records `principal`'s decision on the gate and waits until the projections show it. */
export async function decideGateAs(deps: GateDecisionDeps, principal: Principal, input: GateDecision): Promise<void> {
  const run = await visibleRun(deps, principal, input.runId);
  const team = await runTeam(deps, principal, run.case_id);
  if (!hasPermission(principal, 'approve_runbooks', deps.permissions, team)) {
    throw new DomainError('forbidden', 403, "permission approve_runbooks required in the run's team", { permission: 'approve_runbooks', team });
  }
  const roles = approvingRoles(principal.grants, deps.permissions, team);
  const position = await deps.runs.decideGate({ runId: run.id, stepId: input.stepId, decision: input.decision, note: input.note, by: principal.email, roles });
  await deps.waitFor(position);
}
