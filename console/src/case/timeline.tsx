/**
 * The case timeline (`GET /cases/<id>/timeline`, SPEC.md "Timeline event"), newest first,
 * read again on every `case.updated` frame of the case. A row says what happened in
 * words made from its kind, and shows the fields of its payload an analyst reads.
 */
import { answer, client } from '../api.ts';
import { timelineDetails } from '../format.ts';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

export function Timeline({ caseId }: { caseId: string }) {
  const timeline = useResource(async () => answer(await client.GET('/cases/{id}/timeline', { params: { path: { id: caseId } } })), [caseId], aboutCase(caseId));
  return (
    <section className="panel" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <ErrorNote error={timeline.error} />
      {!timeline.data && !timeline.error && <Loading what="the timeline" />}
      <ol className="plain" data-testid="timeline">
        {[...(timeline.data?.items ?? [])].reverse().map((item) => (
          <li key={item.id}>
            <strong>{item.kind.replace(/[._]/g, ' ')}</strong> <Ago at={item.at} />
            {item.actor && <span className="muted"> by {item.actor}</span>}
            <div className="muted">{timelineDetails(item.payload)}</div>
          </li>
        ))}
      </ol>
    </section>
  );
}
