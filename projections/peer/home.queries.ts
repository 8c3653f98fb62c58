/**
 * The reads of `GET /peer/v1/home` (SPEC.md "Peer endpoints"): open owned cases with their
 * owner's stored grants, the strip's counts per team, and the org milestone stamps.
 */
import { sql, type Kysely } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';
import { visibleRuns } from '../runs/runs.queries.ts';
import type { Milestone } from './milestones.projection.ts';

/** An open owned case with what its owner's user row says (null fields: the owner has no user row). */
export type OwnedCaseRow = {
  id: string;
  key: string;
  title: string;
  severity: string;
  status: string;
  team: string | null;
  private: boolean;
  owner_id: string;
  owner_email: string;
  created_by_id: string | null;
  updated_at: Date;
  owner_user_id: string | null;
  owner_grants: { team: string | null; role: string }[] | null;
};

/**
 * Cases with an owner (id and email, always set together) and a status outside `closedStatuses`, at most `perOwner` per owner
 * (the most recently updated), ordered by owner email, then most recently updated first.
 */
export async function openOwnedCases(db: Kysely<Database>, closedStatuses: readonly string[], perOwner: number): Promise<OwnedCaseRow[]> {
  let owned = db
    .selectFrom('cases')
    .leftJoin('users', 'users.id', 'cases.owner_id')
    .select([
      'cases.id',
      'cases.key',
      'cases.title',
      'cases.severity',
      'cases.status',
      'cases.team',
      'cases.private',
      'cases.owner_id',
      'cases.owner_email',
      'cases.created_by_id',
      'cases.updated_at',
      'users.id as owner_user_id',
      'users.grants as owner_grants',
      sql<number>`row_number() over (partition by cases.owner_id order by cases.updated_at desc, cases.id)`.as('rank'),
    ])
    .where('cases.owner_id', 'is not', null)
    .where('cases.owner_email', 'is not', null);
  if (closedStatuses.length > 0) owned = owned.where('cases.status', 'not in', [...closedStatuses]);
  const rows = await db
    .selectFrom(owned.as('owned'))
    .selectAll()
    .where('rank', '<=', perOwner)
    .orderBy('owner_email')
    .orderBy('owner_id')
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .execute();
  // Both are non-null by the filter above, which the row type cannot carry.
  return rows.map(({ rank: _rank, owner_id, owner_email, ...row }) => ({ ...row, owner_id: owner_id as string, owner_email: owner_email as string }));
}

/** What a reader of every team sees without being a member of any case: the cases that are not private. */
const teamReader: CaseScope = { all: false, userId: null, realm: true, teams: [], adminTeams: [] };

/** A count per team (null: org-wide). */
export type TeamCount = { team: string | null; count: number };

/** Open cases (status outside `closedStatuses`) that are not private, per team. */
export async function openCasesPerTeam(db: Kysely<Database>, closedStatuses: readonly string[]): Promise<TeamCount[]> {
  let q = db.selectFrom('cases').where(visibleCases(teamReader));
  if (closedStatuses.length > 0) q = q.where('cases.status', 'not in', [...closedStatuses]);
  const rows = await q
    .select(['cases.team', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('cases.team')
    .execute();
  return rows.map((r) => ({ team: r.team, count: Number(r.count) }));
}

/** Runs started at or after `since` whose case is not private (or that have no case), per team of their case. */
export async function runsStartedPerTeam(db: Kysely<Database>, since: Date): Promise<TeamCount[]> {
  const rows = await db
    .selectFrom('runs')
    .leftJoin('cases', 'cases.id', 'runs.case_id')
    .where('runs.started_at', '>=', since)
    .where(visibleRuns(teamReader))
    .select(['cases.team', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('cases.team')
    .execute();
  return rows.map((r) => ({ team: r.team, count: Number(r.count) }));
}

/** The stamped milestones and when each was reached. */
export async function milestoneStamps(db: Kysely<Database>): Promise<Map<Milestone, Date>> {
  const rows = await db.selectFrom('org_milestones').select(['milestone', 'reached_at']).execute();
  return new Map(rows.map((r) => [r.milestone as Milestone, r.reached_at]));
}
