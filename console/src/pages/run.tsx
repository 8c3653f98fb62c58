/**
 * The run page (route `/runs/<id>`, the `href` of an approval): status, the approval
 * gates with approve and deny (for the roles that may decide them, role-matrix.ts), the steps, the containment effects the run caused, an AI
 * explanation on request, and the hash-chained action log with its chain badge (`GET
 * /runs/<id>`: `chain {valid, rows, first_broken_index}` checked by the server). Live: read again on the run's `run.updated` and `approval.updated` frames, so a
 * run is watched to its end without reloading.
 */
import { Link, useParams } from 'react-router';
import { useAction } from '../action.ts';
import { RunExplanation } from '../ai/run-explanation.tsx';
import { answer, client } from '../api.ts';
import type { RunDetail } from '../api-shapes.ts';
import { EffectsPanel } from '../effects/effect-list.tsx';
import { GateDecision } from '../gate-decision.tsx';
import { useResource } from '../resource.ts';
import { Ago, Badge, ErrorNote, Loading } from '../ui.tsx';
import { mayApprove, mayWork } from '../role-matrix.ts';
import { useMe } from '../me.tsx';

export function ChainBadge({ chain }: { chain: RunDetail['chain'] }) {
  return chain.valid ? (
    <span className="badge status-succeeded" data-testid="chain-badge">{`Chain verified: ${chain.rows} rows`}</span>
  ) : (
    <span className="badge status-failed" data-testid="chain-badge">{`Chain broken at row ${chain.first_broken_index ?? '?'}`}</span>
  );
}

const terminal = ['succeeded', 'failed', 'cancelled', 'denied', 'expired'];

export function RunPage() {
  const { id = '' } = useParams();
  const cancel = useAction();
  const me = useMe();
  const run = useResource(
    async () => answer(await client.GET('/runs/{id}', { params: { path: { id } } })),
    [id],
    (frame) => (frame.type === 'run.updated' || frame.type === 'approval.updated') && frame.run_id === id,
  );
  if (run.error && !run.data) return <ErrorNote error={run.error} />;
  if (!run.data) return <Loading what="the run" />;
  const value = run.data;
  const pending = value.gates.filter((gate) => gate.status === 'pending');
  return (
    <>
      <h1>
        Run of <Link to={`/runbooks/${encodeURIComponent(value.runbook_id)}?run=${value.id}`}>{value.runbook_id}</Link>
      </h1>
      <div className="row panel">
        <span data-testid="run-status">
          <Badge kind="status" value={value.status} />
        </span>
        <ChainBadge chain={value.chain} />
        {value.dry_run && <span className="badge">dry run</span>}
        <span>Trigger: {value.trigger_type}</span>
        {value.requested_by && <span>Requested by {value.requested_by}</span>}
        <span>
          Queued <Ago at={value.queued_at} />
        </span>
        {value.case_id && <Link to={`/cases/${value.case_id}`}>Open the case</Link>}
        {!terminal.includes(value.status) && mayWork(me.role) && (
          <button
            type="button"
            disabled={cancel.busy}
            onClick={() => cancel.run(async () => answer(await client.POST('/runs/{id}/cancel', { params: { path: { id: value.id } } })), run.reload)}
          >
            Cancel run
          </button>
        )}
      </div>
      <ErrorNote error={run.error ?? cancel.error} />
      {value.error && <p className="error">{value.error}</p>}
      {pending.length > 0 && (
        <section className="panel" aria-labelledby="gates-title">
          <h2 id="gates-title">Waiting for approval</h2>
          {pending.map((gate) => (
            <div key={gate.step_id}>
              <p>
                Step <strong>{gate.step_id}</strong>: {gate.reason}
                {gate.message ? ` — ${gate.message}` : ''} (roles: {gate.roles.join(', ') || 'any approver'}; expires <Ago at={gate.expires_at} />)
              </p>
              {mayApprove(me.role) ? (
                <GateDecision runId={value.id} stepId={gate.step_id} onDecided={run.reload} />
              ) : (
                <p className="muted">An approver decides this gate.</p>
              )}
            </div>
          ))}
        </section>
      )}
      <section className="panel" aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Status</th>
              <th scope="col">Attempt</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {value.steps.map((step) => (
              <tr key={step.id} data-testid={`step-${step.id}`}>
                <td>{step.id}</td>
                <td>
                  <Badge kind="status" value={step.status} />
                </td>
                <td>{step.attempt}</td>
                <td>{step.error}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <EffectsPanel of={{ run_id: value.id }} />
      <RunExplanation runId={value.id} />
      <section className="panel" aria-labelledby="log-title">
        <h2 id="log-title">Action log</h2>
        {value.action_log.length === 0 && <p className="muted">No step has finished yet.</p>}
        <ol className="plain" data-testid="action-log">
          {value.action_log.map((row) => (
            <li key={row.index}>
              <strong>
                #{row.index} {row.step_id}
              </strong>{' '}
              {row.action && <span className="mono">{row.action}</span>} <Badge kind="status" value={row.status} /> attempt {row.attempt}{' '}
              <Ago at={row.finished_at} />
              {row.error && <div className="error">{row.error}</div>}
              <details>
                <summary>Input, output and hash</summary>
                <pre>{JSON.stringify({ input: row.input, output: row.output }, null, 2)}</pre>
                <div className="mono">hash {row.hash}</div>
              </details>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
