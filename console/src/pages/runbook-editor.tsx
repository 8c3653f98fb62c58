/**
 * The runbook editor (`/runbooks/new`, `/runbooks/<slug>/edit`; docs/console.md "Runbook
 * authoring"): the YAML in a code editor with the server's validation (`POST
 * /runbooks/validate`) shown at each problem's line and listed under it; the steps drawn on
 * a canvas where a step is added, dragged (`ui {x, y}`) and linked (`needs`), each edit
 * written back into the YAML; a dry run of the draft on a case with each step's preview;
 * saving (`POST /runbooks/<slug>`, the refusal placed at its line, a version to bump offered);
 * then a real run of the saved version; an AI draft shown as a diff to accept or reject. A runbook from Git is shown read-only with its
 * source: it changes in its repository and arrives by sync.
 */
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useAction } from '../action.ts';
import { ApiError, answer, client } from '../api.ts';
import { problemsIn } from '../errors.ts';
import type { RunDetail, Runbook } from '../api-shapes.ts';
import { useResource } from '../resource.ts';
import { RunGraph, type StepStates } from '../run-graph.tsx';
import { AddStep } from '../runbook-editor/add-step.tsx';
import { AiDraft } from '../runbook-editor/ai-draft.tsx';
import { readDraft, withNeeds, withPosition, withStep, withVersion } from '../runbook-editor/draft.ts';
import { TrialRun } from '../runbook-editor/trial-run.tsx';
import { useValidation } from '../runbook-editor/validation.ts';
import { placed } from '../yaml-loc.ts';
import { ProblemList } from '../problem-list.tsx';
import { YamlEditor } from '../yaml-editor.tsx';
import { ErrorNote, Loading } from '../ui.tsx';

/** What a new runbook starts from: one manual step, valid as it stands. */
export const NEW_RUNBOOK = `id: my-runbook
name: My runbook
description: What it does, and when to run it.
version: 1
enabled: true
trigger: { type: manual }
steps:
  - id: tag
    action: case.update
    ui: { x: 0, y: 0 }
    with: { tags_add: [triage] }
`;

/** A Git-synced runbook changes in its repository, not here (docs/configuration.md "Git source"). */
const fromGit = (runbook: Runbook | null): boolean => runbook?.source.startsWith('git') ?? false;

/** The save's refusals that are not the YAML's problems: the version rule, asking for a bump. */
const VERSION_CODES = new Set(['runbook_version_not_bumped', 'runbook_version_decrease']);

