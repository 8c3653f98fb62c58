/**
 * The case's runbook runs (`GET /cases/<id>/runs`), live: read again when a run of the
 * list changes or a run is queued (`run.updated` frames carry no case id). An analyst
 * starts a manual runbook on the case here (`POST /cases/<id>/runbooks/<slug>/run`;
 * enabled runbooks with a manual trigger, from `GET /runbooks`).
 */
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { Run } from '../api-shapes.ts';
import { type Resource, useResource } from '../resource.ts';
import { Ago, Badge, ErrorNote, Loading } from '../ui.tsx';

function StartRun({ caseId }: { caseId: string }) {
  const navigate = useNavigate();
  const runbooks = useResource(async () => answer(await client.GET('/runbooks')), []);
  const manual = (runbooks.data?.items ?? []).filter((runbook) => runbook.enabled && runbook.trigger.type === 'manual');
  const [slug, setSlug] = useState('');
  const action = useAction();
  const chosen = slug || manual[0]?.id || '';

  const start = () =>
    action.run(
      async () => answer(await client.POST('/cases/{id}/runbooks/{slug}/run', { params: { path: { id: caseId, slug: chosen } }, body: {} })),
      (run) => navigate(`/runs/${run.id}`),
    );

  if (runbooks.data && manual.length === 0) return <p className="muted">No enabled runbook has a manual trigger.</p>;
  return (
    <form
      className="row"
      onSubmit={(event) => {
        event.preventDefault();
        start();
      }}
    >
      <label>
        Runbook
        <select value={chosen} onChange={(event) => setSlug(event.target.value)}>
          {manual.map((runbook) => (
            <option key={runbook.id} value={runbook.id}>
              {runbook.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="primary" disabled={action.busy || chosen === ''}>
        Run on this case
      </button>
      <ErrorNote error={action.error ?? runbooks.error} />
    </form>
  );
}

export function CaseRuns({ caseId, canRun }: { caseId: string; canRun: boolean }) {
  const runs: Resource<{ items: Run[] }> = useResource(
    async () => answer(await client.GET('/cases/{id}/runs', { params: { path: { id: caseId } } })),
    [caseId],
    (frame) => frame.type === 'run.updated' && (frame.event === 'run.queued' || (runs.data?.items ?? []).some((run) => run.id === frame.run_id)),
  );
  return (
    <section className="panel" aria-labelledby="runs-title">
      <h2 id="runs-title">Runs</h2>
      <ErrorNote error={runs.error} />
      {!runs.data && !runs.error && <Loading what="runs" />}
      {runs.data && runs.data.items.length === 0 && <p className="muted">No runbook has run on this case.</p>}
      <ul className="plain" data-testid="case-runs">
        {runs.data?.items.map((run) => (
          <li key={run.id}>
            <Link to={`/runs/${run.id}`}>{run.runbook_id}</Link> <Badge kind="status" value={run.status} /> <span className="muted">{run.trigger_type}</span>{' '}
            <Ago at={run.queued_at} />
          </li>
        ))}
      </ul>
      {canRun && <StartRun caseId={caseId} />}
    </section>
  );
}
