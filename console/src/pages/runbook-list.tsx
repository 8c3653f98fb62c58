/**
 * The runbook list (`/runbooks`): every visible runbook from `GET /runbooks`, with its
 * trigger, state and version, each linking to its page. Admins get an enable or disable
 * button per runbook (`POST /runbooks/<slug>/enable|disable`, which needs `manage_runbooks`)
 * and a link to write a new one in the editor.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { answer, client } from '../api.ts';
import type { RunbookSummary } from '../api-shapes.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';

/** A trigger in words: `alert where severity is high or critical`, `manual`, `schedule every 300 s`. */
export function triggerText(trigger: RunbookSummary['trigger']): string {
  if (trigger.type === 'manual') return 'manual';
  if (trigger.type === 'schedule') return trigger.cron ? `schedule ${trigger.cron}` : `schedule every ${trigger.interval_s} s`;
  const conditions = Object.entries(trigger.conditions).map(([key, value]) =>
    Array.isArray(value) ? `${key} is ${value.map(String).join(' or ')}` : `${key} is ${String(value)}`,
  );
  return conditions.length === 0 ? 'every alert' : `alert where ${conditions.join(' and ')}`;
}

/** An admin's button turning one runbook on or off; shows the API's refusal in words. */
function EnableToggle({ runbook, onChanged }: { runbook: RunbookSummary; onChanged: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const verb = runbook.enabled ? 'Disable' : 'Enable';
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      const params = { path: { slug: runbook.id } };
      answer(await (runbook.enabled ? client.POST('/runbooks/{slug}/disable', { params }) : client.POST('/runbooks/{slug}/enable', { params })));
      onChanged();
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={toggle} disabled={busy} aria-label={`${verb} ${runbook.name}`}>
        {verb}
      </button>
      <ErrorNote error={error} />
    </>
  );
}

function RunbookRow({ runbook, admin, onChanged }: { runbook: RunbookSummary; admin: boolean; onChanged: () => void }) {
  return (
    <tr data-testid={`runbook-row-${runbook.id}`}>
      <td>
        <Link to={`/runbooks/${encodeURIComponent(runbook.id)}`}>{runbook.name}</Link>
        <div className="muted mono">{runbook.id}</div>
      </td>
      <td>{triggerText(runbook.trigger)}</td>
      <td>{runbook.enabled ? 'enabled' : 'disabled'}</td>
      <td>{runbook.version}</td>
      <td>{runbook.source}</td>
      <td>
        <Ago at={runbook.updated_at} />
      </td>
      {admin && (
        <td>
          <EnableToggle runbook={runbook} onChanged={onChanged} />
        </td>
      )}
    </tr>
  );
}

export function RunbookListPage() {
  const admin = useMe().role === 'admin';
  const runbooks = useResource(async () => answer(await client.GET('/runbooks')), []);
  const items = runbooks.data?.items ?? [];
  return (
    <>
      <h1>Runbooks</h1>
      {admin && (
        <p>
          <Link to="/runbooks/new">New runbook</Link>
        </p>
      )}
      <ErrorNote error={runbooks.error} />
      {!runbooks.data && runbooks.loading && <Loading what="runbooks" />}
      {runbooks.data && items.length === 0 && <p className="muted">No runbooks yet.</p>}
      {items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Trigger</th>
              <th scope="col">State</th>
              <th scope="col">Version</th>
              <th scope="col">Source</th>
              <th scope="col">Updated</th>
              {admin && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {items.map((runbook) => (
              <RunbookRow key={runbook.id} runbook={runbook} admin={admin} onChanged={runbooks.reload} />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
