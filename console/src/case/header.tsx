/**
 * The case page's header: key, title, severity, status, owner, the acknowledgement clock
 * and the resolve SLA, with the analyst's moves on them: acknowledge
 * (`POST /cases/<id>/acknowledge`), change status (`POST /cases/<id>/status`), assign
 * (`POST /cases/<id>/assign`, people from `GET /cases/assignable-users`), and edit the
 * title, description, severity, tags and ATT&CK techniques (edit.tsx). Each technique links
 * to its page on attack.mitre.org, named where the install's ATT&CK catalog knows it. The
 * case report downloads as PDF, Markdown or JSON (`GET /cases/<id>/report`) for every reader.
 */
import { useState } from 'react';
import { useAction } from '../action.ts';
import { techniqueWords, useTechniqueNames } from '../attack.ts';
import { answer, apiUrl, client } from '../api.ts';
import type { Case } from '../api-shapes.ts';
import { caseStatuses } from '../config.ts';
import { useMe } from '../me.tsx';
import { useShortcut } from '../shortcuts.tsx';
import { exactTime } from '../format.ts';
import { Badge, ErrorNote } from '../ui.tsx';
import { AckClock } from './ack-clock.tsx';
import { CaseEditForm } from './edit.tsx';
import { personLabel, useAssignablePeople } from './people.ts';

export function CaseHeader({ value, readAt, canEdit, onChanged }: { value: Case; readAt: number; canEdit: boolean; onChanged: () => void }) {
  const me = useMe();
  const people = useAssignablePeople(value.id);
  const techniques = useTechniqueNames();
  const action = useAction();
  const busy = action.busy;
  const params = { path: { id: value.id } };
  const acknowledge = () => action.run(async () => answer(await client.POST('/cases/{id}/acknowledge', { params })), onChanged);
  const assign = (ownerId: string | null) =>
    action.run(async () => answer(await client.POST('/cases/{id}/assign', { params, body: { owner_id: ownerId } })), onChanged);
  const changeStatus = (status: string) => action.run(async () => answer(await client.POST('/cases/{id}/status', { params, body: { status } })), onChanged);
  const [editing, setEditing] = useState(false);
  const unacknowledged = value.ack_sla.acknowledged_at === null;
  useShortcut('a', 'Acknowledge the case', acknowledge, canEdit && unacknowledged && !busy);
  useShortcut('m', 'Assign the case to me', () => assign(me.id), canEdit && value.owner_id !== me.id && !busy);
  useShortcut('c', 'Write a comment', () => document.getElementById('comment-text')?.focus(), canEdit);

  return (
    <header className="panel case-header">
      <h1>
        <span className="mono">{value.key}</span> {value.title}
      </h1>
      <div className="row">
        <Badge kind="severity" value={value.severity} />
        <Badge kind="status" value={value.status} />
        {value.private && <span className="badge">private</span>}
        <span>Owner: {value.owner_email ?? 'nobody'}</span>
        <AckClock sla={value.ack_sla} readAt={readAt} />
        {value.sla_policy?.resolve_due_at && <span>Resolve by {exactTime(value.sla_policy.resolve_due_at)}</span>}
      </div>
      {value.description && <p>{value.description}</p>}
      {(value.tags.length > 0 || value.attack_techniques.length > 0) && (
        <p className="muted" data-testid="case-labels">
          {value.tags.map((tag) => `#${tag}`).join(' ')}{' '}
          {value.attack_techniques.map((technique) => {
            const known = techniques.byId.get(technique);
            return (
              <a
                key={technique}
                className="technique"
                href={techniqueUrl(technique)}
                target="_blank"
                rel="noreferrer"
                title={known ? techniqueWords(known) : undefined}
              >
                <span className="mono">{technique}</span>
                {known && ` ${known.name}`}
              </a>
            );
          })}
        </p>
      )}
      {editing && (
        <CaseEditForm
          value={value}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
          onCancel={() => setEditing(false)}
        />
      )}
      {canEdit && (
        <div className="row">
          {value.ack_sla.acknowledged_at === null && (
            <button type="button" className="primary" disabled={busy} onClick={acknowledge}>
              Acknowledge
            </button>
          )}
          {!editing && (
            <button type="button" disabled={busy} onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
          {value.owner_id !== me.id && (
            <button type="button" disabled={busy} onClick={() => assign(me.id)}>
              Assign to me
            </button>
          )}
          <label>
            Owner
            <select value={value.owner_id ?? ''} disabled={busy} onChange={(event) => assign(event.target.value || null)}>
              <option value="">nobody</option>
              {value.owner_id && !people.data?.some((person) => person.id === value.owner_id) && (
                <option value={value.owner_id}>{value.owner_email ?? value.owner_id}</option>
              )}
              {people.data?.map((person) => (
                <option key={person.id} value={person.id}>
                  {personLabel(person)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select value={value.status} disabled={busy} onChange={(event) => changeStatus(event.target.value)}>
              {caseStatuses.map((status) => (
                <option key={status} value={status}>
                  {status.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      <p className="row">
        Report:
        {(['pdf', 'md', 'json'] as const).map((format) => (
          <a key={format} href={apiUrl(`/cases/${value.id}/report?format=${format}`)} download={`${value.key}-report.${format}`}>
            {format === 'md' ? 'Markdown' : format.toUpperCase()}
            <span className="visually-hidden"> report of {value.key}</span>
          </a>
        ))}
      </p>
      <ErrorNote error={action.error ?? people.error} />
    </header>
  );
}

/** A technique's page on attack.mitre.org: `T1059.001` is `techniques/T1059/001/`. */
const techniqueUrl = (id: string) => `https://attack.mitre.org/techniques/${id.replace('.', '/')}/`;
