/**
 * The case timeline (`GET /cases/<id>/timeline`, SPEC.md "Timeline event"), newest first,
 * read again on every `case.updated` frame of the case. A row says what happened in
 * words made from its kind, and shows the fields of its payload an analyst reads. The
 * kinds it holds can be narrowed to one (`?timeline_kind=` in the URL, so a filtered
 * timeline can be linked to).
 */
import { useSearchParams } from 'react-router';
import { answer, client } from '../api.ts';
import { timelineDetails } from '../format.ts';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

/** A kind as words: `attack_techniques_updated` reads `attack techniques updated`. */
const kindWords = (kind: string) => kind.replace(/[._]/g, ' ');

export function Timeline({ caseId }: { caseId: string }) {
  const timeline = useResource(async () => answer(await client.GET('/cases/{id}/timeline', { params: { path: { id: caseId } } })), [caseId], aboutCase(caseId));
  const [params, setParams] = useSearchParams();
  const kind = params.get('timeline_kind') ?? '';
  const items = timeline.data?.items ?? [];
  const kinds = [...new Set([...items.map((item) => item.kind), ...(kind ? [kind] : [])])].sort();
  const choose = (next: string) =>
    setParams(
      (previous) => {
        const query = new URLSearchParams(previous);
        if (next) query.set('timeline_kind', next);
        else query.delete('timeline_kind');
        return query;
      },
      { replace: true },
    );
  const shown = kind ? items.filter((item) => item.kind === kind) : items;
  return (
    <section className="panel" aria-labelledby="timeline-title">
      <div className="row">
        <h2 id="timeline-title">Timeline</h2>
        <label>
          Kind
          <select value={kind} onChange={(event) => choose(event.target.value)}>
            <option value="">All</option>
            {kinds.map((k) => (
              <option key={k} value={k}>
                {kindWords(k)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote error={timeline.error} />
      {!timeline.data && !timeline.error && <Loading what="the timeline" />}
      {timeline.data && shown.length === 0 && <p className="muted">Nothing of this kind on the timeline.</p>}
      <ol className="plain" data-testid="timeline">
        {[...shown].reverse().map((item) => (
          <li key={item.id}>
            <strong>{kindWords(item.kind)}</strong> <Ago at={item.at} />
            {item.actor && <span className="muted"> by {item.actor}</span>}
            <div className="muted">{timelineDetails(item.payload)}</div>
          </li>
        ))}
      </ol>
    </section>
  );
}
