/**
 * The inbox's actions on one alert or a selection (pages/alerts.tsx), each one request of
 * `POST /alerts/bulk` however many alerts it names: escalate each into a new case or all
 * into one, link into an existing case picked by key or title (`GET /cases?search=`,
 * `GET /cases?key=`), dismiss with an optional reason; and what it did to each alert, in
 * words, with the API's reason where one failed.
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { Alert, AlertBulkRequest } from '../api-shapes.ts';
import { useShortcut } from '../shortcuts.tsx';
import { useResource } from '../resource.ts';
import { ErrorNote } from '../ui.tsx';
import type { CaseChoice, Outcome } from './types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One operation of `POST /alerts/bulk` with its params. */
type Operation =
  | { operation: 'dismiss'; params: { reason: string | null } }
  | { operation: 'link'; params: { case_id: string } }
  | { operation: 'escalate'; params: { mode: 'each' | 'one' } };

/** `operation` on every alert in one request, and what it did to each; `caseKey` names the case a link went to. */
async function bulkAlerts(alerts: Alert[], operation: Operation, caseKey: string | null = null): Promise<Outcome[]> {
  const body: AlertBulkRequest = { ids: alerts.map((alert) => alert.id), ...operation };
  const { results } = answer(await client.POST('/alerts/bulk', { body }));
  const linkedTo = operation.operation === 'link' ? operation.params.case_id : null;
  return alerts.map((alert, index) => {
    const result = results[index];
    return { alert, error: result?.ok ? null : (result?.message ?? 'not done'), caseId: result?.case_id ?? linkedTo, caseKey };
  });
}

/** The case a typed key (or case id) names: one of the matches the form showed, else `GET /cases?key=` (exact). */
async function findCase(typed: string, shown: CaseChoice[]): Promise<CaseChoice> {
  const text = typed.trim();
  if (UUID.test(text)) return { id: text, key: text, title: '' };
  const picked = shown.find((item) => item.key.toLowerCase() === text.toLowerCase());
  if (picked) return picked;
  const found = answer(await client.GET('/cases', { params: { query: { key: text, limit: 1 } } })).items[0];
  if (!found) throw new Error(`No case you can see has the key ${text}.`);
  return found;
}

type Done = { verb: string; outcomes: Outcome[] };

/**
 * Escalate, link and dismiss for `alerts` (one, or the selection), and the outcome of the
 * last action, which `onDone` gets too. With `shortcuts`, `e` escalates the one alert.
 */
export function AlertActions({ alerts, onDone, shortcuts = false }: { alerts: Alert[]; onDone: (outcomes: Outcome[]) => void; shortcuts?: boolean }) {
  const action = useAction();
  const [verb, setVerb] = useState('');
  const [done, setDone] = useState<Done | null>(null);
  const run = (next: string, act: () => Promise<Outcome[]>) => {
    setVerb(next);
    setDone(null);
    return action.run(act, (outcomes) => {
      setDone({ verb: next, outcomes });
      onDone(outcomes);
    });
  };
  const escalate = (mode: 'each' | 'one') => run('Escalate', () => bulkAlerts(alerts, { operation: 'escalate', params: { mode } }));
  const link = (typed: string, shown: CaseChoice[]) =>
    run('Link', async () => {
      const target = await findCase(typed, shown);
      return bulkAlerts(alerts, { operation: 'link', params: { case_id: target.id } }, target.key);
    });
  const dismiss = (reason: string) => run('Dismiss', () => bulkAlerts(alerts, { operation: 'dismiss', params: { reason: reason.trim() || null } }));
  const none = alerts.length === 0;
  const many = alerts.length > 1;
  useShortcut('e', 'Escalate this alert to a new case', () => escalate('each'), shortcuts && alerts.length === 1 && !action.busy);
  return (
    <div className="alert-actions">
      {none && <p className="muted">Select alerts in the table to act on several at once.</p>}
      <div className="alert-action-bar">
        <button type="button" className="primary" disabled={action.busy || none} onClick={() => escalate('each')}>
          {many ? `Escalate ${alerts.length} alerts, one new case each` : 'Escalate to a new case'}
        </button>
        {many && (
          <button type="button" disabled={action.busy} onClick={() => escalate('one')}>
            {`Escalate ${alerts.length} alerts into one new case`}
          </button>
        )}
        <LinkForm disabled={action.busy || none} count={alerts.length} onLink={link} />
        <DismissForm disabled={action.busy || none} count={alerts.length} onDismiss={dismiss} />
      </div>
      {action.busy && <p className="muted" role="status">{`${verb}: working…`}</p>}
      <ErrorNote error={action.error} />
      {done && <Outcomes done={done} />}
    </div>
  );
}

