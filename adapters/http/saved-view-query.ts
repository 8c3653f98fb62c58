/**
 * `?view=<id>` on `GET /cases` and `GET /alerts` (docs/configuration.md "Saved views"): the
 * view's stored filters, checked again by the list's own filter schema (a view saved before
 * the install's vocabulary changed answers 422 rather than a silently wider list), with the
 * request's paging. A request that names a view and filters too is refused: it would not be
 * clear which one answers.
 */
import * as v from 'valibot';
import { ValidationFailed } from '../../domain/shared/errors.ts';
import type { Principal } from '../identity/principal.ts';
import type { ViewResource, ViewStore } from '../views/store.ts';
import { viewReaderOf } from './views.routes.ts';

/**
 * The filters `query` stands for: its own, or, with `view`, the view's.
 *
 * @throws DomainError 404 `view_not_found` for a view the caller cannot see (or none);
 *   ValidationFailed 422 at `query.view` for a view of the other list, filters sent beside
 *   a view, or a stored query the list no longer accepts.
 */
export async function filtersWithView<F extends Record<string, v.GenericSchema>, Q extends { view?: string | undefined }>(
  views: ViewStore,
  principal: Principal,
  resource: ViewResource,
  filters: F,
  query: Q,
): Promise<Q> {
  if (query.view === undefined) return query;
  const named = Object.keys(filters).filter((key) => (query as Record<string, unknown>)[key] !== undefined);
  if (named.length > 0) throw refused(`send either a view or filters, not both (${named.join(', ')})`);
  const view = await views.find(viewReaderOf(principal), query.view);
  if (view.resource !== resource) throw refused(`names a view of ${view.resource}, not of ${resource}`);
  const stored = v.safeParse(v.strictObject(filters), view.query);
  if (!stored.success) throw refused(`the view's saved query is no longer valid: ${stored.issues.map((i) => i.message).join('; ')}`);
  return { ...query, ...stored.output };
}

const refused = (msg: string) => new ValidationFailed([{ loc: ['query', 'view'], msg, type: 'value_error' }]);
