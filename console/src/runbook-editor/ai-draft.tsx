/**
 * Drafting with AI in the runbook editor (SPEC.md "AI": `POST /ai/runbook-drafts`): the
 * author describes the runbook, the model proposes YAML (the draft in the editor sent as
 * `base_yaml`, so a change is proposed against it), and the proposal is shown as a line
 * diff against the editor's text with its summary, the actions it uses and its approval
 * steps. Accepting puts it in the editor, unsaved, to validate, dry-run and save like
 * any other change; rejecting drops it. A proposal the service refused (an action that
 * does not exist here, a runbook that does not validate) is shown with its reasons.
 */
import { type FormEvent, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { TextDiff } from '../text-diff.tsx';
import { ErrorNote } from '../ui.tsx';

type DraftAnswer = paths['/ai/runbook-drafts']['post']['responses'][200]['content']['application/json'];
type Refusal = NonNullable<DraftAnswer['refusal']>;

/** A refusal's reasons in words: the unknown actions, or each validation problem at its path. */
function refusalReasons(refusal: Refusal): string[] {
  if ('unknown_actions' in refusal.details) return refusal.details.unknown_actions.map((action) => `no action ${action} here`);
  return refusal.details.errors.map((error) => `${error.loc.join('.') || 'document'}: ${error.msg}`);
}

export function AiDraft({ text, onAccept }: { text: string; onAccept: (yaml: string) => void }) {
  const [description, setDescription] = useState('');
  const [answered, setAnswered] = useState<DraftAnswer | null>(null);
  const ask = useAction();
  const draft = (event: FormEvent) => {
    event.preventDefault();
    setAnswered(null);
    return ask.run(
      async () => answer(await client.POST('/ai/runbook-drafts', { body: { description: description.trim(), base_yaml: text.trim() ? text : null } })),
      setAnswered,
    );
  };
  const proposal = answered?.proposal ?? null;
  const refusal = answered?.refusal ?? null;
  return (
    <section className="panel" aria-labelledby="ai-draft-title">
      <h2 id="ai-draft-title">Draft with AI</h2>
      <form className="settings-form" onSubmit={draft}>
        <label>
          What should the runbook do?
          <textarea
            rows={3}
            required
            maxLength={4000}
            value={description}
            placeholder="Tag phishing cases, look up the sender's domain, and ask an approver before blocking it"
            onChange={(event) => setDescription(event.target.value)}
          />
        </label>
        <div className="row">
          <button type="submit" disabled={ask.busy}>
            Draft it
          </button>
          {ask.busy && <span role="status">Asking…</span>}
        </div>
        <ErrorNote error={ask.error} />
      </form>
      {refusal && (
        <div role="alert" className="error" data-testid="ai-draft-refusal">
          <p>{refusal.message}</p>
          <ul>
            {refusalReasons(refusal).map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        </div>
      )}
      {proposal && (
        <div data-testid="ai-draft-proposal">
          <p>
            <strong>{proposal.name}</strong>: {proposal.summary}
          </p>
          <p className="muted">{`Actions: ${proposal.actions_used.join(', ') || 'none'}. Approval steps: ${proposal.approval_steps.join(', ') || 'none'}.`}</p>
          {proposal.notes.length > 0 && (
            <ul>
              {proposal.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
          <TextDiff before={text} after={proposal.yaml_text} label="The proposal against the editor's text" />
          <div className="row">
            <button
              type="button"
              className="primary"
              onClick={() => {
                onAccept(proposal.yaml_text);
                setAnswered(null);
              }}
            >
              Accept the draft
            </button>
            <button type="button" onClick={() => setAnswered(null)}>
              Reject it
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
