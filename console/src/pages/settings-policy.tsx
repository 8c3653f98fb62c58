/**
 * The response policy (`/settings/policy`; docs/containment.md): what containment may
 * touch and how, edited as a draft and published as a new version (`PUT /response-policy`
 * with `base_version`, so a policy someone else published meanwhile is refused, 409, rather
 * than overwritten). Protected targets, the TTL bounds, automatic grants (what runs
 * unattended) and adapter bindings, whose actions are chosen from the service's
 * `bindable_actions` and connections by name. The versions, newest first, each with what it
 * changed against the one before. Administrators only, as the API decides.
 */
import { useRef, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import { useResource } from '../resource.ts';
import {
  type Binding,
  documentOf,
  EFFECT_TARGETS,
  EFFECT_TYPES,
  type EffectType,
  type Grant,
  newBinding,
  newGrant,
  type PolicyDocument,
  type PolicyView,
  policyDiff,
  TARGET_TYPES,
  type TargetType,
  targetFor,
} from '../settings/policy-fields.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { Ago, ErrorNote, Loading, withCurrent } from '../ui.tsx';

export function PolicyPage() {
  const policy = useResource(async () => answer(await client.GET('/response-policy')), []);
  return (
    <>
      <SettingsNav />
      <h1>Response policy</h1>
      <ErrorNote error={policy.error} />
      {!policy.data && !policy.error && <Loading what="the response policy" />}
      {policy.data && <PolicyEditor key={policy.data.version} view={policy.data} onPublished={policy.reload} />}
      {policy.data && <PolicyVersions key={`versions-${policy.data.version}`} />}
    </>
  );
}

function PolicyEditor({ view, onPublished }: { view: PolicyView; onPublished: () => void }) {
  const [draft, setDraft] = useState<PolicyDocument>(() => documentOf(view));
  const action = useAction();
  const connections = useResource(async () => answer(await client.GET('/connections')), []);
  const changes = policyDiff(documentOf(view), draft);
  const publish = () => action.run(async () => answer(await client.PUT('/response-policy', { body: { ...draft, base_version: view.version } })), onPublished);
  const grants = draft.automatic_grants ?? [];
  const bindings = draft.adapters ?? [];
  // Grants and bindings have no identity of their own: each row gets a key for as long as it is edited.
  const nextKey = useRef(0);
  const keysFor = (n: number) => Array.from({ length: n }, () => nextKey.current++);
  const [grantKeys, setGrantKeys] = useState(() => keysFor(grants.length));
  const [bindingKeys, setBindingKeys] = useState(() => keysFor(bindings.length));
  const setGrant = (i: number, grant: Grant) => setDraft({ ...draft, automatic_grants: grants.map((g, j) => (j === i ? grant : g)) });
  const setBinding = (i: number, binding: Binding) => setDraft({ ...draft, adapters: bindings.map((b, j) => (j === i ? binding : b)) });
  const removeGrant = (i: number) => {
    setDraft({ ...draft, automatic_grants: grants.filter((_, j) => j !== i) });
    setGrantKeys(grantKeys.filter((_, j) => j !== i));
  };
  const removeBinding = (i: number) => {
    setDraft({ ...draft, adapters: bindings.filter((_, j) => j !== i) });
    setBindingKeys(bindingKeys.filter((_, j) => j !== i));
  };
  const actionNames = view.bindable_actions.map((a) => a.name);
  return (
    <>
      <p data-testid="policy-version">
        {view.version === 0 ? (
          'In force: the default policy (never published).'
        ) : (
          <>
            {`In force: version ${view.version}, published by ${view.published_by ?? 'unknown'} `}
            {view.published_at && <Ago at={view.published_at} />}.
          </>
        )}
      </p>
      <ProtectedTargets targets={draft.protected_targets ?? []} onChange={(protectedTargets) => setDraft({ ...draft, protected_targets: protectedTargets })} />
      <section className="panel" aria-labelledby="ttl-title">
        <h2 id="ttl-title">TTL bounds</h2>
        <div className="row">
          <label>
            Shortest, seconds
            <input
              type="number"
              min={1}
              value={draft.ttl.min_seconds}
              onChange={(event) => setDraft({ ...draft, ttl: { ...draft.ttl, min_seconds: Number(event.target.value) } })}
            />
          </label>
          <label>
            Longest, seconds
            <input
              type="number"
              min={1}
              value={draft.ttl.max_seconds}
              onChange={(event) => setDraft({ ...draft, ttl: { ...draft.ttl, max_seconds: Number(event.target.value) } })}
            />
          </label>
        </div>
      </section>
      <section className="panel" aria-labelledby="grants-title">
        <h2 id="grants-title">Automatic grants</h2>
        <p className="muted">What runs unattended, up to its TTL; anything else waits for an approver.</p>
        {grants.map((grant, i) => (
          <fieldset key={grantKeys[i]} className="row" aria-label={`Grant ${i + 1}`}>
            <EffectChoice
              effect={grant.effect_type}
              target={grant.target_type}
              onChange={(effect, target) => setGrant(i, { ...grant, effect_type: effect, target_type: target })}
            />
            <label>
              Longest TTL, seconds
              <input
                type="number"
                min={1}
                value={grant.max_ttl_seconds}
                onChange={(event) => setGrant(i, { ...grant, max_ttl_seconds: Number(event.target.value) })}
              />
            </label>
            <label>
              Severities (comma-separated, empty: all)
              <input
                type="text"
                value={(grant.severities ?? []).join(', ')}
                onChange={(event) =>
                  setGrant(i, {
                    ...grant,
                    severities: event.target.value
                      .split(',')
                      .map((s) => s.trim())
                      .filter((s) => s !== ''),
                  })
                }
              />
            </label>
            <button type="button" onClick={() => removeGrant(i)}>
              Remove grant
            </button>
          </fieldset>
        ))}
        <button
          type="button"
          onClick={() => {
            setDraft({ ...draft, automatic_grants: [...grants, newGrant()] });
            setGrantKeys([...grantKeys, ...keysFor(1)]);
          }}
        >
          Add a grant
        </button>
      </section>
      <section className="panel" aria-labelledby="bindings-title">
        <h2 id="bindings-title">Adapter bindings</h2>
        <p className="muted">Which adapter's actions carry out each effect, on which connection.</p>
        {bindings.map((binding, i) => (
          <fieldset key={bindingKeys[i]} className="binding" aria-label={`Binding ${i + 1}`}>
            <div className="row">
              <EffectChoice
                effect={binding.effect_type}
                target={binding.target_type}
                onChange={(effect, target) => setBinding(i, { ...binding, effect_type: effect, target_type: target })}
              />
              <label>
                Adapter
                <input
                  type="text"
                  value={binding.adapter_id}
                  placeholder="edge_waf"
                  onChange={(event) => setBinding(i, { ...binding, adapter_id: event.target.value })}
                />
              </label>
              <label>
                Connection
                <select value={binding.connection_name} onChange={(event) => setBinding(i, { ...binding, connection_name: event.target.value })}>
                  <option value="">choose</option>
                  {(connections.data?.items ?? []).map((c) => (
                    <option key={c.id} value={c.name}>{`${c.name} (${c.kind})`}</option>
                  ))}
                </select>
              </label>
            </div>
            <div className="row">
              <ActionChoice
                label="Block action"
                value={binding.block_action}
                names={actionNames}
                onChange={(name) => setBinding(i, { ...binding, block_action: name })}
              />
              <ActionChoice
                label="Unblock action"
                value={binding.unblock_action}
                names={actionNames}
                onChange={(name) => setBinding(i, { ...binding, unblock_action: name })}
              />
              <ActionChoice
                label="Status action"
                value={binding.status_action ?? ''}
                names={actionNames}
                onChange={(name) => setBinding(i, { ...binding, status_action: name === '' ? null : name })}
              />
            </div>
            <ParametersField value={binding.parameters ?? {}} onChange={(parameters) => setBinding(i, { ...binding, parameters })} />
            <button type="button" onClick={() => removeBinding(i)}>
              Remove binding
            </button>
          </fieldset>
        ))}
        <button
          type="button"
          onClick={() => {
            setDraft({ ...draft, adapters: [...bindings, newBinding()] });
            setBindingKeys([...bindingKeys, ...keysFor(1)]);
          }}
        >
          Add a binding
        </button>
      </section>
      <section className="panel" aria-labelledby="publish-title">
        <h2 id="publish-title">Publish</h2>
        {changes.length === 0 ? (
          <p className="muted">The draft is the policy in force.</p>
        ) : (
          <pre className="diff" data-testid="policy-draft-diff">
            {changes.join('\n')}
          </pre>
        )}
        <button type="button" className="primary" disabled={action.busy || changes.length === 0} onClick={publish}>
          {`Publish as version ${view.version + 1}`}
        </button>
        <ErrorNote error={action.error ?? connections.error} />
      </section>
    </>
  );
}

/** An effect type and a target type it acts on. */
function EffectChoice({ effect, target, onChange }: { effect: EffectType; target: TargetType; onChange: (effect: EffectType, target: TargetType) => void }) {
  return (
    <>
      <label>
        Effect
        <select value={effect} onChange={(event) => onChange(event.target.value as EffectType, targetFor(event.target.value as EffectType, target))}>
          {EFFECT_TYPES.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      </label>
      <label>
        Target
        <select value={target} onChange={(event) => onChange(effect, event.target.value as TargetType)}>
          {TARGET_TYPES.filter((t) => EFFECT_TARGETS[effect].includes(t)).map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

/** One of the actions a binding may name. */
function ActionChoice({ label, value, names, onChange }: { label: string; value: string; names: string[]; onChange: (name: string) => void }) {
  return (
    <label>
      {label}
      <select aria-label={label} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">none</option>
        {withCurrent(names, value).map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A binding's parameters as a JSON object of scalars, applied once it parses. */
function ParametersField({ value, onChange }: { value: Binding['parameters']; onChange: (parameters: NonNullable<Binding['parameters']>) => void }) {
  const [text, setText] = useState(() => JSON.stringify(value ?? {}));
  const [problem, setProblem] = useState<string | null>(null);
  const edit = (next: string) => {
    setText(next);
    try {
      const parsed: unknown = JSON.parse(next === '' ? '{}' : next);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('must be a JSON object');
      setProblem(null);
      onChange(parsed as NonNullable<Binding['parameters']>);
    } catch (error) {
      setProblem(`Parameters: ${(error as Error).message}`);
    }
  };
  return (
    <label>
      Parameters (JSON)
      <input type="text" value={text} onChange={(event) => edit(event.target.value)} aria-invalid={problem !== null} />
      {problem && <span className="error">{problem}</span>}
    </label>
  );
}

/** The protected targets: what no effect may ever touch. */
function ProtectedTargets({
  targets,
  onChange,
}: {
  targets: NonNullable<PolicyDocument['protected_targets']>;
  onChange: (targets: NonNullable<PolicyDocument['protected_targets']>) => void;
}) {
  const [type, setType] = useState<TargetType>('ip');
  const [value, setValue] = useState('');
  return (
    <section className="panel" aria-labelledby="protected-title">
      <h2 id="protected-title">Protected targets</h2>
      <p className="muted">No effect ever touches these (an address range, a domain and its subdomains, a host, an identity).</p>
      {targets.length === 0 ? (
        <p className="muted">Nothing is protected.</p>
      ) : (
        <ul className="chips">
          {targets.map((t) => (
            <li key={`${t.type}:${t.value}`} className="chip">
              <span className="mono">{`${t.type} ${t.value}`}</span>
              <button type="button" aria-label={`Unprotect ${t.type} ${t.value}`} onClick={() => onChange(targets.filter((o) => o !== t))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        <label>
          Type
          <select value={type} onChange={(event) => setType(event.target.value as TargetType)}>
            {TARGET_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Value
          <input type="text" value={value} onChange={(event) => setValue(event.target.value)} />
        </label>
        <button
          type="button"
          disabled={value.trim() === ''}
          onClick={() => {
            onChange([...targets, { type, value: value.trim() }]);
            setValue('');
          }}
        >
          Protect
        </button>
      </div>
    </section>
  );
}

/** Every published version, newest first, each with what it changed against the one before (the first against the default). */
function PolicyVersions() {
  const versions = useResource(async () => answer(await client.GET('/response-policy/versions')), []);
  const items = versions.data?.items ?? [];
  // The policy in force before the first publish (docs/containment.md): what version 1 changed.
  const defaults: PolicyDocument = { protected_targets: [], ttl: { min_seconds: 60, max_seconds: 86_400 }, automatic_grants: [], adapters: [] };
  return (
    <section className="panel" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <ErrorNote error={versions.error} />
      {versions.data && items.length === 0 && <p className="muted">No version was published yet.</p>}
      <ol className="plain" data-testid="policy-versions">
        {items.map((version, i) => (
          <li key={version.version}>
            <details>
              <summary>
                {`Version ${version.version}, by ${version.published_by ?? 'unknown'} `}
                <Ago at={version.published_at} />
              </summary>
              <pre className="diff">{policyDiff(items[i + 1] ?? defaults, version).join('\n')}</pre>
            </details>
          </li>
        ))}
      </ol>
    </section>
  );
}
