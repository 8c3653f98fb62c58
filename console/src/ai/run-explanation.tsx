/**
 * The run page's AI explanation (SPEC.md "AI": `POST /ai/runs/<id>/explanation`): on
 * request, what the run did in words, built from its action log only, each step's account
 * marked when the step is not in the log (the model's words, not the record), the outcome,
 * next steps and risks. Never stored: asked again, it is written anew. While AI is off, or
 * its data classes are not allowed, the API's refusal is shown in words.
 */
import { useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { ErrorNote } from '../ui.tsx';

type Explanation = paths['/ai/runs/{id}/explanation']['post']['responses'][200]['content']['application/json']['explanation'];

export function RunExplanation({ runId }: { runId: string }) {
  const [explanation, setExplanation] = useState<Explanation | null>(null);
  const ask = useAction();
  const explain = () =>
    ask.run(
      async () => answer(await client.POST('/ai/runs/{id}/explanation', { params: { path: { id: runId } } })),
      (answered) => setExplanation(answered.explanation),
    );
  return (
    <section className="panel" aria-labelledby="explanation-title">
      <h2 id="explanation-title">Explanation</h2>
      <div className="row">
        <button type="button" disabled={ask.busy} onClick={explain}>
          {explanation ? 'Explain again' : 'Explain this run with AI'}
        </button>
        {ask.busy && <span role="status">Asking…</span>}
      </div>
      <ErrorNote error={ask.error} />
      {explanation && (
        <div data-testid="run-explanation">
          <p className="muted">Written by AI from the action log; the action log below is the record.</p>
          <p>{explanation.summary}</p>
          <ol>
            {explanation.steps.map((step) => (
              <li key={step.step_id}>
                <strong className="mono">{step.step_id}</strong>
                {step.in_log ? '' : ' (not in the action log: unverified)'}: {step.explanation}
              </li>
            ))}
          </ol>
          <p>
            <strong>Outcome:</strong> {explanation.outcome}
          </p>
          {explanation.next_steps.length > 0 && (
            <>
              <h3>Next steps</h3>
              <ul>
                {explanation.next_steps.map((step) => (
                  <li key={step}>{step}</li>
                ))}
              </ul>
            </>
          )}
          {explanation.risks.length > 0 && (
            <>
              <h3>Risks</h3>
              <ul>
                {explanation.risks.map((risk) => (
                  <li key={risk}>{risk}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}
