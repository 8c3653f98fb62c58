/**
 * The ranking of `GET /peer/v1/search` (SPEC.md "Peer endpoints"), as pure functions: what
 * a query names exactly, the LIKE patterns of its prefix and contains tiers, and the merge
 * of the per-kind hit lists into one list, best match first.
 *
 * Tiers: 1 exact (case number or key, case id, runbook slug), 2 title/name/slug prefix,
 * 3 containing the query; matching is case-insensitive (the SQL lowers both sides).
 */
import { validate as isUuid } from 'uuid';

export type MatchTier = 1 | 2 | 3;

export type SearchTerms = {
  /** The trimmed query. */
  text: string;
  /** The case key an exact case number or key names (`SVC-12` for `12`, `svc-12` or `SVC-012`), else null. */
  caseKey: string | null;
  /** The query as a lower-case case id when it is a UUID, else null. */
  caseId: string | null;
  /** LIKE pattern of "starts with the query" (wildcards of the query escaped). */
  prefix: string;
  /** LIKE pattern of "contains the query" (wildcards of the query escaped). */
  contains: string;
};

/** `text` with LIKE's wildcards and escape character escaped (backslash, PostgreSQL's default escape). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (m) => `\\${m}`);
}

/**
 * The terms of query `q` (already trimmed, 2 to 100 characters) for cases keyed
 * `<keyPrefix>-<number>`.
 * @example searchTerms('svc-0042', 'SVC').caseKey === 'SVC-42'
 */
export function searchTerms(q: string, keyPrefix: string): SearchTerms {
  const keyed = new RegExp(`^(?:${escapeRegExp(keyPrefix)}-)?0*(\\d+)$`, 'i').exec(q);
  const escaped = escapeLike(q);
  return {
    text: q,
    caseKey: keyed ? `${keyPrefix}-${keyed[1]}` : null,
    caseId: isUuid(q) ? q.toLowerCase() : null,
    prefix: `${escaped}%`,
    contains: `%${escaped}%`,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A hit of one kind with the tier it matched in; `key` tells hits apart across kinds. */
export type RankedHit<T> = { tier: MatchTier; key: string; item: T };

/**
 * One list of at most `limit` items, best tier first, from per-kind lists each already in
 * its own order (tier first). Within a tier the lists keep the order given, earlier lists
 * first; an item found in several tiers stays only at its best one.
 */
export function mergeRanked<T>(lists: readonly (readonly RankedHit<T>[])[], limit: number): T[] {
  const all = lists.flatMap((list, listIndex) => list.map((hit, index) => ({ hit, listIndex, index })));
  all.sort((a, b) => a.hit.tier - b.hit.tier || a.listIndex - b.listIndex || a.index - b.index);
  const seen = new Set<string>();
  const out: T[] = [];
  for (const { hit } of all) {
    if (out.length === limit) break;
    if (seen.has(hit.key)) continue;
    seen.add(hit.key);
    out.push(hit.item);
  }
  return out;
}