function Editor({ stored }: { stored: Runbook | null }) {
  const navigate = useNavigate();
  const [text, setText] = useState(stored?.yaml_text ?? NEW_RUNBOOK);
  const [savedText, setSavedText] = useState(stored?.yaml_text ?? null);
  const [savedVersion, setSavedVersion] = useState(stored?.version ?? null);
  const [trial, setTrial] = useState<RunDetail | null>(null);
  const validation = useValidation(text);
  const save = useAction();
  const readOnly = fromGit(stored);
  const draft = useMemo(() => readDraft(text), [text]);
  const slug = stored?.id ?? (draft.ok ? draft.slug : null);
  const saved = savedText === text;

  const [attempted, setAttempted] = useState<string | null>(null);
  // A refusal speaks of the text that was sent: once the author edits it, the validation speaks instead.
  const saveProblems = save.error instanceof ApiError && attempted === text ? save.error.problems : null;
  // The save's refusal of the YAML, placed like the validation's: its loc is below the body's `yaml_text`.
  const problems = useMemo(() => {
    const fromSave = placed(text, problemsIn(saveProblems ?? [], 'yaml_text'));
    return validation.checkedText === text ? [...validation.problems, ...fromSave] : fromSave;
  }, [text, saveProblems, validation]);
  const versionRefused = save.error instanceof ApiError && save.error.code !== null && VERSION_CODES.has(save.error.code);
  const states = useMemo<StepStates | undefined>(() => (trial ? Object.fromEntries(trial.steps.map((step) => [step.id, step.status])) : undefined), [trial]);

  const edits = {
    connect: (need: string, step: string) => {
      const target = draft.ok ? draft.steps.find((s) => s.id === step) : undefined;
      if (target && !target.needs.includes(need)) setText(withNeeds(text, step, [...target.needs, need]));
    },
    disconnect: (need: string, step: string) => {
      const target = draft.ok ? draft.steps.find((s) => s.id === step) : undefined;
      if (target)
        setText(
          withNeeds(
            text,
            step,
            target.needs.filter((n) => n !== need),
          ),
        );
    },
    move: (step: string, at: { x: number; y: number }) => setText(withPosition(text, step, at)),
  };

  const saveDraft = () => {
    if (!slug) return;
    setAttempted(text);
    return save.run(
      async () => answer(await client.POST('/runbooks/{slug}', { params: { path: { slug } }, body: { yaml_text: text } })),
      (answered) => {
        setSavedText(text);
        setSavedVersion(answered.runbook.version);
        if (!stored) navigate(`/runbooks/${encodeURIComponent(answered.runbook.id)}/edit`, { replace: true });
      },
    );
  };

  return (
    <>
      <h1>{stored ? `Edit ${stored.name}` : 'New runbook'}</h1>
      {readOnly && stored && (
        <p className="panel" role="note">
          {`This runbook comes from Git (${stored.source}): change it in its repository, then sync. It is shown read-only here.`}
        </p>
      )}
      <div className="row">
        <span role="status" data-testid="draft-state">
          {saved ? `Saved as version ${savedVersion}.` : savedText === null ? 'Not saved yet.' : 'Unsaved changes.'}
        </span>
        {!readOnly && (
          <button type="button" className="primary" disabled={save.busy || saved || !slug} onClick={saveDraft}>
            Save
          </button>
        )}
        {stored && <Link to={`/runbooks/${encodeURIComponent(stored.id)}`}>Back to the runbook</Link>}
      </div>
      {save.error && !saveProblems?.length && <ErrorNote error={save.error} />}
      {versionRefused && draft.ok && savedVersion !== null && (
        <p>
          <button type="button" onClick={() => setText(withVersion(text, savedVersion + 1))}>{`Bump to version ${savedVersion + 1}`}</button>
        </p>
      )}
      <div className="editor-grid">
        <section aria-labelledby="yaml-title">
          <h2 id="yaml-title">YAML</h2>
          <YamlEditor value={text} onChange={setText} problems={problems} readOnly={readOnly} label="Runbook YAML" />
          <div aria-live="polite" data-testid="validation">
            {validation.checking && <p className="muted">Checking…</p>}
            <ErrorNote error={validation.error} />
            {!validation.checking && problems.length === 0 && !validation.error && <p className="ok-text">The server finds no problem.</p>}
            <ProblemList problems={problems} />
          </div>
        </section>
        <section aria-labelledby="canvas-title">
          <h2 id="canvas-title">Steps</h2>
          {draft.ok ? (
            <>
              <RunGraph
                steps={draft.steps}
                states={states}
                label="Steps of the draft; drag to place, connect to add a need"
                edit={readOnly ? undefined : edits}
              />
              {!readOnly && <AddStep steps={draft.steps} disabled={false} onAdd={(step) => setText(withStep(text, step))} />}
            </>
          ) : (
            <p className="error">{`The canvas waits for valid YAML: ${draft.msg}`}</p>
          )}
        </section>
      </div>
      <TrialRun slug={slug} text={text} saved={saved} onRun={setTrial} />
      {!readOnly && <AiDraft text={text} onAccept={setText} />}
    </>
  );
}

/** `/runbooks/new` (no slug) or `/runbooks/<slug>/edit`. */
export function RunbookEditorPage() {
  const slug = useParams().slug;
  const stored = useResource(async () => (slug ? answer(await client.GET('/runbooks/{slug}', { params: { path: { slug } } })) : null), [slug]);
  if (slug && !stored.data) {
    return (
      <>
        <h1>Edit runbook</h1>
        <ErrorNote error={stored.error} />
        {stored.loading && <Loading what="the runbook" />}
      </>
    );
  }
  return <Editor key={slug ?? 'new'} stored={stored.data ?? null} />;
}
