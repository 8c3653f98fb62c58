/**
 * Who may decide a run's approval gate, and so who is shown it (SPEC.md "Runs, steps and
 * gates": approve/deny needs `approve_runbooks` and an accepted role; "Peer endpoints",
 * the approvals paragraph). One rule for `POST /runs/<id>/approve|deny`, chat buttons
 * (adapters/http/gate-decision.ts) and `GET /peer/v1/approvals`:
 *
 * a grant covering the run's team (a realm grant, or one for exactly that team; a run
 * without a team needs a realm grant) whose role holds `approve_runbooks` under the
 * permission matrix, and whose role name the gate accepts (`gateAccepts`,
 * domain/runs/decide.ts: exact names, so an `admin` does not decide an `approver`-only gate).
 *
 * Pure: grants and gates in, verdicts out. Expiry, run status and case visibility are
 * read by the query that finds the gates (projections/runs/runs.queries.ts).
 */
import { gateAccepts } from '../../domain/runs/index.ts';
import type { PermissionMatrix } from './permissions.ts';
import type { Grant, Role } from './principal.ts';

/** The role names among `grants` that may decide gates of a run in `team` (null: org-wide): grants covering the team whose role holds `approve_runbooks`. */
export function approvingRoles(grants: readonly Grant[], matrix: PermissionMatrix, team: string | null): Role[] {
  const covering = grants.filter((g) => (g.team === null || g.team === team) && matrix[g.role].includes('approve_runbooks'));
  return [...new Set(covering.map((g) => g.role))];
}

/** Whether `grants` may decide a gate requiring one of `gateRoles` on a run in `team` (null: org-wide). */
export function mayDecideGate(grants: readonly Grant[], matrix: PermissionMatrix, team: string | null, gateRoles: readonly string[]): boolean {
  return gateAccepts(gateRoles, approvingRoles(grants, matrix, team));
}

/**
 * The person an approvals listing is for, as identity describes them now: their live
 * grants, whether they hold the four-eyes exception, and the email their own runs are
 * requested by (null: they never signed in here, so no run is theirs).
 */
export type Approver = { grants: readonly Grant[]; fourEyesException: boolean; email: string | null };

/** A pending gate as the listing judges it: its run's team (null: org-wide), the roles it accepts and who requested the run (an email; null for automatic runs). */
export type ListedGate = { team: string | null; roles: readonly string[]; requestedBy: string | null };

export type GateListing = { listed: false } | { listed: true; selfRequested: boolean };

/**
 * Whether `approver` is shown `gate` (SPEC.md "Peer endpoints"): they may decide it
 * (`mayDecideGate`), and a run they requested themselves only while identity grants them
 * the four-eyes exception, then marked `selfRequested`. Emails compare case-insensitively.
 */
export function gateListing(approver: Approver, gate: ListedGate, matrix: PermissionMatrix): GateListing {
  if (!mayDecideGate(approver.grants, matrix, gate.team, gate.roles)) return { listed: false };
  const selfRequested = approver.email !== null && gate.requestedBy !== null && approver.email.toLowerCase() === gate.requestedBy.toLowerCase();
  if (selfRequested && !approver.fourEyesException) return { listed: false };
  return { listed: true, selfRequested };
}
