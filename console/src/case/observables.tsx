/**
 * The observables of a case (`GET /cases/<id>/observables`): type, value, and whether it
 * came with an alert of the case, and the other cases the caller may see holding the same
 * value (`cross_case_hits`, each a link). With `canEdit` one is added
 * (`POST /cases/<id>/observables`) and a hand-added one removed
 * (`DELETE /cases/<id>/observables/<observable_id>`; one from an alert leaves with the alert).
 */
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client, noContent } from '../api.ts';
import type { Observable, ObservableType } from '../api-shapes.ts';
import { readCaseObservables } from './reads.ts';
import { useResource } from '../resource.ts';
import { Badge, ErrorNote, Loading } from '../ui.tsx';
import { aboutCase } from './types.ts';

/** The observable types the API accepts. */
const types: readonly ObservableType[] = ['ip', 'domain', 'hostname', 'url', 'email', 'md5', 'sha1', 'sha256', 'user', 'other'];
const isObservableType = (value: string): value is ObservableType => types.some((type) => type === value);

function OtherCases({ hits }: { hits: Observable['cross_case_hits'] }) {
  if (hits.length === 0) return null;
  return (
    <p>
      Also in:{' '}
      {hits.map((hit, index) => (
        <span key={hit.case_id}>
          {index > 0 && ', '}
          <Link to={`/cases/${hit.case_id}`}>{`${hit.case_key} ${hit.title}`}</Link> <Badge kind="status" value={hit.status} />
        </span>
      ))}
    </p>
  );
}

function ObservableItem({ caseId, observable, canEdit, onRemoved }: { caseId: string; observable: Observable; canEdit: boolean; onRemoved: () => void }) {
  const action = useAction();
  const remove = () =>
    action.run(
      async () => noContent(await client.DELETE('/cases/{id}/observables/{observable_id}', { params: { path: { id: caseId, observable_id: observable.id } } })),
      onRemoved,
    );
  return (
    <li>
      <div className="row">
        <span className="badge">{observable.type}</span>
        <span className="mono">{observable.value}</span>
        {observable.source === 'alert' && <span className="muted">from an alert</span>}
        {canEdit && observable.source === 'manual' && (
          <button type="button" onClick={remove} disabled={action.busy}>
            Remove<span className="visually-hidden"> {observable.value}</span>
          </button>
        )}
      </div>
      <OtherCases hits={observable.cross_case_hits} />
      <ErrorNote error={action.error} />
    </li>
  );
}

function AddObservable({ caseId, onAdded }: { caseId: string; onAdded: () => void }) {
  const [type, setType] = useState<ObservableType>('ip');
  const [value, setValue] = useState('');
  const [already, setAlready] = useState<string | null>(null);
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAlready(null);
    action.run(
      async () => answer(await client.POST('/cases/{id}/observables', { params: { path: { id: caseId } }, body: { type, value } })),
      (added) => {
        if (added.deduplicated) setAlready(`${added.value} was already on this case.`);
        setValue('');
        onAdded();
      },
    );
  };
  return (
    <form onSubmit={submit} className="stack">
      <h3>Add an observable</h3>
      <div className="row">
        <label>
          Type
          <select
            value={type}
            onChange={(event) => {
              const next = event.target.value;
              if (isObservableType(next)) setType(next);
            }}
          >
            {types.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Value
          <input value={value} onChange={(event) => setValue(event.target.value)} maxLength={2048} required />
        </label>
        <button type="submit" className="primary" disabled={action.busy || value.trim() === ''}>
          Add
        </button>
      </div>
      <p className="muted" aria-live="polite">
        {already}
      </p>
      <ErrorNote error={action.error} />
    </form>
  );
}

/** The case's observables; `canEdit` (the caller may manage cases) shows adding and removing. */
export function ObservablesPanel({ caseId, canEdit }: { caseId: string; canEdit: boolean }) {
  const headingId = useId();
  const observables = useResource(() => readCaseObservables(caseId), [caseId], aboutCase(caseId));
  return (
    <section className="panel" aria-labelledby={headingId} id="observables">
      <h2 id={headingId}>Observables</h2>
      <ErrorNote error={observables.error} />
      {!observables.data && !observables.error && <Loading what="observables" />}
      {observables.data?.items.length === 0 && <p className="muted">No observables yet.</p>}
      <ul className="plain">
        {observables.data?.items.map((observable) => (
          <ObservableItem key={observable.id} caseId={caseId} observable={observable} canEdit={canEdit} onRemoved={observables.reload} />
        ))}
      </ul>
      {canEdit && <AddObservable caseId={caseId} onAdded={observables.reload} />}
    </section>
  );
}
