/**
 * The case timeline (`GET /cases/<id>/timeline`, SPEC.md "Timeline event"), newest first,
 * read again on every `case.updated` frame of the case. A row says what happened in
 * words made from its kind, and shows the fields of its payload an analyst reads.
 */
import { api } from '../api.ts';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

type TimelineItem = { id: string; kind: string; payload: unknown; actor: string | null; at: string };

const shownFields = [
  'status',
  'note',
  'owner_email',
  'title',
  'severity',
  'verdict',
  'added',
  'removed',
  'alert_id',
  'value',
  'type',
  'step_id',
  'runbook_id',
  'remote_key',
];

/** The payload fields worth a line, as `field: value` pairs. */
export function timelineDetails(payload: unknown): string {
  if (!payload || typeof payload !== 'object') return '';
  const record = payload as Record<string, unknown>;
  return shownFields
    .filter((field) => record[field] !== undefined && record[field] !== null && record[field] !== '')
    .map((field) => `${field.replace(/_/g, ' ')}: ${Array.isArray(record[field]) ? (record[field] as unknown[]).join(', ') : String(record[field])}`)
    .join(' · ');
}

export function Timeline({ caseId }: { caseId: string }) {
  const timeline = useResource(() => api<{ items: TimelineItem[] }>(`/cases/${caseId}/timeline`), [caseId], aboutCase(caseId));
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
