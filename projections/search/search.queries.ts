/**
 * Full-text search over the search documents (docs/configuration.md "Search"; issue 50):
 * `q` is read as a web search (`websearch_to_tsquery`: words, "quoted phrases", `or`,
 * `-excluded`) under the `english` configuration, and the cases and alerts whose document
 * matches come back best first (`ts_rank`; newest first among equals), each with a short
 * snippet of its text around the match. Cases as the case list scopes them (teams,
 * org-wide, private cases for their members and team admins), merged cases left out;
 * alerts as the inbox scopes them, and an alert held by a case the caller cannot see is
 * left out like that case.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { visibleAlerts } from '../alerts/alerts.queries.ts';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';
import { SEARCH_CONFIG } from './documents.ts';

export type SearchHit = { kind: 'case' | 'alert'; id: string; key: string | null; title: string; snippet: string; rank: number };

/** The text a snippet is cut from: matches beyond it give no snippet text, only the title. */
const SNIPPET_SOURCE_CHARS = 50_000;

/** `q` as a text search query (an empty query, only stop words, matches nothing). */
export const searchQuery = (q: string): RawBuilder<unknown> => sql`websearch_to_tsquery(${sql.lit(SEARCH_CONFIG)}, ${q})`;

const snippet = (text: string, query: RawBuilder<unknown>) =>
  sql<string>`ts_headline(${sql.lit(SEARCH_CONFIG)}, left(${sql.ref(text)}, ${sql.lit(SNIPPET_SOURCE_CHARS)}), ${query}, 'StartSel="", StopSel="", MaxWords=25, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "')`;

/** The `limit` best cases and alerts `scope` may see for `q`, best first. */
export async function search(db: Kysely<Database>, q: string, scope: CaseScope, limit: number): Promise<SearchHit[]> {
  const query = searchQuery(q);
  const [cases, alerts] = await Promise.all([
    db
      .selectFrom('case_search as s')
      .innerJoin('cases', 'cases.id', 's.case_id')
      .select(['cases.id', 'cases.key', 'cases.title', sql<number>`ts_rank(s.vector, ${query})`.as('rank'), snippet('s.text', query).as('snippet')])
      .where(sql<boolean>`s.vector @@ ${query}`)
      .where(visibleCases(scope))
      .where('cases.merged_into', 'is', null)
      .orderBy('rank', 'desc')
      .orderBy('cases.created_at', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('alert_search as s')
      .innerJoin('alerts', 'alerts.id', 's.alert_id')
      .select(['alerts.id', 'alerts.title', sql<number>`ts_rank(s.vector, ${query})`.as('rank'), snippet('s.text', query).as('snippet')])
      .where(sql<boolean>`s.vector @@ ${query}`)
      .where(visibleAlerts(scope))
      .where((eb) =>
        eb.or([
          eb('alerts.case_id', 'is', null),
          eb.exists(eb.selectFrom('cases').select('cases.id').whereRef('cases.id', '=', 'alerts.case_id').where(visibleCases(scope))),
        ]),
      )
      .orderBy('rank', 'desc')
      .orderBy('alerts.received_at', 'desc')
      .limit(limit)
      .execute(),
  ]);
  const hits: SearchHit[] = [
    ...cases.map((c) => ({ kind: 'case' as const, id: c.id, key: c.key, title: c.title, snippet: c.snippet, rank: Number(c.rank) })),
    ...alerts.map((a) => ({ kind: 'alert' as const, id: a.id, key: null, title: a.title, snippet: a.snippet, rank: Number(a.rank) })),
  ];
  // Stable: among equal ranks, cases (newest first) before alerts (newest first), as each query ordered them.
  return hits.sort((x, y) => y.rank - x.rank).slice(0, limit);
}
