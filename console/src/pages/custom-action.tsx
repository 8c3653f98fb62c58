/**
 * One custom action (`/settings/custom-actions/<id>`) or a new one
 * (`/settings/custom-actions/new`); docs/console.md "Custom actions". The spec is edited as
 * YAML in the code editor; saving sends it (`POST /custom-actions`, `PUT
 * /custom-actions/<id>`, each save a new version) and the service's refusal of a field is
 * marked at its line. A spec in the arbitrary tier (`risk` or `effect_type` `arbitrary`)
 * asks its author to acknowledge the danger, which the API requires. A new action starts
 * from a template or from a draft of an OpenAPI import, with the draft's notes kept in
 * view. A stored one shows its state (enable, disable), where it came from, and its
 * versions with the diff between any two.
 */
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useAction } from '../action.ts';
import { ApiError, answer, client } from '../api.ts';
import { problemsIn } from '../errors.ts';
import type { paths } from '../api-types.ts';
import { OpenApiImport, type PickedDraft } from '../custom-actions/openapi-import.tsx';
import { isArbitrary, NEW_SPEC_TEXT, readSpec, specText } from '../custom-actions/spec-text.ts';
import { CustomActionVersions } from '../custom-actions/versions.tsx';
import { ProblemList } from '../problem-list.tsx';
import { useResource } from '../resource.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { useEnableToggle } from '../custom-actions/toggle.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';
import { YamlEditor } from '../yaml-editor.tsx';
import { placed } from '../yaml-loc.ts';

type CustomAction = paths['/custom-actions/{id}']['get']['responses'][200]['content']['application/json'];
type SaveBody = paths['/custom-actions']['post']['requestBody']['content']['application/json'];

/** `/settings/custom-actions/new` (no id) or `/settings/custom-actions/<id>`. */
export function CustomActionPage() {
  const id = useParams().id;
  const stored = useResource(async () => (id ? answer(await client.GET('/custom-actions/{id}', { params: { path: { id } } })) : null), [id]);
  return (
    <>
      <SettingsNav />
      <p>
        <Link to="/settings/custom-actions">All custom actions</Link>
      </p>
      {id && !stored.data ? (
        <>
          <h1>Custom action</h1>
          <ErrorNote error={stored.error} />
          {stored.loading && <Loading what="the custom action" />}
        </>
      ) : (
        <Editor key={id ?? 'new'} stored={stored.data ?? null} onSaved={stored.reload} />
      )}
    </>
  );
}

function Editor({ stored, onSaved }: { stored: CustomAction | null; onSaved: () => void }) {
  const navigate = useNavigate();
  const [text, setText] = useState(() => (stored ? specText(stored.spec) : NEW_SPEC_TEXT));
  const [savedText, setSavedText] = useState(() => (stored ? specText(stored.spec) : null));
  const [picked, setPicked] = useState<PickedDraft | null>(null);
  const [acknowledged, setAcknowledged] = useState(false);
  const [attempted, setAttempted] = useState<string | null>(null);
  const save = useAction();
  const draft = useMemo(() => readSpec(text), [text]);
  const arbitrary = draft.ok && isArbitrary(draft.spec);
  const saved = savedText === text;
  // A refusal speaks of the text that was sent: once the author edits it, it is no longer shown at a line.
  const refusal = save.error instanceof ApiError && attempted === text ? save.error : null;
  const problems = useMemo(() => placed(text, problemsIn(refusal?.problems ?? [], 'spec')), [text, refusal]);

  const pick = (chosen: PickedDraft) => {
    setPicked(chosen);
    setText(specText(chosen.spec));
  };
  const send = () => {
    if (!draft.ok) return;
    setAttempted(text);
    const body = { spec: draft.spec, ...(arbitrary ? { acknowledge_danger: acknowledged } : {}) } as SaveBody;
    return save.run(
      async () =>
        answer(
          stored ? await client.PUT('/custom-actions/{id}', { params: { path: { id: stored.id } }, body }) : await client.POST('/custom-actions', { body }),
        ),
      (view) => {
        setSavedText(text);
        setAcknowledged(false);
        if (stored) onSaved();
        else navigate(`/settings/custom-actions/${view.id}`, { replace: true });
      },
    );
  };

  return (
    <>
      <h1>{stored ? stored.name : 'New custom action'}</h1>
      {stored && <StoredFacts action={stored} onChanged={onSaved} />}
      {!stored && <OpenApiImport onPick={pick} />}
      <section aria-labelledby="spec-title">
        <h2 id="spec-title">Spec</h2>
        {picked && (
          <div className="panel" role="note" data-testid="draft-notes">
            <p>{`Drafted from the OpenAPI document, disabled and in the arbitrary tier. The import suggests the risk ${picked.suggestedRisk}: set risk and effect_type to what the action does before saving. Check:`}</p>
            <ul>
              {picked.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          </div>
        )}
        <div className="row">
          <span role="status" data-testid="spec-state">
            {saved ? `Saved as version ${stored?.version ?? 1}.` : savedText === null ? 'Not saved yet.' : 'Unsaved changes.'}
          </span>
          <button type="button" className="primary" disabled={save.busy || saved || !draft.ok || (arbitrary && !acknowledged)} onClick={send}>
            Save
          </button>
        </div>
        {arbitrary && (
          <label className="danger-ack">
            <input type="checkbox" checked={acknowledged} onChange={(event) => setAcknowledged(event.target.checked)} />
            This action is in the arbitrary tier: it can do anything its connection allows, and no response policy bounds it. I have read it and accept that (a
            global administrator only).
          </label>
        )}
        {!draft.ok && <p className="error">{`Not a spec yet: ${draft.msg}`}</p>}
        {save.error && problems.length === 0 && <ErrorNote error={save.error} />}
        <YamlEditor value={text} onChange={setText} problems={problems} label="Custom action spec (YAML)" />
        <div aria-live="polite" data-testid="spec-problems">
          <ProblemList problems={problems} />
        </div>
      </section>
      {stored && <CustomActionVersions id={stored.id} version={stored.version} />}
    </>
  );
}

/** Where a stored action stands: version, state (with the switch), source and who changed it last. */
function StoredFacts({ action, onChanged }: { action: CustomAction; onChanged: () => void }) {
  const toggle = useEnableToggle(action, onChanged);
  return (
    <>
      <dl className="facts">
        <dt>Version</dt>
        <dd data-testid="action-version">{action.version}</dd>
        <dt>State</dt>
        <dd data-testid="action-state">{action.enabled ? 'enabled: runbooks may call it' : 'disabled: a run cannot start it'}</dd>
        <dt>From</dt>
        <dd>{action.source === 'pack' ? 'an integration pack' : 'the API'}</dd>
        <dt>Changed</dt>
        <dd>
          <Ago at={action.updated_at} />
          {action.updated_by ? ` by ${action.updated_by}` : ''}
        </dd>
      </dl>
      {action.source === 'pack' && (
        <p className="muted">Installed by an integration pack: a change saved here is a local edit, which the pack's next upgrade asks to overwrite.</p>
      )}
      <div className="row">
        <button type="button" onClick={toggle.flip} disabled={toggle.busy}>
          {action.enabled ? 'Disable' : 'Enable'}
        </button>
      </div>
      <ErrorNote error={toggle.error} />
    </>
  );
}
