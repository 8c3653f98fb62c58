/**
 * One page of a list query with `has_more` and an optional capped `total`, the paging of
 * `GET /cases`, `GET /alerts`, `GET /runs` and `GET /effects` (docs/configuration.md "Alert inbox"; SPEC.md keeps
 * `limit`/`offset`). The page reads one row past `limit` to know whether another exists.
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from './database.ts';

/** How `total` relates to the true count, as Elasticsearch's `hits.total.relation`. */
export type TotalRelation = 'eq' | 'gte';
export type Page<R> = { items: R[]; hasMore: boolean; total?: { value: number; relation: TotalRelation } };

/**
 * The page `rows(limit + 1)` reads (ordered and offset by the caller), and, when `totalCap`
 * is given, how many rows `filtered` matches, counted only up to the cap: an exact count of
 * a broad filter over 100k rows costs many times the page itself (bench/case-list.ts), so
 * above the cap `total` is the cap with relation `gte`.
 */
export async function cappedPage<R, TB extends keyof Database>(
  db: Kysely<Database>,
  filtered: SelectQueryBuilder<Database, TB, object>,
  rows: (take: number) => Promise<R[]>,
  limit: number,
  totalCap: number | null,
): Promise<Page<R>> {
  const [read, counted] = await Promise.all([
    rows(limit + 1),
    totalCap === null
      ? null
      : db
          .selectFrom(
            filtered
              .select(sql.lit(1).as('one'))
              .limit(totalCap + 1)
              .as('capped'),
          )
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
  ]);
  const page: Page<R> = { items: read.slice(0, limit), hasMore: read.length > limit };
  if (totalCap === null || counted === null) return page;
  const n = Number(counted.n);
  return { ...page, total: n > totalCap ? { value: totalCap, relation: 'gte' } : { value: n, relation: 'eq' } };
}
