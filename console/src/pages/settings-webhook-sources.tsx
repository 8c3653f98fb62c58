/**
 * Webhook sources (`/settings/webhook-sources`; SPEC.md "Webhook sources"): where alerts
 * arrive from detectors, ticket systems, pagers and mailboxes. Lists each source with its
 * intake URL (`POST <api root>/webhooks/<slug>`), team and state; creates one and shows
 * its token once (the API never returns it again); rotates the token, shown once again,
 * the old one refused at once; enables, disables and deletes after confirming. The API
 * allows it with `manage_connections` (realm administrators, or a team's for that team's
 * sources); anyone else sees its refusal in words.
 */
import { type FormEvent, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client, noContent } from '../api.ts';
import type { paths } from '../api-types.ts';
import { basePath } from '../config.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { Ago, ErrorNote, Loading, Confirm } from '../ui.tsx';

type CreateBody = paths['/webhook-sources']['post']['requestBody']['content']['application/json'];
type SourceType = CreateBody['type'];
type WebhookSource = paths['/webhook-sources']['get']['responses'][200]['content']['application/json']['items'][number];
type WithToken = paths['/webhook-sources']['post']['responses'][201]['content']['application/json'];

/** The source types the API takes (SPEC.md "Webhook sources": each its payload mapping and signature scheme), every one listed or the type check fails. */
const SOURCE_TYPES = Object.keys({
  generic: true,
  detector: true,
  ticket_a: true,
  ticket_b: true,
  mailbox: true,
  pager_a: true,
  pager_b: true,
} satisfies Record<SourceType, true>) as SourceType[];

/** Where a source's senders post: the page's origin, the API root and the source's `endpoint`. */
const intakeUrl = (endpoint: string): string => `${window.location.origin}${basePath}${endpoint}`;

export function WebhookSourcesPage() {
  const list = useResource(async () => answer(await client.GET('/webhook-sources')), []);
  const [issued, setIssued] = useState<WithToken | null>(null);
  // The default role matrix: an administrator manages sources. The API decides either way.
  const canManage = useMe().role === 'admin';
  const onToken = (source: WithToken) => {
    setIssued(source);
    list.reload();
  };
  return (
    <>
      <SettingsNav />
      <h1>Webhook sources</h1>
      <p className="muted">Where alerts arrive from. A source's token is shown once, when it is made or rotated: give it to the sender then.</p>
      <ErrorNote error={list.error} />
      {issued && <IssuedToken source={issued} onDone={() => setIssued(null)} />}
      {!list.data && !list.error && <Loading what="webhook sources" />}
      {list.data && canManage && <NewSource onCreated={onToken} />}
      {list.data &&
        (list.data.items.length === 0 ? (
          <p>No webhook sources yet.</p>
        ) : (
          <table aria-label="Webhook sources">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Intake URL</th>
                <th scope="col">Team</th>
                <th scope="col">State</th>
                <th scope="col">Updated</th>
                {canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((source) => (
                <SourceRow key={source.id} source={source} canManage={canManage} onChanged={list.reload} onToken={onToken} />
              ))}
            </tbody>
          </table>
        ))}
    </>
  );
}

