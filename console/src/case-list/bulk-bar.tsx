/**
 * The case list's bulk bar (pages/case-list.tsx): one operation on the selected cases in
 * one request of `POST /cases/bulk` (docs/configuration.md "Bulk operations"): close,
 * reopen, set the status, assign to me or unassign, set the severity, add or remove tags.
 * What it did to each case comes back to the list (`onDone`), which marks each row; the
 * bar says how many were done and why each other one was not, by case key.
 */
import { type FormEvent, useId, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { BulkResult, CaseBulkRequest } from '../api-shapes.ts';
import { caseSeverities, caseStatuses } from '../config.ts';
import { useMe } from '../me.tsx';
import { ErrorNote } from '../ui.tsx';

/** Most cases one request may name (the API's limit). */
export const BULK_MAX = 500;

const CHOICES = {
  close: 'Close',
  reopen: 'Reopen',
  set_status: 'Set status',
  assign_me: 'Assign to me',
  unassign: 'Unassign',
  set_severity: 'Set severity',
  add_tags: 'Add tags',
  remove_tags: 'Remove tags',
} as const;
type Choice = keyof typeof CHOICES;
/** One operation of `POST /cases/bulk` with its params: the request without its ids. */
type Operation = CaseBulkRequest extends infer R ? (R extends unknown ? Omit<R, 'ids'> : never) : never;
/**
 * A status and a severity as the request types them. The generated document spells out the
 * default vocabulary; this install's is what config.ts read from the page, and the API
 * validates against that same one.
 */
type Status = Extract<Operation, { operation: 'set_status' }>['params']['status'];
type Severity = Extract<Operation, { operation: 'set_severity' }>['params']['severity'];

/** Tags typed as `a, b c`: split on commas and spaces, empty ones dropped. */
const tagsOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** The operation and params of `choice`, or null while a needed value is missing. */
function operationOf(choice: Choice, value: string, myId: string): Operation | null {
  switch (choice) {
    case 'close':
    case 'reopen':
      return { operation: choice };
    case 'assign_me':
      return { operation: 'assign', params: { owner_id: myId } };
    case 'unassign':
      return { operation: 'assign', params: { owner_id: null } };
    case 'set_status':
      return value === '' ? null : { operation: 'set_status', params: { status: value as Status } };
    case 'set_severity':
      return value === '' ? null : { operation: 'set_severity', params: { severity: value as Severity } };
    case 'add_tags':
    case 'remove_tags':
      return tagsOf(value).length === 0 ? null : { operation: choice, params: { tags: tagsOf(value) } };
  }
}

type Done = { verb: string; results: BulkResult[] };

/** The bar over `selected` (case ids, in list order); `keyOf` names a case by its key in the outcome. */
export function CaseBulkBar({ selected, keyOf, onDone }: { selected: string[]; keyOf: (id: string) => string; onDone: (results: BulkResult[]) => void }) {
  const me = useMe();
  const action = useAction();
  const headingId = useId();
  const [choice, setChoice] = useState<Choice>('close');
  const [value, setValue] = useState('');
  const [done, setDone] = useState<Done | null>(null);
  const operation = operationOf(choice, value, me.id);
  const tooMany = selected.length > BULK_MAX;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!operation) return;
    const body: CaseBulkRequest = { ids: selected, ...operation };
    const verb = CHOICES[choice];
    setDone(null);
    void action.run(
      async () => answer(await client.POST('/cases/bulk', { body })).results,
      (results) => {
        setDone({ verb, results });
        onDone(results);
      },
    );
  };
  return (
    <section className="panel bulk-bar" aria-labelledby={headingId} data-testid="case-bulk">
      <h2 id={headingId}>{`Selected cases (${selected.length})`}</h2>
      {selected.length === 0 && <p className="muted">Select cases in the table to act on several at once.</p>}
      {tooMany && <p role="alert">{`At most ${BULK_MAX} cases at once: ${selected.length} are selected.`}</p>}
      <form className="filters" onSubmit={submit}>
        <label>
          Operation
          <select
            value={choice}
            onChange={(event) => {
              setChoice(event.target.value as Choice);
              setValue('');
            }}
          >
            {(Object.keys(CHOICES) as Choice[]).map((key) => (
              <option key={key} value={key}>
                {CHOICES[key]}
              </option>
            ))}
          </select>
        </label>
        {(choice === 'set_status' || choice === 'set_severity') && (
          <label>
            {choice === 'set_status' ? 'Status' : 'Severity'}
            <select value={value} onChange={(event) => setValue(event.target.value)}>
              <option value="">choose…</option>
              {(choice === 'set_status' ? caseStatuses : caseSeverities).map((option) => (
                <option key={option} value={option}>
                  {option.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          </label>
        )}
        {(choice === 'add_tags' || choice === 'remove_tags') && (
          <label>
            Tags
            <input type="text" value={value} placeholder="phishing, vip" onChange={(event) => setValue(event.target.value)} />
          </label>
        )}
        <button type="submit" className="primary" disabled={action.busy || selected.length === 0 || tooMany || operation === null}>
          {`${CHOICES[choice]}: ${selected.length} ${selected.length === 1 ? 'case' : 'cases'}`}
        </button>
      </form>
      {action.busy && <p className="muted" role="status">{`${CHOICES[choice]}: working…`}</p>}
      <ErrorNote error={action.error} />
      {done && <Outcomes done={done} keyOf={keyOf} />}
    </section>
  );
}

/** How many cases the last operation did, and each one it did not, with the API's reason. */
function Outcomes({ done, keyOf }: { done: Done; keyOf: (id: string) => string }) {
  const failed = done.results.filter((result) => !result.ok);
  return (
    <div className="outcomes">
      <p role="status">{`${done.verb}: ${done.results.length - failed.length} of ${done.results.length} done${failed.length > 0 ? `, ${failed.length} failed` : ''}.`}</p>
      {failed.length > 0 && (
        <ul className="plain">
          {failed.map((result) => (
            <li key={result.id}>
              <strong>{keyOf(result.id)}</strong>: <span className="outcome-failed">{`failed: ${result.message ?? result.code ?? 'not done'}`}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
