/**
 * Integration packs (`/settings/packs`; docs/integration-packs.md): the signed registry's
 * packs with their signature and install state, or why one is refused; a pack's preview
 * (what installing or upgrading it would create, update or overwrite, drifted actions to
 * accept, runs it would wait for, and the danger acknowledgement an arbitrary-tier action
 * needs), installed or upgraded with the preview's token, so what runs is what was shown;
 * and its fixture checks, one row per check. `manage_runbooks` through a realm grant; anyone
 * else sees the API's refusal in words.
 */
import { useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { Badge, ErrorNote, Loading } from '../ui.tsx';

type RegistryItem = paths['/integration-packs/registry']['get']['responses'][200]['content']['application/json']['items'][number];
type Plan = paths['/integration-packs/registry/{pack_id}/preview']['post']['responses'][200]['content']['application/json'];
type TestAnswer = paths['/integration-packs/registry/{pack_id}/test']['post']['responses'][200]['content']['application/json'];

const signatureWords: Record<RegistryItem['signature_state'], string> = {
  verified: 'signature verified',
  unverified: 'not verified: no key configured',
  missing: 'signature missing',
  invalid: 'signature invalid',
};

export function PacksPage() {
  const registry = useResource(async () => answer(await client.GET('/integration-packs/registry')), []);
  // The default role matrix: administrators manage packs. The API decides either way.
  const canManage = useMe().role === 'admin';
  return (
    <>
      <SettingsNav />
      <h1>Integration packs</h1>
      <p className="muted">
        Signed packs of custom actions from the registry. A preview shows what an install would change; the install carries out exactly that.
      </p>
      <ErrorNote error={registry.error} />
      {!registry.data && !registry.error && <Loading what="the registry" />}
      {registry.data?.items.length === 0 && <p>The registry lists no pack.</p>}
      {registry.data?.items.map((item) => (
        <PackPanel key={item.id} item={item} canManage={canManage} onChanged={registry.reload} />
      ))}
    </>
  );
}

function PackPanel({ item, canManage, onChanged }: { item: RegistryItem; canManage: boolean; onChanged: () => void }) {
  const action = useAction();
  const [plan, setPlan] = useState<Plan | null>(null);
  const [tested, setTested] = useState<TestAnswer | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const params = { path: { pack_id: item.id } };
  const preview = () => {
    setDone(null);
    return action.run(async () => answer(await client.POST('/integration-packs/registry/{pack_id}/preview', { params })), setPlan);
  };
  const test = () => action.run(async () => answer(await client.POST('/integration-packs/registry/{pack_id}/test', { params, body: {} })), setTested);
  const titleId = `pack-${item.id}`;
  return (
    <section className="panel" aria-labelledby={titleId} data-testid="pack">
      <h2 id={titleId}>
        {item.metadata.title} <span className="muted mono">{`${item.id} ${item.metadata.version}`}</span>
      </h2>
      <p>{item.metadata.description}</p>
      <div className="row">
        <Badge kind="status" value={item.install_state} />
        {item.installed_version && <span>{`installed: ${item.installed_version}`}</span>}
        <span className={item.verified ? undefined : 'error'}>{signatureWords[item.signature_state]}</span>
        <span className="muted">{`by ${item.metadata.publisher}`}</span>
        {item.metadata.connection_kinds && item.metadata.connection_kinds.length > 0 && (
          <span className="muted">{`needs: ${item.metadata.connection_kinds.join(', ')}`}</span>
        )}
      </div>
      {item.refusal && (
        <p className="error">
          {item.refusal.message} <span className="mono">({item.refusal.code})</span>
        </p>
      )}
      {canManage && (
        <div className="row">
          {item.available && item.install_state !== 'installed' && (
            <button type="button" disabled={action.busy} onClick={preview} aria-label={`Preview ${item.id}`}>
              Preview
            </button>
          )}
          <button type="button" disabled={action.busy} onClick={test} aria-label={`Test ${item.id}`}>
            Test
          </button>
        </div>
      )}
      <ErrorNote error={action.error} />
      {done && (
        <p role="status" className="outcome-ok">
          {done}
        </p>
      )}
      {plan && (
        <PlanReview
          plan={plan}
          onCarriedOut={(words) => {
            setPlan(null);
            setDone(words);
            onChanged();
          }}
          onCancel={() => setPlan(null)}
        />
      )}
      {tested && <TestRows tested={tested} />}
    </section>
  );
}

/** A preview's plan, and the consent that carries it out. */
function PlanReview({ plan, onCarriedOut, onCancel }: { plan: Plan; onCarriedOut: (words: string) => void; onCancel: () => void }) {
  const action = useAction();
  const [accepted, setAccepted] = useState<ReadonlySet<string>>(new Set());
  const [danger, setDanger] = useState(false);
  const verb = plan.kind === 'install' ? 'Install' : 'Upgrade';
  const carryOut = () =>
    action.run(
      async () => {
        const body = { preview_token: plan.preview_token, accepted_overwrite_ids: [...accepted], acknowledge_danger: danger };
        const params = { path: { pack_id: plan.pack_id } };
        return plan.kind === 'install'
          ? answer(await client.POST('/integration-packs/registry/{pack_id}/install', { params, body }))
          : answer(await client.POST('/integration-packs/registry/{pack_id}/upgrade', { params, body }));
      },
      (installed) =>
        onCarriedOut(`${plan.kind === 'install' ? 'Installed' : 'Upgraded'} ${installed.pack_id} ${installed.version}: ${installed.actions.length} actions.`),
    );
  return (
    <div className="plan" data-testid="pack-plan">
      <h3>{`${verb} ${plan.from_version ? `${plan.from_version} → ` : ''}${plan.to_version}`}</h3>
      <table aria-label={`What ${plan.kind === 'install' ? 'installing' : 'upgrading'} ${plan.pack_id} changes`}>
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Change</th>
            <th scope="col">Version</th>
            <th scope="col">Risk</th>
            <th scope="col">Effect</th>
          </tr>
        </thead>
        <tbody>
          {plan.actions.map((a) => (
            <tr key={a.name}>
              <td className="mono">{a.name}</td>
              <td>{a.change}</td>
              <td>{a.current_version === null ? `new, v${a.version_after}` : `v${a.current_version} → v${a.version_after}`}</td>
              <td>{a.arbitrary ? `${a.risk} (arbitrary)` : a.risk}</td>
              <td>{a.effect_type}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {plan.drift.length > 0 && (
        <fieldset>
          <legend>Changed here since they were installed: overwrite them?</legend>
          {plan.drift.map((d) => (
            <label key={d.custom_action_id}>
              <input
                type="checkbox"
                checked={accepted.has(d.custom_action_id)}
                onChange={(event) => {
                  const next = new Set(accepted);
                  if (event.target.checked) next.add(d.custom_action_id);
                  else next.delete(d.custom_action_id);
                  setAccepted(next);
                }}
              />
              {` ${d.name} (${d.reason.replace(/_/g, ' ')})`}
            </label>
          ))}
        </fieldset>
      )}
      {plan.blocking_runs.length > 0 && (
        <p className="error">{`${plan.blocking_runs.length} runs use these actions now: the ${plan.kind} waits until they finish or are cancelled.`}</p>
      )}
      {plan.requires_acknowledge_danger && (
        <label>
          <input type="checkbox" checked={danger} onChange={(event) => setDanger(event.target.checked)} /> This pack saves an arbitrary-tier action (it can run
          anything its connection allows); I accept that.
        </label>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={action.busy || (plan.requires_acknowledge_danger && !danger)} onClick={carryOut}>
          {`${verb} as previewed`}
        </button>
        <button type="button" disabled={action.busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorNote error={action.error} />
    </div>
  );
}

/** A pack test's rows: each check of each action, passed, failed or skipped, with its detail. */
function TestRows({ tested }: { tested: TestAnswer }) {
  const { pass, fail, skipped } = tested.summary;
  return (
    <>
      <p
        role="status"
        data-testid="pack-test-summary"
      >{`Checks of ${tested.pack_id} ${tested.version}: ${pass} passed, ${fail} failed, ${skipped} skipped.`}</p>
      <table aria-label={`Checks of ${tested.pack_id}`}>
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Check</th>
            <th scope="col">Fixture</th>
            <th scope="col">Outcome</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {tested.rows.map((row, i) => (
            <tr key={`${row.action}:${row.check}:${row.fixture ?? i}`}>
              <td className="mono">{row.action}</td>
              <td>{row.check}</td>
              <td className="mono">{row.fixture ?? ''}</td>
              <td>
                <Badge kind="status" value={row.status} />
              </td>
              <td>{row.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
