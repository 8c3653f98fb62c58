/**
 * Which cases a caller may see (SPEC.md "Case": `team`, private cases). A case
 * belongs to a team or is org-wide (`team` null); a case that is not private is visible
 * in its team (a grant there, or a realm grant) and an org-wide one to everyone. A
 * private case is visible only to its members (its creator and its owner) who could see
 * it were it not private, and to admins of its team (realm admins for an org-wide case):
 * being made a case's owner never opens another team's case to someone (issue 46; the
 * assignment routes refuse such an owner with `assignee_no_access`). The same rule exists
 * twice, as a predicate and as a SQL filter, and tests hold them to each other.
 */
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../database.ts';

export type CaseScope = {
  /** Sees every case: a realm (install-wide) admin. */
  all: boolean;
  /** The caller's user id: a member of the private cases it created or owns. */
  userId: string | null;
  /** Holds a realm grant (`team: null`): sees every case that is not private. */
  realm: boolean;
  /** Teams the caller holds a grant in: their cases that are not private. */
  teams: string[];
  /** Teams the caller is admin of: their private cases too. */
  adminTeams: string[];
};

/** The columns the rule reads. */
export type ScopedCase = { team: string | null; private: boolean; owner_id: string | null; created_by_id: string | null };

export function canSeeCase(scope: CaseScope, c: ScopedCase): boolean {
  if (scope.all) return true;
  const open = c.team === null || scope.realm || scope.teams.includes(c.team);
  if (!c.private) return open;
  const member = scope.userId !== null && (c.owner_id === scope.userId || c.created_by_id === scope.userId);
  return (member && open) || (c.team !== null && scope.adminTeams.includes(c.team));
}

/** The SQL form of `canSeeCase` over the `cases` table. */
export function visibleCases(scope: CaseScope) {
  return (eb: ExpressionBuilder<Database, 'cases'>): Expression<SqlBool> => {
    if (scope.all) return eb.lit(true);
    const member = scope.userId === null ? eb.lit(false) : eb.or([eb('cases.owner_id', '=', scope.userId), eb('cases.created_by_id', '=', scope.userId)]);
    const inTeams = (teams: string[]) => (teams.length === 0 ? eb.lit(false) : eb('cases.team', 'in', teams));
    const open = scope.realm ? eb.lit(true) : eb.or([eb('cases.team', 'is', null), inTeams(scope.teams)]);
    return eb.or([
      eb.and([eb('cases.private', '=', false), open]),
      eb.and([eb('cases.private', '=', true), member, open]),
      eb.and([eb('cases.private', '=', true), inTeams(scope.adminTeams)]),
    ]);
  };
}
