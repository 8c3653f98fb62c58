/**
 * AI triage on the case page (SPEC.md "AI": `GET`, `POST /cases/<id>/ai-triage`, `POST
 * .../feedback`): the advisory verdict, its confidence and rationale, the evidence it
 * cites (each a link to the alert or observable it names; references to nothing the model
 * was sent are listed apart as unverified), the runbook it suggests, and the analyst's own
 * judgement of it. Asking is `manage_cases` in the case's team; while AI is off the
 * panel says so, and a request made anyway shows the API's refusal in words. The verdict
 * never changes the case: a person acts on it.
 */
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { readCaseAlerts, readCaseObservables } from './reads.ts';
import { useResource } from '../resource.ts';
import { ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

type Feedback = paths['/cases/{id}/ai-triage/feedback']['post']['requestBody']['content']['application/json'];
type Verdict = Feedback['analyst_verdict'];
type Triage = NonNullable<paths['/cases/{id}/ai-triage']['get']['responses'][200]['content']['application/json']>;

const VERDICT_WORDS: Record<Verdict, string> = {
  true_positive: 'True positive',
  benign_positive: 'Benign positive',
  false_positive: 'False positive',
  undetermined: 'Undetermined',
};

/** What an evidence reference names on this case: an alert, an observable, the case itself, or nothing known. */
type RefTarget = { kind: 'alert'; id: string; label: string } | { kind: 'observable'; label: string } | { kind: 'case' } | null;

/**
 * The case's alerts and observables by id, to name what a reference points at; read only
 * while a verdict cites evidence (`wanted`), so a case without one costs no extra reads, and
 * shared with the alerts and observables panels when they read at the same time (reads.ts).
 */
function useRefTargets(caseId: string, wanted: boolean) {
  return useResource(
    async () => {
      if (!wanted) return new Map<string, RefTarget>();
      const [alerts, observables] = await Promise.all([readCaseAlerts(caseId), readCaseObservables(caseId)]);
      const targets = new Map<string, RefTarget>();
      for (const alert of alerts.items) targets.set(alert.id, { kind: 'alert', id: alert.id, label: alert.title });
      for (const observable of observables.items) targets.set(observable.id, { kind: 'observable', label: `${observable.type} ${observable.value}` });
      return targets;
    },
    [caseId, wanted],
    aboutCase(caseId),
  );
}

function EvidenceRef({ reference, target }: { reference: string; target: RefTarget | undefined }) {
  if (target?.kind === 'alert') return <Link to={`/alerts/${target.id}`}>{`alert: ${target.label}`}</Link>;
  if (target?.kind === 'observable') return <a href="#observables">{`observable: ${target.label}`}</a>;
  if (target?.kind === 'case') return <a href="#timeline-title">this case</a>;
  return <span className="mono">{reference}</span>;
}

export function AiTriagePanel({ caseId, caseKey, canEdit }: { caseId: string; caseKey: string | null; canEdit: boolean }) {
  const status = useResource(async () => answer(await client.GET('/settings/ai/status')), []);
  const triage = useResource(async () => answer(await client.GET('/cases/{id}/ai-triage', { params: { path: { id: caseId } } })), [caseId], aboutCase(caseId));
  const targets = useRefTargets(caseId, (triage.data?.evidence_refs.length ?? 0) > 0);
  const [note, setNote] = useState('');
  const ask = useAction();
  const request = (event: FormEvent) => {
    event.preventDefault();
    return ask.run(
      async () => answer(await client.POST('/cases/{id}/ai-triage', { params: { path: { id: caseId } }, body: { note: note.trim() || null } })),
      () => {
        setNote('');
        triage.reload();
      },
    );
  };
  const targetOf = (reference: string): RefTarget | undefined =>
    reference === caseId || reference === caseKey ? { kind: 'case' } : targets.data?.get(reference);
  return (
    <section className="panel" aria-labelledby="ai-triage-title" data-testid="ai-triage">
      <h2 id="ai-triage-title">AI triage</h2>
      {status.data && !status.data.enabled && <p className="muted">AI is off for this install: an administrator turns it on in the identity service.</p>}
      <ErrorNote error={triage.error} />
      {!triage.data && !triage.error && <Loading what="the AI triage" />}
      {triage.data === null && <p className="muted">Not triaged by AI yet.</p>}
      {triage.data && <TriageRecord value={triage.data} targetOf={targetOf} caseId={caseId} canEdit={canEdit} onChanged={triage.reload} />}
      {canEdit && (
        <form className="settings-form" onSubmit={request}>
          <label>
            Note for the AI
            <textarea
              rows={2}
              maxLength={2000}
              value={note}
              placeholder="optional: what you know that the case does not say"
              onChange={(event) => setNote(event.target.value)}
            />
          </label>
          <div className="row">
            <button type="submit" className="primary" disabled={ask.busy}>
              {triage.data ? 'Triage again' : 'Ask AI to triage'}
            </button>
            {ask.busy && <span role="status">Asking…</span>}
          </div>
          <ErrorNote error={ask.error} />
        </form>
      )}
    </section>
  );
}

function TriageRecord({
  value,
  targetOf,
  caseId,
  canEdit,
  onChanged,
}: {
  value: Triage;
  targetOf: (reference: string) => RefTarget | undefined;
  caseId: string;
  canEdit: boolean;
  onChanged: () => void;
}) {
  if (value.state === 'pending') return <p role="status">The AI is triaging this case…</p>;
  if (value.state === 'failed') return <p className="error">{`The last AI triage failed: ${value.error_code ?? 'no reason given'}.`}</p>;
  return (
    <div data-testid="ai-triage-record">
      <p role="status">
        <strong>{value.verdict ? VERDICT_WORDS[value.verdict] : 'No verdict'}</strong>
        {value.confidence !== null && `, confidence ${Math.round(value.confidence * 100)}%`}
        <span className="muted">{` (advice from ${value.model ?? 'the model'}; it changes nothing on the case)`}</span>
      </p>
      {value.rationale && <p className="rationale">{value.rationale}</p>}
      {value.evidence_refs.length > 0 && (
        <>
          <h3>Evidence it cites</h3>
          <ul data-testid="ai-evidence">
            {value.evidence_refs.map((reference) => (
              <li key={reference}>
                <EvidenceRef reference={reference} target={targetOf(reference)} />
              </li>
            ))}
          </ul>
        </>
      )}
      {value.unverified_evidence_refs.length > 0 && (
        <>
          <h3>Unverified references</h3>
          <p className="muted">The model named these, but they are not among the data it was sent: do not rely on them.</p>
          <ul data-testid="ai-unverified">
            {value.unverified_evidence_refs.map((reference) => (
              <li key={reference} className="mono">
                {`${reference} (unverified)`}
              </li>
            ))}
          </ul>
        </>
      )}
      {value.suggested_runbook && (
        <p>
          Suggested runbook: <Link to={`/runbooks/${value.suggested_runbook}`}>{value.suggested_runbook}</Link>
        </p>
      )}
      {canEdit && <FeedbackForm caseId={caseId} mine={value.my_feedback} onSaved={onChanged} />}
    </div>
  );
}

/** The analyst's judgement of the verdict: one per analyst, a repeat replaces it. */
function FeedbackForm({ caseId, mine, onSaved }: { caseId: string; mine: Triage['my_feedback']; onSaved: () => void }) {
  const [verdict, setVerdict] = useState<Verdict>((mine?.analyst_verdict as Verdict | undefined) ?? 'true_positive');
  const [note, setNote] = useState(mine?.note ?? '');
  const action = useAction();
  const save = (event: FormEvent) => {
    event.preventDefault();
    return action.run(
      async () =>
        answer(
          await client.POST('/cases/{id}/ai-triage/feedback', {
            params: { path: { id: caseId } },
            body: { analyst_verdict: verdict, note: note.trim() || null },
          }),
        ),
      onSaved,
    );
  };
  return (
    <form className="row" aria-label="My judgement of the AI verdict" onSubmit={save}>
      <label>
        My verdict
        <select value={verdict} onChange={(event) => setVerdict(event.target.value as Verdict)}>
          {(Object.keys(VERDICT_WORDS) as Verdict[]).map((choice) => (
            <option key={choice} value={choice}>
              {VERDICT_WORDS[choice]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Why
        <input type="text" maxLength={2000} value={note} onChange={(event) => setNote(event.target.value)} />
      </label>
      <button type="submit" disabled={action.busy}>
        {mine ? 'Change my judgement' : 'Give my judgement'}
      </button>
      {mine && (
        <span className="muted" data-testid="my-judgement">{`You judged it: ${VERDICT_WORDS[mine.analyst_verdict as Verdict] ?? mine.analyst_verdict}.`}</span>
      )}
      <ErrorNote error={action.error} />
    </form>
  );
}
