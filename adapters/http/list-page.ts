/**
 * The answer shape of a paged list with `has_more` and an optional capped total
 * (`GET /cases`, `GET /alerts`, `GET /runs`, `GET /effects`; docs/configuration.md "Alert inbox"): `items`,
 * `has_more`, `limit`, `offset`, and with `include_total=true` also `total` and
 * `total_relation` (`eq`, or `gte` when counting stopped at SVC_CASE_LIST_TOTAL_CAP).
 */
import * as v from 'valibot';
import type { Page } from '../../projections/page.ts';

/** The page schema of a list of `item`. */
export function listPageSchema<S extends v.GenericSchema>(item: S) {
  return v.strictObject({
    items: v.array(item),
    has_more: v.boolean(),
    total: v.optional(v.number()),
    total_relation: v.optional(v.picklist(['eq', 'gte'])),
    limit: v.number(),
    offset: v.number(),
  });
}

/** The answer of `page` whose rows became `items`, for the query's `limit` and `offset`. */
export function listPageAnswer<R, T>(page: Page<R>, items: T[], query: { limit: number; offset: number }) {
  const total = page.total && { total: page.total.value, total_relation: page.total.relation };
  return { items, has_more: page.hasMore, ...total, limit: query.limit, offset: query.offset };
}
