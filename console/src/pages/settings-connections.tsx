/**
 * Connections (`/settings/connections`; SPEC.md "Actions and connections"): the
 * install's connections by name, kind and address, whether a secret is set and until when
 * a rotated-out one still works; create one (its secret write-only: sent, never shown
 * again), probe it without side effects (`POST /connections/<id>/test`, the answer in
 * words), rotate its secret, and delete it after confirming. The API allows all of it to
 * realm administrators only (`manage_connections` through a realm grant); anyone else sees
 * its refusal in words.
 */
import { type FormEvent, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client, noContent } from '../api.ts';
import type { paths } from '../api-types.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { CONNECTION_KINDS, type ConnectionKind, type ProbeResult, parseConfig, probeWords } from '../settings/connection-fields.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { Ago, ErrorNote, Loading, Confirm } from '../ui.tsx';

type Connection = paths['/connections']['get']['responses'][200]['content']['application/json']['items'][number];

export function ConnectionsPage() {
  const list = useResource(async () => answer(await client.GET('/connections')), []);
  // The default role matrix: only an administrator manages connections. The API decides either way.
  const canManage = useMe().role === 'admin';
  return (
    <>
      <SettingsNav />
      <h1>Connections</h1>
      <p className="muted">Where actions and integrations connect, with their credentials. Secrets are write-only: the service never shows them again.</p>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Loading what="connections" />}
      {list.data && canManage && <NewConnection onCreated={list.reload} />}
      {list.data &&
        (list.data.items.length === 0 ? (
          <p>No connections yet.</p>
        ) : (
          <table aria-label="Connections">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Address</th>
                <th scope="col">Secret</th>
                <th scope="col">Updated</th>
                {canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((connection) => (
                <ConnectionRow key={connection.id} connection={connection} canManage={canManage} onChanged={list.reload} />
              ))}
            </tbody>
          </table>
        ))}
    </>
  );
}

/** The create form; the secret goes in a password field and is never read back. */
function NewConnection({ onCreated }: { onCreated: () => void }) {
  const [kind, setKind] = useState<ConnectionKind>('http');
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [config, setConfig] = useState('');
  const [secret, setSecret] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const action = useAction();
  const create = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseConfig(config);
    if ('problem' in parsed) return setProblem(parsed.problem);
    setProblem(null);
    return action.run(
      async () =>
        answer(
          await client.POST('/connections', {
            body: { kind, name: name.trim(), base_url: baseUrl.trim() || null, config: parsed.config, secret: secret === '' ? null : secret },
          }),
        ),
      () => {
        setName('');
        setBaseUrl('');
        setConfig('');
        setSecret('');
        onCreated();
      },
    );
  };
  return (
    <section className="panel" aria-labelledby="new-connection-title">
      <h2 id="new-connection-title">New connection</h2>
      <form className="settings-form" onSubmit={create}>
        <label>
          Kind
          <select value={kind} onChange={(event) => setKind(event.target.value as ConnectionKind)}>
            {CONNECTION_KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input type="text" required pattern="[a-z0-9][a-z0-9_\-]{1,63}" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Base URL
          <input
            type="url"
            value={baseUrl}
            placeholder={kind === 'ssh' ? 'unused: host and port go in config' : 'https://…'}
            onChange={(event) => setBaseUrl(event.target.value)}
          />
        </label>
        <label>
          Config (JSON)
          <textarea rows={3} value={config} placeholder="{}" onChange={(event) => setConfig(event.target.value)} />
        </label>
        <label>
          Secret
          <input type="password" autoComplete="new-password" value={secret} onChange={(event) => setSecret(event.target.value)} />
        </label>
        <div className="row">
          <button type="submit" className="primary" disabled={action.busy}>
            Create connection
          </button>
        </div>
        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        <ErrorNote error={action.error} />
      </form>
    </section>
  );
}

/** One connection with its probe, rotation and deletion. */
function ConnectionRow({ connection, canManage, onChanged }: { connection: Connection; canManage: boolean; onChanged: () => void }) {
  const action = useAction();
  const [probe, setProbe] = useState<ProbeResult | null>(null);
  const [open, setOpen] = useState<'rotate' | 'delete' | null>(null);
  const [secret, setSecret] = useState('');
  const params = { path: { id: connection.id } };
  const test = () => action.run(async () => answer(await client.POST('/connections/{id}/test', { params })), setProbe);
  const rotate = (event: FormEvent) => {
    event.preventDefault();
    return action.run(
      async () => answer(await client.POST('/connections/{id}/rotate', { params, body: { secret } })),
      () => {
        setSecret('');
        setOpen(null);
        onChanged();
      },
    );
  };
  const remove = () => action.run(async () => noContent(await client.DELETE('/connections/{id}', { params })), onChanged);
  return (
    <tr data-testid="connection-row">
      <td className="mono">{connection.name}</td>
      <td>{connection.kind}</td>
      <td className="mono">{connection.base_url ?? <span className="muted">none</span>}</td>
      <td>
        {connection.secret_configured ? 'set' : <span className="muted">none</span>}
        {connection.rotation_overlap_until && (
          <div className="muted">
            the previous one works until <Ago at={connection.rotation_overlap_until} />
          </div>
        )}
      </td>
      <td>
        <Ago at={connection.updated_at} />
      </td>
      {canManage && (
        <td>
          <div className="row">
            <button type="button" disabled={action.busy} onClick={test} aria-label={`Test ${connection.name}`}>
              Test
            </button>
            <button
              type="button"
              disabled={action.busy}
              onClick={() => setOpen(open === 'rotate' ? null : 'rotate')}
              aria-label={`Rotate secret of ${connection.name}`}
            >
              Rotate secret
            </button>
            <button type="button" disabled={action.busy} onClick={() => setOpen(open === 'delete' ? null : 'delete')} aria-label={`Delete ${connection.name}`}>
              Delete
            </button>
          </div>
          {probe && (
            <p role="status" className={probe.ok ? 'outcome-ok' : 'outcome-failed'} data-testid="probe-result">
              {probeWords(probe)}
            </p>
          )}
          {open === 'rotate' && (
            <form className="row" aria-label={`New secret for ${connection.name}`} onSubmit={rotate}>
              <label>
                New secret
                <input type="password" autoComplete="new-password" required value={secret} onChange={(event) => setSecret(event.target.value)} />
              </label>
              <button type="submit" className="primary" disabled={action.busy}>
                Rotate
              </button>
            </form>
          )}
          {open === 'delete' && (
            <Confirm
              question={`Delete ${connection.name}? Runbooks and bindings that name it will fail.`}
              yes="Delete it"
              busy={action.busy}
              onYes={remove}
              onNo={() => setOpen(null)}
            />
          )}
          <ErrorNote error={action.error} />
        </td>
      )}
    </tr>
  );
}
