/**
 * The alerts a case holds (`GET /cases/<id>/alerts`, newest first): title (a link to the
 * alert), severity, status, source and detection time. With `canEdit` one is unlinked
 * (`DELETE /cases/<id>/alerts/<alert_id>`, after a confirmation; its observables leave the
 * case with it) or split out into a new case of the same team and privacy
 * (`POST /cases/<id>/alerts/<alert_id>/split`), which opens. Re-read when the case changes
 * or an alert listed here does.
 */
import { useId } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client, noContent } from '../api.ts';
import type { Alert } from '../api-shapes.ts';
import type { LiveFrame } from '../live.tsx';
import { readCaseAlerts } from './reads.ts';
import { type Resource, useResource } from '../resource.ts';
import { Ago, Badge, ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

function AlertItem({ caseId, alert, canEdit, onUnlinked }: { caseId: string; alert: Alert; canEdit: boolean; onUnlinked: () => void }) {
  const action = useAction();
  const navigate = useNavigate();
  const split = () => {
    if (!window.confirm(`Split the alert "${alert.title}" out into a new case? Its observables go with it.`)) return;
    action.run(
      async () => answer(await client.POST('/cases/{id}/alerts/{alert_id}/split', { params: { path: { id: caseId, alert_id: alert.id } } })),
      (answered) => navigate(`/cases/${answered.case.id}`),
    );
  };
  const unlink = () => {
    if (!window.confirm(`Unlink the alert "${alert.title}" from this case? Its observables leave the case with it.`)) return;
    action.run(
      async () => noContent(await client.DELETE('/cases/{id}/alerts/{alert_id}', { params: { path: { id: caseId, alert_id: alert.id } } })),
      onUnlinked,
    );
  };
  return (
    <li>
      <div className="row">
        <Link to={`/alerts/${alert.id}`}>{alert.title}</Link>
        <Badge kind="severity" value={alert.severity} />
        <Badge kind="status" value={alert.status} />
      </div>
      <div className="row">
        <span className="muted">
          {alert.source} · {alert.detected_at ? 'detected ' : 'received '}
          <Ago at={alert.detected_at ?? alert.received_at} />
        </span>
        {canEdit && (
          <span className="row">
            <button type="button" onClick={split} disabled={action.busy}>
              Split out<span className="visually-hidden"> {alert.title}</span>
            </button>
            <button type="button" onClick={unlink} disabled={action.busy}>
              Unlink<span className="visually-hidden"> {alert.title}</span>
            </button>
          </span>
        )}
      </div>
      <ErrorNote error={action.error} />
    </li>
  );
}

/** The case's alerts; `canEdit` (the caller may manage cases) shows the unlink buttons. */
export function LinkedAlertsPanel({ caseId, canEdit }: { caseId: string; canEdit: boolean }) {
  const headingId = useId();
  const changed = (frame: LiveFrame): boolean =>
    aboutCase(caseId)(frame) || (frame.type === 'alert.updated' && alerts.data?.items.some((alert) => alert.id === frame.alert_id) === true);
  const alerts: Resource<{ items: Alert[] }> = useResource(() => readCaseAlerts(caseId), [caseId], changed);
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Linked alerts</h2>
      <ErrorNote error={alerts.error} />
      {!alerts.data && !alerts.error && <Loading what="alerts" />}
      {alerts.data?.items.length === 0 && <p className="muted">No alerts linked.</p>}
      <ul className="plain">
        {alerts.data?.items.map((alert) => (
          <AlertItem key={alert.id} caseId={caseId} alert={alert} canEdit={canEdit} onUnlinked={alerts.reload} />
        ))}
      </ul>
    </section>
  );
}