/** The token just issued, with the URL to post to; gone once dismissed, as the API will not show it again. */
function IssuedToken({ source, onDone }: { source: WithToken; onDone: () => void }) {
  return (
    <section className="panel token-once" aria-labelledby="token-title" data-testid="issued-token">
      <h2 id="token-title">{`The token of ${source.name}`}</h2>
      <p>
        Copy it now: it is not shown again. Senders post to the intake URL with it in an <code>X-Svc-Token</code> header or as{' '}
        <code>Authorization: Bearer</code>.
      </p>
      <dl className="facts">
        <dt>Intake URL</dt>
        <dd className="mono">{intakeUrl(source.endpoint)}</dd>
        <dt>Token</dt>
        <dd className="mono" data-testid="token-value">
          {source.token}
        </dd>
      </dl>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

/**
 * The create form: type, slug (the intake URL's last segment), name, for a generic source
 * the payload paths of its title and severity (`field_map`, dotted paths), team, default
 * severity and an optional signing secret, write-only.
 */
function NewSource({ onCreated }: { onCreated: (source: WithToken) => void }) {
  const [type, setType] = useState<SourceType>('generic');
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [team, setTeam] = useState('');
  const [severity, setSeverity] = useState<NonNullable<CreateBody['default_severity']>>('medium');
  const [secret, setSecret] = useState('');
  const [titlePath, setTitlePath] = useState('');
  const [severityPath, setSeverityPath] = useState('');
  const action = useAction();
  const create = (event: FormEvent) => {
    event.preventDefault();
    const body: CreateBody = {
      type,
      slug: slug.trim(),
      name: name.trim(),
      team: team.trim() || null,
      default_severity: severity,
      signing_secret: secret === '' ? null : secret,
    };
    if (type === 'generic') {
      body.field_map = { rule_title: titlePath.trim() };
      if (severityPath.trim()) body.field_map.severity = severityPath.trim();
    }
    return action.run(
      async () => answer(await client.POST('/webhook-sources', { body })),
      (source) => {
        setSlug('');
        setName('');
        setTeam('');
        setSecret('');
        setTitlePath('');
        setSeverityPath('');
        onCreated(source);
      },
    );
  };
  return (
    <section className="panel" aria-labelledby="new-source-title">
      <h2 id="new-source-title">New webhook source</h2>
      <form className="settings-form" onSubmit={create}>
        <label>
          Type
          <select value={type} onChange={(event) => setType(event.target.value as SourceType)}>
            {SOURCE_TYPES.map((choice) => (
              <option key={choice} value={choice}>
                {choice.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Slug
          <input type="text" required pattern="[a-z0-9][a-z0-9\-]{1,62}" value={slug} onChange={(event) => setSlug(event.target.value)} />
        </label>
        <label>
          Name
          <input type="text" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        {type === 'generic' && (
          <>
            <label>
              Title field
              <input type="text" required value={titlePath} placeholder="rule.name" onChange={(event) => setTitlePath(event.target.value)} />
            </label>
            <label>
              Severity field
              <input type="text" value={severityPath} placeholder="optional: event.severity" onChange={(event) => setSeverityPath(event.target.value)} />
            </label>
          </>
        )}
        <label>
          Team
          <input type="text" value={team} placeholder="none: every team" onChange={(event) => setTeam(event.target.value)} />
        </label>
        <label>
          Default severity
          <select value={severity} onChange={(event) => setSeverity(event.target.value as typeof severity)}>
            {(['low', 'medium', 'high', 'critical'] as const).map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        </label>
        <label>
          Signing secret
          <input
            type="password"
            autoComplete="new-password"
            minLength={16}
            value={secret}
            placeholder="for sources that sign their payloads"
            onChange={(event) => setSecret(event.target.value)}
          />
        </label>
        <div className="row">
          <button type="submit" className="primary" disabled={action.busy}>
            Create source
          </button>
        </div>
        <ErrorNote error={action.error} />
      </form>
    </section>
  );
}

/** One source with its enable or disable, token rotation and deletion. */
function SourceRow({
  source,
  canManage,
  onChanged,
  onToken,
}: {
  source: WebhookSource;
  canManage: boolean;
  onChanged: () => void;
  onToken: (source: WithToken) => void;
}) {
  const action = useAction();
  const [open, setOpen] = useState<'rotate' | 'delete' | null>(null);
  const params = { path: { id: source.id } };
  const toggle = () => action.run(async () => answer(await client.PATCH('/webhook-sources/{id}', { params, body: { enabled: !source.enabled } })), onChanged);
  const rotate = () =>
    action.run(
      async () => answer(await client.POST('/webhook-sources/{id}/rotate', { params })),
      (rotated) => {
        setOpen(null);
        onToken(rotated);
      },
    );
  const remove = () => action.run(async () => noContent(await client.DELETE('/webhook-sources/{id}', { params })), onChanged);
  return (
    <tr data-testid="webhook-source-row">
      <td>
        {source.name}
        <div className="muted mono">{source.slug}</div>
      </td>
      <td>{source.type.replace(/_/g, ' ')}</td>
      <td className="mono">{intakeUrl(source.endpoint)}</td>
      <td>{source.team ?? <span className="muted">every team</span>}</td>
      <td>
        {source.enabled ? 'enabled' : 'disabled'}
        {source.signing_secret_configured && <div className="muted">signed</div>}
      </td>
      <td>
        <Ago at={source.updated_at} />
      </td>
      {canManage && (
        <td>
          <div className="row">
            <button type="button" disabled={action.busy} onClick={toggle} aria-label={`${source.enabled ? 'Disable' : 'Enable'} ${source.name}`}>
              {source.enabled ? 'Disable' : 'Enable'}
            </button>
            <button
              type="button"
              disabled={action.busy}
              onClick={() => setOpen(open === 'rotate' ? null : 'rotate')}
              aria-label={`Rotate token of ${source.name}`}
            >
              Rotate token
            </button>
            <button type="button" disabled={action.busy} onClick={() => setOpen(open === 'delete' ? null : 'delete')} aria-label={`Delete ${source.name}`}>
              Delete
            </button>
          </div>
          {open === 'rotate' && (
            <Confirm
              question={`Rotate the token of ${source.name}? The current one is refused at once.`}
              yes="Rotate it"
              busy={action.busy}
              onYes={rotate}
              onNo={() => setOpen(null)}
            />
          )}
          {open === 'delete' && (
            <Confirm
              question={`Delete ${source.name}? Its senders' alerts will be refused.`}
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
