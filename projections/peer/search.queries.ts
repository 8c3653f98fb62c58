/**
 * The two queries of `GET /peer/v1/search` (SPEC.md "Peer endpoints"), one per kind, each
 * answering at most `limit` hits with the tier they matched in (projections/peer/search-ranking.ts),
 * best tier first. Indexes (migration 0032, bench/peer-search.ts): the exact tier reads the
 * key and id indexes, the prefix tier `cases_title_prefix`, the contains tier the trigram
 * index where pg_trgm is installed; the newest cases come first within a tier.
 */
import { sql, type Kysely } from 'kysely';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';
import type { MatchTier, SearchTerms } from './search-ranking.ts';

export type CaseHit = { tier: MatchTier; id: string; key: string; title: string; severity: string; status: string; team: string | null };
export type RunbookHit = { tier: MatchTier; slug: string; name: string; enabled: boolean };

/** Which cases a search covers: what `scope` sees, only `team`'s when not null, never a case merged into another nor one in `skipStatuses`. */
export type CaseSearchFilter = { scope: CaseScope; team: string | null; skipStatuses: readonly string[] };

/**
 * The cases matching `terms` under `filter`: exact key or id, then title prefix, then title
 * containing the query; newest first within a tier. A case may come back in several tiers
 * (the contains tier includes prefix matches); mergeRanked keeps its best, and the rows
 * answered always hold the `limit` best distinct cases.
 */
export async function searchCases(db: Kysely<Database>, terms: SearchTerms, filter: CaseSearchFilter, limit: number): Promise<CaseHit[]> {
  const base = () => {
    let q = db
      .selectFrom('cases')
      .select(['cases.id', 'cases.key', 'cases.title', 'cases.severity', 'cases.status', 'cases.team', 'cases.created_at', 'cases.number'])
      .where(visibleCases(filter.scope))
      .where('cases.merged_into', 'is', null);
    if (filter.team !== null) q = q.where('cases.team', '=', filter.team);
    if (filter.skipStatuses.length > 0) q = q.where('cases.status', 'not in', [...filter.skipStatuses]);
    return q;
  };
  const prefixTier = base()
    .select(sql<MatchTier>`2`.as('tier'))
    .where(sql<boolean>`lower(cases.title) like lower(${terms.prefix})`)
    .orderBy('cases.created_at', 'desc')
    .orderBy('cases.number', 'desc')
    .limit(limit);
  // Prefix matches are not excluded here: `not prefix` turned a common term (every
  // match a prefix match) into a walk of every case (100 ms at 100k). Twice the limit
  // instead: when the prefix tier holds fewer than `limit`, those are all the prefix
  // matches, so at least `limit` of these are other cases, if there are that many.
  const containsTier = base()
    .select(sql<MatchTier>`3`.as('tier'))
    .where(sql<boolean>`lower(cases.title) like lower(${terms.contains})`)
    .orderBy('cases.created_at', 'desc')
    .orderBy('cases.number', 'desc')
    .limit(2 * limit);
  // Each tier is its own subquery, so each keeps its own order and limit (and index).
  let union = db
    .selectFrom(prefixTier.as('prefix_tier'))
    .selectAll()
    .unionAll(db.selectFrom(containsTier.as('contains_tier')).selectAll());
  const { caseKey, caseId } = terms;
  if (caseKey !== null || caseId !== null) {
    const exactTier = base()
      .select(sql<MatchTier>`1`.as('tier'))
      .where((eb) => eb.or([...(caseKey === null ? [] : [eb('cases.key', '=', caseKey)]), ...(caseId === null ? [] : [eb('cases.id', '=', caseId)])]))
      .limit(limit);
    union = union.unionAll(db.selectFrom(exactTier.as('exact_tier')).selectAll());
  }
  const rows = await union.orderBy('tier').orderBy('created_at', 'desc').orderBy('number', 'desc').execute();
  return rows.map((r) => ({ tier: Number(r.tier) as MatchTier, id: r.id, key: r.key, title: r.title, severity: r.severity, status: r.status, team: r.team }));
}

/**
 * The runbooks among `slugs` (the visible ones) matching `terms`: exact slug, then name or
 * slug prefix, then name or slug containing the query; by name within a tier.
 */
export async function searchRunbooks(db: Kysely<Database>, terms: SearchTerms, slugs: readonly string[], limit: number): Promise<RunbookHit[]> {
  if (slugs.length === 0) return [];
  const rows = await db
    .selectFrom('runbooks')
    .select(['slug', 'name', 'enabled'])
    .select(
      sql<MatchTier>`case when slug = lower(${terms.text}) then 1
        when lower(name) like lower(${terms.prefix}) or slug like lower(${terms.prefix}) then 2
        else 3 end`.as('tier'),
    )
    .where('slug', 'in', [...slugs])
    .where((eb) =>
      eb.or([
        eb('slug', '=', sql<string>`lower(${terms.text})`),
        sql<boolean>`lower(name) like lower(${terms.contains})`,
        sql<boolean>`slug like lower(${terms.contains})`,
      ]),
    )
    .orderBy('tier')
    .orderBy(sql`lower(name)`)
    .orderBy('slug')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ tier: Number(r.tier) as MatchTier, slug: r.slug, name: r.name, enabled: r.enabled }));
}
