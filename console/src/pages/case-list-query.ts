/**
 * What the case list (`/cases`, pages/case-list.tsx) reads first, apart from the page so
 * boot.ts can start that read before React and the page's code have loaded: its filters
 * from the URL query, and its first page of `GET /cases` with the total.
 */
import { answer, client } from '../api.ts';
import type { CasePage } from '../api-shapes.ts';
import { startFirstRead } from '../first-reads.ts';

/** The list's filters, as the URL query names them; `''` is no filter. */
export type Filters = { status: string; severity: string; owner: string; search: string };

/** Rows read per request (the API allows up to 200). */
export const PAGE_SIZE = 100;

export const filtersOf = (params: URLSearchParams): Filters => ({
  status: params.get('status') ?? '',
  severity: params.get('severity') ?? '',
  owner: params.get('owner') ?? '',
  search: params.get('search') ?? '',
});

export const paramsOf = (filters: Filters): URLSearchParams => new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));

/** The first page of the cases matching `filters`, with their total. */
export const readFirstPage = async (filters: Filters): Promise<CasePage> =>
  answer(await client.GET('/cases', { params: { query: { ...filters, include_total: 'true', limit: PAGE_SIZE, offset: 0 } } }));

/** The first-reads.ts key of the first page for `filters`. */
export const firstPageKey = (filters: Filters): string => `cases?${paramsOf(filters).toString()}`;

/** Starts the first page of the list that `search` (a URL's query) names, before the console renders (first-reads.ts). */
export function startFirstCasePage(search: string): void {
  const filters = filtersOf(new URLSearchParams(search));
  startFirstRead(firstPageKey(filters), () => readFirstPage(filters));
}