/** The case to link to, typed as a key or picked from the cases whose key or title matches. */
function LinkForm({ disabled, count, onLink }: { disabled: boolean; count: number; onLink: (typed: string, shown: CaseChoice[]) => void }) {
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const inputId = useId();
  const listId = useId();
  useEffect(() => {
    const timer = setTimeout(() => setQuery(typed.trim()), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const matches = useResource(
    async (): Promise<CaseChoice[]> => (query === '' ? [] : answer(await client.GET('/cases', { params: { query: { search: query, limit: 20 } } })).items),
    [query],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onLink(typed, matches.data ?? []);
  };
  return (
    <form className="row" onSubmit={submit}>
      <label htmlFor={inputId}>Case</label>
      <input id={inputId} list={listId} value={typed} autoComplete="off" placeholder="key or title" onChange={(event) => setTyped(event.target.value)} />
      <datalist id={listId}>
        {matches.data?.map((item) => (
          <option key={item.id} value={item.key}>
            {item.title}
          </option>
        ))}
      </datalist>
      <button type="submit" disabled={disabled || typed.trim() === ''}>
        {count > 1 ? `Link ${count} alerts to the case` : 'Link to the case'}
      </button>
      <ErrorNote error={matches.error} />
    </form>
  );
}

/** Dismissal, with an optional reason recorded on each alert. */
function DismissForm({ disabled, count, onDismiss }: { disabled: boolean; count: number; onDismiss: (reason: string) => void }) {
  const [reason, setReason] = useState('');
  const inputId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onDismiss(reason);
  };
  return (
    <form className="row" onSubmit={submit}>
      <label htmlFor={inputId}>Reason (optional)</label>
      <input id={inputId} value={reason} maxLength={2000} onChange={(event) => setReason(event.target.value)} />
      <button type="submit" className="danger" disabled={disabled}>
        {count > 1 ? `Dismiss ${count} alerts` : 'Dismiss'}
      </button>
    </form>
  );
}

/** What the last action did to each alert, in words; failures first with the API's reason. */
function Outcomes({ done }: { done: Done }) {
  const failed = done.outcomes.filter((outcome) => outcome.error !== null);
  const succeeded = done.outcomes.length - failed.length;
  return (
    <div className="outcomes">
      <p role="status">{`${done.verb}: ${succeeded} of ${done.outcomes.length} done${failed.length > 0 ? `, ${failed.length} failed` : ''}.`}</p>
      <ul className="plain">
        {[...failed, ...done.outcomes.filter((outcome) => outcome.error === null)].map((outcome) => (
          <li key={outcome.alert.id}>
            <strong>{outcome.alert.title}</strong>: <OutcomeText outcome={outcome} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** One alert's outcome: the API's reason when it failed, the case it is in now when there is one. */
function OutcomeText({ outcome }: { outcome: Outcome }) {
  if (outcome.error !== null) return <span className="outcome-failed">{`failed: ${outcome.error}`}</span>;
  if (!outcome.caseId) return <span>done.</span>;
  return (
    <span>
      done, now in <Link to={`/cases/${outcome.caseId}`}>{outcome.caseKey ? `case ${outcome.caseKey}` : 'a new case'}</Link>.
    </span>
  );
}
