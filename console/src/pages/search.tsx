/**
 * Search (route `/search?q=`; `GET /search`): the cases and alerts whose words match, best
 * first, each with its snippet, linking to the case or the alert. The query is typed in the
 * header's search box (app.tsx) or here; it lives in the URL, so a search can be shared.
 */
import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { answer, client } from '../api.ts';
import { useResource } from '../resource.ts';
import { ErrorNote, Loading } from '../ui.tsx';

/** Shortest query the API takes. */
const MIN_QUERY = 2;

export function SearchPage() {
  const [params, setParams] = useSearchParams();
  const q = (params.get('q') ?? '').trim();
  const [draft, setDraft] = useState(q);
  const inputId = useId();
  const hits = useResource(
    async () => (q.length < MIN_QUERY ? { items: [] } : answer(await client.GET('/search', { params: { query: { q, limit: '50' } } }))),
    [q],
  );
  return (
    <>
      <h1>Search</h1>
      <search>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            setParams({ q: draft.trim() });
          }}
        >
          <label htmlFor={inputId}>Words</label>
          <input id={inputId} type="search" value={draft} minLength={MIN_QUERY} maxLength={200} onChange={(event) => setDraft(event.target.value)} />
          <button type="submit">Search</button>
        </form>
      </search>
      <p className="muted">
        Titles, descriptions, comments, task comments, observable and custom field values, and alert titles. "Quoted words" in order, -word excluded.
      </p>
      <ErrorNote error={hits.error} />
      {q.length >= MIN_QUERY && !hits.data && !hits.error && <Loading what="matches" />}
      {q.length >= MIN_QUERY && hits.data?.items.length === 0 && <p className="muted">Nothing matches “{q}”.</p>}
      <ul className="plain" data-testid="search-hits">
        {hits.data?.items.map((hit) => (
          <li key={`${hit.kind}:${hit.id}`} data-testid="search-hit">
            <div className="row">
              <Link to={hit.kind === 'case' ? `/cases/${hit.id}` : `/alerts/${hit.id}`}>{hit.key ? `${hit.key} ${hit.title}` : hit.title}</Link>
              <span className="muted">{hit.kind}</span>
            </div>
            {hit.snippet !== '' && <p className="muted">{hit.snippet}</p>}
          </li>
        ))}
      </ul>
    </>
  );
}
