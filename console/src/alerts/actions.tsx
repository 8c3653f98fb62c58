/**
 * The inbox's actions on one alert or a selection (pages/alerts.tsx): escalate into new
 * cases (`POST /alerts/<id>/escalate`), link into an existing case picked by key or title
 * (`GET /cases?search=`, `GET /cases?key=`, `POST /alerts/<id>/link`), dismiss with an
 * optional reason (`POST /alerts/<id>/dismiss`), a few requests at a time, and what each
 * did, in words.
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { Alert } from '../api-shapes.ts';
import { useShortcut } from '../shortcuts.tsx';
import { useResource } from '../resource.ts';
import { ErrorNote } from '../ui.tsx';
import type { Act, CaseChoice, Outcome } from './types.ts';

/** Requests of a bulk action in flight at once. */
const PARALLEL = 4;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Runs `act` on every alert, a few at a time, and says what happened to each. */
async function eachAlert(alerts: Alert[], act: Act): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const queue = [...alerts];
  const worker = async () => {
    for (let alert = queue.shift(); alert; alert = queue.shift()) {
      try {
        outcomes.push({ alert, error: null, ...(await act(alert)) });
      } catch (error) {
        outcomes.push({ alert, error: (error as Error).message, caseId: null, caseKey: null, after: null });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, alerts.length) }, worker));
  return alerts.map((alert) => outcomes.find((outcome) => outcome.alert.id === alert.id) as Outcome);
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
  const run = (next: string, plan: () => Promise<Act>) => {
    setVerb(next);
    setDone(null);
    return action.run(
      async () => eachAlert(alerts, await plan()),
      (outcomes) => {
        setDone({ verb: next, outcomes });
        onDone(outcomes);
      },
    );
  };
  const escalate = () =>
    run('Escalate', async () => async (alert) => {
      const escalated = answer(await client.POST('/alerts/{id}/escalate', { params: { path: { id: alert.id } }, body: {} }));
      return { caseId: escalated.case_id, caseKey: null, after: escalated.alert };
    });
  const link = (typed: string, shown: CaseChoice[]) =>
    run('Link', async () => {
      const target = await findCase(typed, shown);
      return async (alert) => {
        const after = answer(await client.POST('/alerts/{id}/link', { params: { path: { id: alert.id } }, body: { case_id: target.id } }));
        return { caseId: target.id, caseKey: target.key, after };
      };
    });
  const dismiss = (reason: string) =>
    run('Dismiss', async () => async (alert) => {
      const after = answer(await client.POST('/alerts/{id}/dismiss', { params: { path: { id: alert.id } }, body: { reason: reason.trim() || null } }));
      return { caseId: null, caseKey: null, after };
    });
  const none = alerts.length === 0;
  const many = alerts.length > 1;
  useShortcut('e', 'Escalate this alert to a new case', escalate, shortcuts && alerts.length === 1 && !action.busy);
  return (
    <div className="alert-actions">
      {none && <p className="muted">Select alerts in the table to act on several at once.</p>}
      <div className="alert-action-bar">
        <button type="button" className="primary" disabled={action.busy || none} onClick={escalate}>
          {many ? `Escalate ${alerts.length} alerts, one new case each` : 'Escalate to a new case'}
        </button>
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
