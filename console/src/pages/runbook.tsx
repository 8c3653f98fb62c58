/**
 * One runbook (`/runbooks/<slug>`): its header, its steps as a graph and its YAML, from
 * `GET /runbooks/<slug>`. With `?run=<run id>` the graph shows that run's step states
 * from `GET /runs/<id>`, read again on each `run.updated` or `approval.updated` frame of
 * the run, so the nodes change colour as it progresses. Its recent runs
 * (`GET /runs?runbook_id=<slug>`, the caller's visible ones) each show on the graph. Its
 * saved versions with a diff between two; an administrator's link to the editor.
 */
import { useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { answer, client } from '../api.ts';
import type { RunDetail, Runbook } from '../api-shapes.ts';
import type { LiveFrame } from '../live.tsx';
import { exactTime } from '../format.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { RunGraph, type StepStates } from '../run-graph.tsx';
import { VersionHistory } from '../runbook-editor/version-history.tsx';
import { Ago, Badge, ErrorNote, Loading } from '../ui.tsx';
import { triggerText } from './runbook-list.tsx';

/**
 * Each step's status in the run. A step held at a gate is still `pending` in `steps`; its
 * latest gate says why: `waiting_approval` while open, else the gate's decision.
 */
function stepStates(run: RunDetail): StepStates {
  const states: StepStates = Object.fromEntries(run.steps.map((step) => [step.id, step.status]));
  const latestGate = new Map(run.gates.map((gate) => [gate.step_id, gate.status]));
  for (const [stepId, gate] of latestGate) if (states[stepId] === 'pending') states[stepId] = gate === 'pending' ? 'waiting_approval' : gate;
  return states;
}

function RunbookHeader({ runbook }: { runbook: Runbook }) {
  return (
    <>
      <h1>{runbook.name}</h1>
      {runbook.description && <p>{runbook.description}</p>}
      <dl className="runbook-facts">
        <dt>Slug</dt>
        <dd className="mono">{runbook.id}</dd>
        <dt>Trigger</dt>
        <dd>{triggerText(runbook.trigger)}</dd>
        <dt>State</dt>
        <dd>{runbook.enabled ? 'enabled' : 'disabled'}</dd>
        <dt>Version</dt>
        <dd>{runbook.version}</dd>
        <dt>Source</dt>
        <dd>{runbook.source}</dd>
        <dt>Updated</dt>
        <dd>
          <Ago at={runbook.updated_at} />
        </dd>
        {runbook.next_fire_at && (
          <>
            <dt>Next run</dt>
            <dd>
              <time dateTime={runbook.next_fire_at}>{exactTime(runbook.next_fire_at)}</time>
            </dd>
          </>
        )}
      </dl>
    </>
  );
}

/** Which run the graph shows, where it stands, and whether it ran this definition. */
function RunSummary({ run, runbook }: { run: RunDetail; runbook: Runbook }) {
  return (
    <div className="panel run-overlay">
      <p role="status">
        Showing run <Link to={`/runs/${run.id}`}>{run.id}</Link>
        {run.dry_run && ' (dry run)'}, queued <Ago at={run.queued_at} />. Status: <Badge kind="status" value={run.status} />
      </p>
      {run.error && <p className="error">{`Run error: ${run.error}`}</p>}
      {run.runbook_id !== runbook.id && (
        <p>
          This run belongs to another runbook: <Link to={`/runbooks/${encodeURIComponent(run.runbook_id)}?run=${run.id}`}>{run.runbook_id}</Link>.
        </p>
      )}
      {run.runbook_id === runbook.id && run.runbook_version !== runbook.version && (
        <p>{`This run used version ${run.runbook_version}; the graph shows version ${runbook.version}, so some steps may differ.`}</p>
      )}
    </div>
  );
}

/** The graph with the live state of run `runId`. */
function RunOverlay({ runbook, runId }: { runbook: Runbook; runId: string }) {
  const ofThisRun = (frame: LiveFrame) => (frame.type === 'run.updated' || frame.type === 'approval.updated') && frame.run_id === runId;
  const run = useResource(async () => answer(await client.GET('/runs/{id}', { params: { path: { id: runId } } })), [runId], ofThisRun);
  const states = useMemo(() => (run.data ? stepStates(run.data) : undefined), [run.data]);
  return (
    <>
      <ErrorNote error={run.error} />
      {!run.data && run.loading && <Loading what="the run" />}
      {run.data && <RunSummary run={run.data} runbook={runbook} />}
      <RunGraph steps={runbook.steps} states={states} label={`Steps of ${runbook.name}, coloured by run status`} />
    </>
  );
}

/** The runbook's 20 newest runs the caller may see, each opening on this page's graph; live on `run.updated`. */
function RecentRuns({ slug }: { slug: string }) {
  const runs = useResource(
    async () => answer(await client.GET('/runs', { params: { query: { runbook_id: slug, limit: 20 } } })),
    [slug],
    (frame) => frame.type === 'run.updated',
  );
  return (
    <section aria-labelledby="recent-runs-title">
      <h2 id="recent-runs-title">Recent runs</h2>
      <ErrorNote error={runs.error} />
      {runs.data?.items.length === 0 && <p className="muted">No run of this runbook yet.</p>}
      <ul className="plain">
        {runs.data?.items.map((run) => (
          <li key={run.id}>
            <Link to={`?run=${run.id}`}>
              Run queued <Ago at={run.queued_at} />
            </Link>{' '}
            <Badge kind="status" value={run.status} /> <span className="muted">{run.trigger_type}</span> <Link to={`/runs/${run.id}`}>action log</Link>
            {run.case_id && (
              <>
                {' '}
                · <Link to={`/cases/${run.case_id}`}>case</Link>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function RunbookPage() {
  const slug = useParams().slug ?? '';
  const runId = useSearchParams()[0].get('run');
  const admin = useMe().role === 'admin';
  const runbook = useResource(async () => answer(await client.GET('/runbooks/{slug}', { params: { path: { slug } } })), [slug]);
  if (!runbook.data) {
    return (
      <>
        <h1>Runbook</h1>
        <ErrorNote error={runbook.error} />
        {runbook.loading && <Loading what="the runbook" />}
      </>
    );
  }
  return (
    <>
      <RunbookHeader runbook={runbook.data} />
      {admin && (
        <p>
          <Link to={`/runbooks/${encodeURIComponent(slug)}/edit`}>{runbook.data.source.startsWith('git') ? 'Open in the editor (read-only)' : 'Edit'}</Link>
        </p>
      )}
      <ErrorNote error={runbook.error} />
      <h2>Steps</h2>
      {runId ? <RunOverlay runbook={runbook.data} runId={runId} /> : <RunGraph steps={runbook.data.steps} label={`Steps of ${runbook.data.name}`} />}
      <RecentRuns slug={slug} />
      <VersionHistory runbook={runbook.data} />
      <h2>YAML</h2>
      <pre className="runbook-yaml">{runbook.data.yaml_text}</pre>
    </>
  );
}
