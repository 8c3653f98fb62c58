/**
 * The suite shell's home section of this product (`GET /peer/v1/home`, SPEC.md "Peer
 * endpoints"; shapes in docs/suite-contracts.md "Suite shell peer endpoints"), built by
 * pure functions from the reads of projections/peer/home.queries.ts:
 *
 * - `items`: open owned cases, at most 20 per owner, each with its `assignee` (owner email),
 *   `team` (null: org-wide) and an Open action; a case is listed only when its owner may
 *   see it by the case-scope rule with the owner's stored grants (a private case: when the
 *   owner is a member);
 * - `strip`: per team, open cases that are not private (stage `cases`) and runs started in
 *   the last 24 hours by the service clock, of no case or of a case that is not private
 *   (stage `actions`); org-wide first and always, then each team with a count, by id;
 * - `setup`: the two first steps, each done once its org milestone is stamped
 *   (projections/peer/milestones.projection.ts); empty once both are.
 */
import * as v from 'valibot';
import { canSeeCase } from '../../projections/cases/case-scope.ts';
import type { Milestone } from '../../projections/peer/milestones.projection.ts';
import type { OwnedCaseRow, TeamCount } from '../../projections/peer/home.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import { storedGrants } from '../identity/stored-grants.ts';
import { iso } from '../shared/shapes.ts';

/** SPEC.md "Limits": peer home items per owner. */
export const HOME_ITEMS_PER_OWNER = 20;
/** SPEC.md "Limits": the home strip window, milliseconds. */
export const HOME_STRIP_WINDOW_MS = 24 * 3600 * 1000;

const homeItemSchema = v.strictObject({
  id: v.string(),
  kind: v.literal('case'),
  key: v.string(),
  title: v.string(),
  severity: v.string(),
  status: v.string(),
  assignee: v.string(),
  team: v.nullable(v.string()),
  updated_at: v.string(),
  actions: v.array(v.strictObject({ id: v.literal('open'), title: v.string(), href: v.string() })),
});
type HomeItem = v.InferOutput<typeof homeItemSchema>;

const stripEntrySchema = v.strictObject({
  team: v.nullable(v.string()),
  stages: v.array(v.strictObject({ stage: v.picklist(['cases', 'actions']), title: v.string(), count: v.number() })),
});
type StripEntry = v.InferOutput<typeof stripEntrySchema>;

const setupStepSchema = v.strictObject({
  id: v.picklist(['open_first_case', 'finish_approved_response']),
  title: v.string(),
  done: v.boolean(),
  done_at: v.nullable(v.string()),
  href: v.string(),
});
type SetupStep = v.InferOutput<typeof setupStepSchema>;

/** `GET /peer/v1/home`. */
export const homeDocumentSchema = v.strictObject({
  product: v.string(),
  items: v.array(homeItemSchema),
  strip: v.array(stripEntrySchema),
  setup: v.array(setupStepSchema),
});

/** The rows whose owner may see them (with the owner's stored grants), as home items; `prefix` is the public UI prefix. */
export function homeItems(rows: readonly OwnedCaseRow[], matrix: PermissionMatrix, prefix: string): HomeItem[] {
  return rows.flatMap((row) => {
    const owner = caseScopeOf({ userId: row.owner_user_id, grants: storedGrants(row.owner_grants ?? []) }, matrix);
    if (!canSeeCase(owner, row)) return [];
    return [
      {
        id: row.id,
        kind: 'case' as const,
        key: row.key,
        title: row.title,
        severity: row.severity,
        status: row.status,
        assignee: row.owner_email,
        team: row.team,
        updated_at: iso(row.updated_at),
        actions: [{ id: 'open' as const, title: 'Open', href: `${prefix}/cases/${row.id}` }],
      },
    ];
  });
}

/** The strip from the per-team counts of open cases and of runs started in the window. */
export function homeStrip(openCases: readonly TeamCount[], runsStarted: readonly TeamCount[]): StripEntry[] {
  const teams = new Set<string>();
  for (const { team, count } of [...openCases, ...runsStarted]) if (team !== null && count > 0) teams.add(team);
  const countOf = (counts: readonly TeamCount[], team: string | null) => counts.find((c) => c.team === team)?.count ?? 0;
  return [null, ...[...teams].sort()].map((team) => ({
    team,
    stages: [
      { stage: 'cases' as const, title: 'Open cases', count: countOf(openCases, team) },
      { stage: 'actions' as const, title: 'Runbook runs, last 24 hours', count: countOf(runsStarted, team) },
    ],
  }));
}

const setupMilestones: readonly { id: SetupStep['id']; title: string; path: string; milestone: Milestone }[] = [
  { id: 'open_first_case', title: 'Open the first case', path: '/cases', milestone: 'first_case_opened' },
  {
    id: 'finish_approved_response',
    title: 'Finish an approved response: a runbook run that passed an approval gate',
    path: '/runbooks',
    milestone: 'first_approved_response',
  },
];

/** The setup steps from the milestone stamps; `[]` once every step is done. */
export function setupSteps(stamps: ReadonlyMap<Milestone, Date>, prefix: string): SetupStep[] {
  if (setupMilestones.every((s) => stamps.has(s.milestone))) return [];
  return setupMilestones.map((s) => {
    const at = stamps.get(s.milestone);
    return { id: s.id, title: s.title, done: at !== undefined, done_at: at === undefined ? null : iso(at), href: `${prefix}${s.path}` };
  });
}
