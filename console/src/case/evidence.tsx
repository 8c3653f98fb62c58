/**
 * The evidence pinned on a case (`GET /cases/<id>/evidence`, newest first): what each pin
 * references (a timeline item, observable, attachment, run step or link), its note, who
 * pinned it and when. With `canEdit` a link, an observable or an attachment of the case is
 * pinned with a note (`POST /cases/<id>/evidence`; the items offered are read from
 * `GET /cases/<id>/observables` and `GET /cases/<id>/attachments`). The API has no unpin.
 */
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, apiUrl, client } from '../api.ts';
import type { EvidenceKind, EvidencePin } from '../api-shapes.ts';
import { readCaseObservables } from './reads.ts';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

/** The kinds of pin the form makes. */
type PinKind = Extract<EvidenceKind, 'link' | 'observable' | 'attachment'>;
const isPinKind = (value: string): value is PinKind => value === 'link' || value === 'observable' || value === 'attachment';
/** An item of the case offered for a pin. */
type Choice = { id: string; label: string };

/** What a pin points at, in words, with a link where there is one. */
function PinTarget({ caseId, pin }: { caseId: string; pin: EvidencePin }) {
  const ref = pin.ref;
  if (pin.url !== null) {
    return (
      <a href={pin.url} target="_blank" rel="noreferrer">
        {pin.url}
      </a>
    );
  }
  if (ref === null) return <span className="muted">{`A ${pin.kind.replace('_', ' ')} item that is no longer there`}</span>;
  if ('filename' in ref) return <a href={apiUrl(`/cases/${caseId}/attachments/${pin.ref_id}/download`)}>{`Attachment ${ref.filename}`}</a>;
  if ('value' in ref) return <span>{`Observable ${ref.type} ${ref.value}${ref.removed ? ' (since removed from the case)' : ''}`}</span>;
  if ('run_id' in ref) {
    const step = `Step ${ref.step_id}${ref.action ? ` (${ref.action})` : ''} of a run${ref.status ? `, ${ref.status}` : ''}`;
    return <Link to={`/runs/${ref.run_id}`}>{step}</Link>;
  }
  return (
    <span>
      {`Timeline: ${ref.kind.replace(/_/g, ' ')}${ref.actor ? ` by ${ref.actor}` : ''}, `}
      <Ago at={ref.at} />
    </span>
  );
}

/** The observables or attachments of the case, as choices for a pin. */
async function loadChoices(caseId: string, kind: Exclude<PinKind, 'link'>): Promise<Choice[]> {
  const params = { path: { id: caseId } };
  if (kind === 'observable') {
    return (await readCaseObservables(caseId)).items.map((item) => ({ id: item.id, label: `${item.type}: ${item.value}` }));
  }
  return answer(await client.GET('/cases/{id}/attachments', { params })).items.map((item) => ({ id: item.id, label: item.filename }));
}

function ItemPicker({ caseId, kind, value, onChange }: { caseId: string; kind: Exclude<PinKind, 'link'>; value: string; onChange: (id: string) => void }) {
  const choices = useResource(() => loadChoices(caseId, kind), [caseId, kind], aboutCase(caseId));
  return (
    <>
      <label>
        {kind === 'observable' ? 'Observable' : 'Attachment'}
        <select value={value} onChange={(event) => onChange(event.target.value)} required>
          <option value="">{choices.data?.length === 0 ? `The case has no ${kind}s` : 'Choose…'}</option>
          {choices.data?.map((choice) => (
            <option key={choice.id} value={choice.id}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
      <ErrorNote error={choices.error} />
    </>
  );
}

function PinForm({ caseId, onPinned }: { caseId: string; onPinned: () => void }) {
  const [kind, setKind] = useState<PinKind>('link');
  const [target, setTarget] = useState('');
  const [note, setNote] = useState('');
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = kind === 'link' ? { kind, url: target.trim(), note } : { kind, ref_id: target, note };
    action.run(
      async () => answer(await client.POST('/cases/{id}/evidence', { params: { path: { id: caseId } }, body })),
      () => {
        setTarget('');
        setNote('');
        onPinned();
      },
    );
  };
  return (
    <form onSubmit={submit} className="stack">
      <h3>Pin evidence</h3>
      <div className="row">
        <label>
          What to pin
          <select
            value={kind}
            onChange={(event) => {
              const next = event.target.value;
              if (isPinKind(next)) setKind(next);
              setTarget('');
            }}
          >
            <option value="link">a link</option>
            <option value="observable">an observable</option>
            <option value="attachment">an attachment</option>
          </select>
        </label>
        {kind === 'link' ? (
          <label>
            URL
            <input type="url" value={target} onChange={(event) => setTarget(event.target.value)} placeholder="https://" required />
          </label>
        ) : (
          <ItemPicker caseId={caseId} kind={kind} value={target} onChange={setTarget} />
        )}
      </div>
      <label>
        Note (why it matters)
        <textarea value={note} onChange={(event) => setNote(event.target.value)} maxLength={2000} rows={2} required />
      </label>
      <ErrorNote error={action.error} />
      <button type="submit" className="primary" disabled={action.busy || target.trim() === '' || note.trim() === ''}>
        Pin
      </button>
    </form>
  );
}

/** The case's evidence pins; `canEdit` (the caller may manage cases) shows the pin form. */
export function EvidencePanel({ caseId, canEdit }: { caseId: string; canEdit: boolean }) {
  const headingId = useId();
  const pins = useResource(async () => answer(await client.GET('/cases/{id}/evidence', { params: { path: { id: caseId } } })), [caseId], aboutCase(caseId));
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Evidence</h2>
      <ErrorNote error={pins.error} />
      {!pins.data && !pins.error && <Loading what="evidence" />}
      {pins.data?.items.length === 0 && <p className="muted">Nothing pinned yet.</p>}
      <ul className="plain">
        {pins.data?.items.map((pin) => (
          <li key={pin.id}>
            <PinTarget caseId={caseId} pin={pin} />
            <p className="pin-note">{pin.note}</p>
            <span className="muted">
              Pinned by {pin.pinned_by ?? 'someone'}, <Ago at={pin.pinned_at} />
            </span>
          </li>
        ))}
      </ul>
      {canEdit && <PinForm caseId={caseId} onPinned={pins.reload} />}
    </section>
  );
}
