/**
 * Trying a runbook from the editor on a case: a dry run of the draft as it stands
 * (`POST /cases/<id>/runbooks/<slug>/run` with `{dry_run: true, yaml_text}`, nothing saved,
 * every step previewed), or a real run of the saved version once the draft has no unsaved
 * change. The run then shows here, live on its `run.updated` frames: each step's status and
 * its output, which for a dry run is the step's preview of what it would do.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { RunDetail } from '../api-shapes.ts';
import { useResource } from '../resource.ts';
import { Badge, ErrorNote, Loading } from '../ui.tsx';

/** The JSON of `text`, or why it is not a JSON object. */
function inputsOf(text: string): { inputs: Record<string, unknown> } | { problem: string } {
  if (text.trim() === '') return { inputs: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { inputs: value as Record<string, unknown> };
  } catch {
    return { problem: 'Inputs must be JSON.' };
  }
  return { problem: 'Inputs must be a JSON object.' };
}

/** The run the editor started, live: status, then each step with its output (a dry run's preview). */
function TrialResult({ runId, onRun }: { runId: string; onRun: (run: RunDetail) => void }) {
  const run = useResource(
    async () => {
      const found = answer(await client.GET('/runs/{id}', { params: { path: { id: runId } } }));
      onRun(found);
      return found;
    },
    [runId],
    (frame) => (frame.type === 'run.updated' || frame.type === 'approval.updated') && frame.run_id === runId,
  );
  if (!run.data) return run.error ? <ErrorNote error={run.error} /> : <Loading what="the run" />;
  const value = run.data;
  return (
    <div className="trial-result" data-testid="trial-result">
      <p role="status">
        {value.dry_run ? 'Dry run' : 'Run'} of version {value.runbook_version}: <Badge kind="status" value={value.status} />{' '}
        <Link to={`/runs/${value.id}`}>open its action log</Link>
      </p>
      {value.error && <p className="error">{`Run error: ${value.error}`}</p>}
      <table>
        <caption>{value.dry_run ? 'Each step and its preview' : 'Each step and its output'}</caption>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Status</th>
            <th scope="col">{value.dry_run ? 'Preview' : 'Output'}</th>
          </tr>
        </thead>
        <tbody>
          {value.steps.map((step) => (
            <tr key={step.id} data-testid={`trial-step-${step.id}`}>
              <td className="mono">{step.id}</td>
              <td>
                <Badge kind="status" value={step.status} />
              </td>
              <td>
                {step.error && <p className="error">{step.error}</p>}
                {step.output !== null && <pre className="json">{JSON.stringify(step.output, null, 2)}</pre>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The editor's trial panel. `slug` is the draft's id (null while it has none), `text` the
 * draft, `saved` whether the stored runbook is this text; `onRun` hears the trial run's
 * state, for the canvas to colour its steps.
 */
export function TrialRun({ slug, text, saved, onRun }: { slug: string | null; text: string; saved: boolean; onRun: (run: RunDetail | null) => void }) {
  const cases = useResource(async () => answer(await client.GET('/cases', { params: { query: { limit: 50 } } })), []);
  const [caseId, setCaseId] = useState('');
  const [inputsText, setInputsText] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  const start = useAction();
  const chosen = caseId || cases.data?.items[0]?.id || '';
  const parsed = inputsOf(inputsText);

  const trial = (dryRun: boolean) => {
    if (!slug || !chosen || 'problem' in parsed) return;
    onRun(null);
    const body = dryRun ? { dry_run: true, inputs: parsed.inputs, yaml_text: text } : { dry_run: false, inputs: parsed.inputs };
    return start.run(
      async () => answer(await client.POST('/cases/{id}/runbooks/{slug}/run', { params: { path: { id: chosen, slug } }, body })),
      (run) => setRunId(run.id),
    );
  };

  return (
    <section className="panel" aria-labelledby="trial-title">
      <h2 id="trial-title">Try it on a case</h2>
      <ErrorNote error={cases.error} />
      {cases.data?.items.length === 0 && <p className="muted">There is no case to try it on yet.</p>}
      <div className="row">
        <label>
          Case
          <select value={chosen} onChange={(event) => setCaseId(event.target.value)}>
            {cases.data?.items.map((item) => (
              <option key={item.id} value={item.id}>{`${item.key ?? item.id.slice(0, 8)}: ${item.title}`}</option>
            ))}
          </select>
        </label>
        <label>
          Inputs (JSON)
          <input className="mono" value={inputsText} placeholder="{}" onChange={(event) => setInputsText(event.target.value)} />
        </label>
        <button type="button" className="primary" disabled={start.busy || !slug || !chosen || 'problem' in parsed} onClick={() => trial(true)}>
          Dry run the draft
        </button>
        <button
          type="button"
          disabled={start.busy || !slug || !chosen || !saved || 'problem' in parsed}
          title={saved ? undefined : 'Save the draft first'}
          onClick={() => trial(false)}
        >
          Run the saved runbook
        </button>
      </div>
      {'problem' in parsed && <p className="error">{parsed.problem}</p>}
      {!slug && <p className="muted">Give the runbook an id to try it.</p>}
      <ErrorNote error={start.error} />
      {runId && <TrialResult runId={runId} onRun={onRun} />}
    </section>
  );
}
