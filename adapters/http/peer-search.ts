/**
 * The suite shell's header search over this product (`GET /peer/v1/search`, SPEC.md "Peer
 * endpoints"; docs/suite-contracts.md "Suite shell peer endpoints"): at most 10 cases and
 * runbooks for the active user with identity subject `user`, best match first
 * (projections/peer/search-ranking.ts), runbooks before cases within a tier.
 *
 * Cases are those the user sees in the case list, by its stored grants (caseScopeOf), never
 * one in a merged status (SVC_CASE_MERGED_STATUSES); `team` keeps only that team's cases
 * when the user reads there (a grant for the team or a realm grant), else it is ignored.
 * Runbooks are org-wide: every visible one. An unknown or disabled user finds nothing.
 */
import type { Kysely } from 'kysely';
import * as v from 'valibot';
import type { Database } from '../../projections/database.ts';
import { activeUserBySubject } from '../../projections/peer/peer-user.queries.ts';
import { mergeRanked, searchTerms, type RankedHit } from '../../projections/peer/search-ranking.ts';
import { searchCases, searchRunbooks } from '../../projections/peer/search.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { hasPermission, type PermissionMatrix } from '../identity/permissions.ts';
import { storedGrants } from '../identity/stored-grants.ts';
import { peerSubject } from './peer-query.ts';

/** SPEC.md "Limits": peer search results. */
export const PEER_SEARCH_LIMIT = 10;

const searchItemSchema = v.strictObject({
  id: v.string(),
  kind: v.picklist(['case', 'runbook']),
  title: v.string(),
  context: v.string(),
  href: v.string(),
  severity: v.optional(v.string()),
});
type SearchItem = v.InferOutput<typeof searchItemSchema>;

/** `GET /peer/v1/search`. */
export const searchDocumentSchema = v.strictObject({ product: v.string(), items: v.array(searchItemSchema) });

/** Its query: `q` trimmed to 2..100 characters (SPEC.md "Limits"). */
export const searchQuerySchema = v.object({
  user: peerSubject,
  q: v.pipe(v.string(), v.trim(), v.minLength(2, 'must be 2 to 100 characters'), v.maxLength(100, 'must be 2 to 100 characters')),
  team: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(200))),
});

export type PeerSearchDeps = {
  db: Kysely<Database>;
  permissions: PermissionMatrix;
  /** The public UI prefix, no trailing slash. */
  prefix: string;
  /** The prefix of case keys (`SVC`). */
  keyPrefix: string;
  mergedStatuses: readonly string[];
  /** The slugs of the runbooks visible now (hidden: needing a product that is not installed). */
  runbookSlugs: () => string[];
};

/** The items for `query`, best match first; [] for an unknown or disabled user. */
export async function peerSearch(deps: PeerSearchDeps, query: v.InferOutput<typeof searchQuerySchema>): Promise<SearchItem[]> {
  const user = await activeUserBySubject(deps.db, query.user);
  if (!user) return [];
  const grants = storedGrants(user.grants);
  const scope = caseScopeOf({ userId: user.id, grants }, deps.permissions);
  const team = query.team !== undefined && hasPermission({ grants }, 'read', deps.permissions, query.team) ? query.team : null;
  const terms = searchTerms(query.q, deps.keyPrefix);
  const [runbooks, cases] = await Promise.all([
    searchRunbooks(deps.db, terms, deps.runbookSlugs(), PEER_SEARCH_LIMIT),
    searchCases(deps.db, terms, { scope, team, skipStatuses: deps.mergedStatuses }, PEER_SEARCH_LIMIT),
  ]);
  const runbookHits: RankedHit<SearchItem>[] = runbooks.map((r) => ({
    tier: r.tier,
    key: `runbook:${r.slug}`,
    item: {
      id: r.slug,
      kind: 'runbook',
      title: r.name,
      context: `Runbook ${r.slug}${r.enabled ? '' : ' (disabled)'}`,
      href: `${deps.prefix}/runbooks/${r.slug}`,
    },
  }));
  const caseHits: RankedHit<SearchItem>[] = cases.map((c) => ({
    tier: c.tier,
    key: `case:${c.id}`,
    item: {
      id: c.id,
      kind: 'case',
      title: c.title,
      context: `${c.key} · ${c.status} · ${c.team ?? 'org-wide'}`,
      href: `${deps.prefix}/cases/${c.id}`,
      severity: c.severity,
    },
  }));
  return mergeRanked([runbookHits, caseHits], PEER_SEARCH_LIMIT);
}
