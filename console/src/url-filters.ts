/**
 * `useUrlFilters`: a list page's filters and page offset, kept in the URL query so a
 * filtered page can be linked to and survives a reload. `read` takes the filters from the
 * query (each a string, `''` for none); `apply` writes them back, leaving out empty ones
 * and those equal to `defaults` (the page's own default, such as the containment page's
 * "in force or stuck"), and starts at `offset` (0 leaves it out). `key` changes with the
 * query, for a list to start afresh.
 */
import { useSearchParams } from 'react-router';

export function useUrlFilters<F extends Record<string, string>>(read: (params: URLSearchParams) => F, defaults: Partial<F> = {}) {
  const [params, setParams] = useSearchParams();
  const filters = read(params);
  const offset = Math.max(0, Math.floor(Number(params.get('offset')) || 0));
  const apply = (next: F, nextOffset = 0) => {
    const query = new URLSearchParams(Object.entries(next).filter(([name, value]) => value !== '' && value !== defaults[name]));
    if (nextOffset > 0) query.set('offset', String(nextOffset));
    setParams(query);
  };
  return { filters, offset, apply, key: params.toString() };
}
