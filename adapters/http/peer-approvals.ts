/**
 * The approvals listing the suite shell shows a person (SPEC.md "Peer endpoints"
 * `GET /peer/v1/approvals?user=<subject>`, "Approval gate item", "Limits"): the run gates
 * that person may decide now, by their LIVE grants read from identity, never the ones
 * stored from their last token.
 *
 * A gate is listed when its run is `waiting_approval`, its deadline is ahead of the
 * service clock, the run is visible to the person (its case's team and private-case rule,
 * projections/cases/case-scope.ts over their live grants), and they may decide it
 * (adapters/identity/gate-approval.ts: a covering grant with `approve_runbooks` the gate
 * accepts). Their own runs only while identity grants the four-eyes exception, then with
 * `self_requested: true`. A team admin caller narrows the listing to its teams' runs.
 *
 * Items are sorted by `expires_at`, then run id; at most 100, `truncated` when more. An
 * unknown or inactive subject lists nothing. Identity unreadable: 503 `upstream_unavailable`.
 */
import type { Kysely } from 'kysely';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Database } from '../../projections/database.ts';
import { pendingApprovals, type PendingGateFilter } from '../../projections/runs/runs.queries.ts';
import { IdentityUnavailable, type IdentityServiceClient, type LiveGrants } from '../identity-service/client.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { gateListing, type Approver } from '../identity/gate-approval.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import { iso } from '../shared/shapes.ts';

/** `contract_version` of the approvals document (SPEC.md "Versioning" leaves its value open; docs/suite-contracts.md). */
export const APPROVALS_CONTRACT_VERSION = 1;
/** Most gates one listing shows (SPEC.md "Limits": peer approvals listed). */
export const APPROVALS_LIMIT = 100;
/** The MCP tool that decides a listed gate (SPEC.md "Peer endpoints"). */
export const DECIDE_TOOL = 'svc_approve_run';
/** Gates read per query while filtering by grants. */
const PAGE = 200;

/** One gate as the suite shell shows it (SPEC.md "Approval gate item"); `id` is the run id. */
export const approvalItemSchema = v.strictObject({
  id: v.string(),
  kind: v.literal('run_step'),
  step_id: v.string(),
  title: v.string(),
  summary: v.string(),
  environment: v.string(),
  team_id: v.nullable(v.string()),
  requester_email: v.nullable(v.string()),
  requester_subject: v.nullable(v.string()),
  self_requested: v.boolean(),
  requested_at: v.string(),
  expires_at: v.string(),
  href: v.string(),
  decide_tool: v.literal(DECIDE_TOOL),
});

/** The document `GET /peer/v1/approvals` answers. */
export const approvalsDocumentSchema = v.strictObject({
  contract_version: v.literal(APPROVALS_CONTRACT_VERSION),
  product: v.string(),
  user: v.string(),
  observed_at: v.string(),
  truncated: v.boolean(),
  approvals: v.array(approvalItemSchema),
});
export type ApprovalsDocument = v.InferOutput<typeof approvalsDocumentSchema>;

/** Whose runs a caller may have listed: every team's (identity's status token, a realm admin) or only `teams`' (a team admin). */
export type ApprovalsReach = { all: true } | { all: false; teams: string[] };

type GateRow = Awaited<ReturnType<typeof pendingApprovals>>[number];

export type ApprovalsListingDeps = {
  db: Kysely<Database>;
  permissions: PermissionMatrix;
  identity: IdentityServiceClient;
  product: string;
  /** SVC_ENVIRONMENT, named on every item. */
  environment: string;
  /** SVC_PUBLIC_PREFIX: items link to `<prefix>/runs/<run id>`. */
  publicPrefix: string;
};

/**
 * The listing for `user` (a lowercase UUID subject) as `reach` allows, at `now` (the service clock).
 * @throws DomainError 503 `upstream_unavailable` with params `{upstream: 'identity', reason}` when identity cannot be read.
 */
