/**
 * The ranking of peer search (SPEC.md "Peer endpoints" `GET /peer/v1/search`): what a query
 * names exactly, its LIKE patterns, and the merge of the per-kind lists.
 */
import { describe, expect, it } from 'vitest';
import { escapeLike, mergeRanked, searchTerms, type RankedHit } from '../../../projections/peer/search-ranking.ts';

describe('searchTerms', () => {
  it('reads a case number or key, in any case and with leading zeros, as the key', () => {
    expect(searchTerms('12', 'SVC').caseKey).toBe('SVC-12');
    expect(searchTerms('svc-12', 'SVC').caseKey).toBe('SVC-12');
    expect(searchTerms('SVC-0012', 'SVC').caseKey).toBe('SVC-12');
    expect(searchTerms('ABC-12', 'SVC').caseKey).toBeNull();
    expect(searchTerms('SVC-12a', 'SVC').caseKey).toBeNull();
    expect(searchTerms('phishing', 'SVC').caseKey).toBeNull();
  });

  it('reads a UUID as a case id, lower-cased', () => {
    expect(searchTerms('3F2504E0-4F89-41D3-9A0C-0305E82C3301', 'SVC').caseId).toBe('3f2504e0-4f89-41d3-9a0c-0305e82c3301');
    expect(searchTerms('3f2504e0-4f89', 'SVC').caseId).toBeNull();
  });

  it('escapes LIKE wildcards, so % and _ match themselves', () => {
    expect(escapeLike('50%_off\\')).toBe('50\\%\\_off\\\\');
    expect(searchTerms('a%b_', 'SVC')).toMatchObject({ prefix: 'a\\%b\\_%', contains: '%a\\%b\\_%' });
  });
});

describe('mergeRanked', () => {
  const hit = (tier: 1 | 2 | 3, key: string): RankedHit<string> => ({ tier, key, item: key });

  it('orders by tier, then the lists in the order given, each keeping its own order', () => {
    const runbooks = [hit(1, 'rb-exact'), hit(3, 'rb-contains')];
    const cases = [hit(2, 'case-new'), hit(2, 'case-old'), hit(3, 'case-contains')];
    expect(mergeRanked([runbooks, cases], 10)).toEqual(['rb-exact', 'case-new', 'case-old', 'rb-contains', 'case-contains']);
  });

  it('keeps an item once, at its best tier', () => {
    expect(
      mergeRanked(
        [
          [hit(2, 'a'), hit(1, 'b')],
          [hit(1, 'a'), hit(3, 'b')],
        ],
        10,
      ),
    ).toEqual(['b', 'a']);
  });

  it('answers at most `limit` items', () => {
    const many = Array.from({ length: 15 }, (_, i) => hit(3, `c${i}`));
    expect(mergeRanked([[hit(1, 'first')], many], 10)).toEqual(['first', ...many.slice(0, 9).map((h) => h.item)]);
  });
});
