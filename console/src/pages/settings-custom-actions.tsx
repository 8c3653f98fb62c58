/**
 * Custom actions (`/settings/custom-actions`; SPEC.md "Custom action (operator-authored)",
 * docs/configuration.md "Custom actions"): the install's `custom.*` actions by name, with
 * their transport, risk, effect, version, source and state; enabling and disabling one;
 * links to each action's page (its spec, versions and diff) and to a new one, written or
 * imported from an OpenAPI document. The API allows it with `manage_connections` through a
 * realm grant (the arbitrary tier: a global administrator); anyone else sees its refusal
 * in words.
 */
import { Link } from 'react-router';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { useEnableToggle } from '../custom-actions/toggle.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';

type CustomAction = paths['/custom-actions']['get']['responses'][200]['content']['application/json']['items'][number];

export function CustomActionsPage() {
  const list = useResource(async () => answer(await client.GET('/custom-actions')), []);
  // The default role matrix: an administrator manages custom actions. The API decides either way.
  const canManage = useMe().role === 'admin';
  return (
    <>
      <SettingsNav />
      <h1>Custom actions</h1>
      <p className="muted">
        Your own <code>custom.*</code> actions, called from runbooks like the built-in ones. Each save is a new version; a disabled action cannot start in a
        run.
      </p>
      {canManage && (
        <p>
          <Link to="/settings/custom-actions/new">New custom action</Link> (written, or drafted from a vendor's OpenAPI document)
        </p>
      )}
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Loading what="custom actions" />}
      {list.data &&
        (list.data.items.length === 0 ? (
          <p>No custom actions yet.</p>
        ) : (
          <table aria-label="Custom actions">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Title</th>
                <th scope="col">Transport</th>
                <th scope="col">Risk</th>
                <th scope="col">Effect</th>
                <th scope="col">Version</th>
                <th scope="col">Source</th>
                <th scope="col">State</th>
                <th scope="col">Updated</th>
                {canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((action) => (
                <ActionRow key={action.id} action={action} canManage={canManage} onChanged={list.reload} />
              ))}
            </tbody>
          </table>
        ))}
    </>
  );
}

function ActionRow({ action, canManage, onChanged }: { action: CustomAction; canManage: boolean; onChanged: () => void }) {
  const toggle = useEnableToggle(action, onChanged);
  return (
    <tr>
      <td className="mono">
        <Link to={`/settings/custom-actions/${action.id}`}>{action.name}</Link>
      </td>
      <td>{action.spec.title}</td>
      <td>{action.spec.transport}</td>
      <td>{action.spec.risk}</td>
      <td>{action.spec.effect_type}</td>
      <td>{action.version}</td>
      <td>{action.source === 'pack' ? 'integration pack' : 'API'}</td>
      <td>{action.enabled ? 'enabled' : 'disabled'}</td>
      <td>
        <Ago at={action.updated_at} />
        {action.updated_by ? ` by ${action.updated_by}` : ''}
      </td>
      {canManage && (
        <td>
          <button type="button" onClick={toggle.flip} disabled={toggle.busy} aria-label={`${action.enabled ? 'Disable' : 'Enable'} ${action.name}`}>
            {action.enabled ? 'Disable' : 'Enable'}
          </button>
          <ErrorNote error={toggle.error} />
        </td>
      )}
    </tr>
  );
}