export function approvalsListing(deps: ApprovalsListingDeps) {
  const { db, permissions } = deps;

  const liveGrantsOf = async (user: string): Promise<LiveGrants | null> => {
    try {
      return await deps.identity.liveGrants(user);
    } catch (error) {
      if (!(error instanceof IdentityUnavailable)) throw error;
      throw new DomainError('upstream_unavailable', 503, "the identity service could not be read for the user's live grants", {
        upstream: 'identity',
        reason: error.reason,
      });
    }
  };

  /** The gates `approver` is shown, in listing order, one more than the limit at most. */
  const listedGates = async (approver: Approver, userId: string | null, reach: ApprovalsReach, now: Date) => {
    const scope = caseScopeOf({ userId, grants: approver.grants }, permissions);
    const listed: { gate: GateRow; selfRequested: boolean }[] = [];
    let filter: PendingGateFilter = { teams: reach.all ? undefined : reach.teams };
    for (;;) {
      const page = await pendingApprovals(db, scope, PAGE, now, filter);
      for (const gate of page) {
        const verdict = gateListing(approver, { team: gate.team, roles: gate.roles, requestedBy: gate.requested_by }, permissions);
        if (verdict.listed) listed.push({ gate, selfRequested: verdict.selfRequested });
        if (listed.length > APPROVALS_LIMIT) return listed;
      }
      const last = page.at(-1);
      if (page.length < PAGE || last === undefined) return listed;
      filter = { ...filter, after: { deadline: last.deadline, runId: last.run_id, stepId: last.step_id } };
    }
  };

  /** The identity subject of each requester email among `emails`: the active user row with that email seen last. */
  const subjectsOf = async (emails: string[]): Promise<Map<string, string>> => {
    if (emails.length === 0) return new Map();
    const rows = await db
      .selectFrom('users')
      .select(['subject', 'email'])
      .where((eb) => eb(eb.fn('lower', ['email']), 'in', [...new Set(emails.map((e) => e.toLowerCase()))]))
      .where('active', '=', true)
      .orderBy('updated_at', 'desc')
      .execute();
    const subjects = new Map<string, string>();
    for (const row of rows) if (!subjects.has(row.email.toLowerCase())) subjects.set(row.email.toLowerCase(), row.subject);
    return subjects;
  };

  return async (user: string, reach: ApprovalsReach, now: Date): Promise<ApprovalsDocument> => {
    const live = await liveGrantsOf(user);
    const base = { contract_version: APPROVALS_CONTRACT_VERSION, product: deps.product, user, observed_at: now.toISOString() } as const;
    if (live === null || !live.active) return { ...base, truncated: false, approvals: [] };
    const person = await db.selectFrom('users').select(['id', 'email']).where('subject', '=', user).executeTakeFirst();
    const approver: Approver = { grants: live.grants, fourEyesException: live.fourEyesException, email: person?.email ?? null };
    const listed = await listedGates(approver, person?.id ?? null, reach, now);
    const shown = listed.slice(0, APPROVALS_LIMIT);
    const subjects = await subjectsOf(shown.flatMap(({ gate }) => (gate.requested_by === null ? [] : [gate.requested_by])));
    return {
      ...base,
      truncated: listed.length > APPROVALS_LIMIT,
      approvals: shown.map(({ gate, selfRequested }) => {
        const runbook = gate.runbook_name ?? gate.runbook_id;
        return {
          id: gate.run_id,
          kind: 'run_step',
          step_id: gate.step_id,
          title: `${runbook}: step ${gate.step_id}`,
          summary: gate.message ?? `Step ${gate.step_id} of runbook ${runbook} waits for an approval`,
          environment: deps.environment,
          team_id: gate.team,
          requester_email: gate.requested_by,
          requester_subject: gate.requested_by === null ? null : (subjects.get(gate.requested_by.toLowerCase()) ?? null),
          self_requested: selfRequested,
          requested_at: iso(gate.opened_at),
          expires_at: iso(gate.deadline),
          href: `${deps.publicPrefix}/runs/${gate.run_id}`,
          decide_tool: DECIDE_TOOL,
        };
      }),
    };
  };
}
