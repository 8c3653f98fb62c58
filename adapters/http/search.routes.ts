/**
 * `GET /search?q=&limit=` (docs/configuration.md "Search"; issue 50): the cases and alerts
 * whose search document matches `q`, best first, as `{items: [{kind, id, key, title,
 * snippet, rank}]}` (`key` null for an alert), scoped as the case list and the inbox are.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { search } from '../../projections/search/search.queries.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { validate } from './validation.ts';

/** Most hits one search answers. */
export const SEARCH_MAX_LIMIT = 50;

const searchAnswer = v.pipe(
  v.strictObject({
    items: v.array(
      v.strictObject({
        kind: v.picklist(['case', 'alert']),
        id: v.string(),
        key: v.nullable(v.string()),
        title: v.string(),
        snippet: v.string(),
        rank: v.number(),
      }),
    ),
  }),
  v.metadata({ ref: 'SearchResults' }),
);

export type SearchRouteDeps = Pick<HttpDeps, 'db' | 'permissions'>;

export function searchRoutes(deps: SearchRouteDeps) {
  const read = requirePermission('read', 'svc:cases:read', deps.permissions);
  return new Hono<AppEnv>().get(
    '/search',
    describeRoute({
      summary: 'Search case titles, descriptions, comments, task comments, observable and custom field values, and alert titles',
      tags: ['search'],
      responses: { 200: jsonAnswer(searchAnswer, 'The best matches first') },
    }),
    read,
    validate(
      'query',
      v.object({
        q: v.pipe(v.string(), v.trim(), v.minLength(2, 'at least 2 characters'), v.maxLength(200, 'at most 200 characters')),
        limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'a whole number'), v.transform(Number), v.minValue(1), v.maxValue(SEARCH_MAX_LIMIT)), '20'),
      }),
    ),
    async (c) => {
      const { q, limit } = c.req.valid('query');
      const items = await search(deps.db, q, caseScopeOf(c.get('principal'), deps.permissions), limit);
      return c.json({ items } satisfies v.InferOutput<typeof searchAnswer>);
    },
  );
}
