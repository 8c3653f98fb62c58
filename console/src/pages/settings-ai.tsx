/**
 * AI settings (`/settings/ai`; SPEC.md "AI settings"): whether AI is on for this install
 * and with which provider and model (`GET /settings/ai/status`; the provider, its key and
 * the on/off switch belong to the identity service and the operator's kill switch, so
 * they are shown, never edited here), and how AI may be used: the data classes a prompt
 * may carry, `max_tokens`, `temperature` and `timeout_seconds` (`GET`, `PUT /settings/ai`,
 * realm administrators; a change is audited `ai.settings.updated`).
 */
import { type FormEvent, useEffect, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { ErrorNote, Loading } from '../ui.tsx';

type AiUsage = paths['/settings/ai']['get']['responses'][200]['content']['application/json'];
type DataClass = AiUsage['data_classes'][number];

/** What each data class lets a prompt carry (docs/configuration.md "AI"), every class listed or the type check fails. */
const DATA_CLASSES: Record<DataClass, string> = {
  cases: "cases: a case's fields, observables and the analyst's note",
  alerts: "alerts: a case's alerts",
  events: 'events: the raw events alerts arrived with',
  pipelines: "pipelines: the suite's pipeline data (no feature here sends it yet)",
};

export function AiSettingsPage() {
  const status = useResource(async () => answer(await client.GET('/settings/ai/status')), []);
  const usage = useResource(async () => answer(await client.GET('/settings/ai')), []);
  return (
    <>
      <SettingsNav />
      <h1>AI settings</h1>
      <p className="muted">AI advises and never decides: it drafts, triages and explains, and a person acts.</p>
      <section className="panel" aria-labelledby="ai-status-title">
        <h2 id="ai-status-title">Status</h2>
        <ErrorNote error={status.error} />
        {!status.data && !status.error && <Loading what="the AI status" />}
        {status.data && (
          <p role="status" data-testid="ai-status">
            {status.data.enabled
              ? `On: ${status.data.provider ?? 'a provider'}, model ${status.data.model ?? 'unnamed'}.`
              : 'Off: the identity service has not enabled a complete provider, or the operator’s kill switch (SVC_AI_KILL_SWITCH) is on.'}
          </p>
        )}
        <p className="muted">The provider, its key and the switch are set in the identity service, never here.</p>
      </section>
      <ErrorNote error={usage.error} />
      {!usage.data && !usage.error && <Loading what="the AI usage settings" />}
      {usage.data && <UsageForm value={usage.data} onSaved={usage.reload} />}
    </>
  );
}

/** The usage half as a form; saved whole with PUT, as the API takes all four fields. */
function UsageForm({ value, onSaved }: { value: AiUsage; onSaved: () => void }) {
  const canEdit = useMe().role === 'admin';
  const [draft, setDraft] = useState<AiUsage>(value);
  const [saved, setSaved] = useState(false);
  useEffect(() => setDraft(value), [value]);
  const action = useAction();
  const toggle = (dataClass: DataClass, on: boolean) =>
    setDraft({ ...draft, data_classes: on ? [...draft.data_classes, dataClass] : draft.data_classes.filter((c) => c !== dataClass) });
  const save = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    return action.run(
      async () => answer(await client.PUT('/settings/ai', { body: draft })),
      () => {
        setSaved(true);
        onSaved();
      },
    );
  };
  return (
    <section className="panel" aria-labelledby="ai-usage-title">
      <h2 id="ai-usage-title">Usage</h2>
      <form className="settings-form" onSubmit={save}>
        <fieldset disabled={!canEdit}>
          <legend>Data a prompt may carry</legend>
          {(Object.keys(DATA_CLASSES) as DataClass[]).map((dataClass) => (
            <label key={dataClass} className="check">
              <input type="checkbox" checked={draft.data_classes.includes(dataClass)} onChange={(event) => toggle(dataClass, event.target.checked)} />
              {DATA_CLASSES[dataClass]}
            </label>
          ))}
        </fieldset>
        <label>
          Max tokens
          <input
            type="number"
            min={1}
            max={32768}
            step={1}
            required
            disabled={!canEdit}
            value={draft.max_tokens}
            onChange={(event) => setDraft({ ...draft, max_tokens: Number(event.target.value) })}
          />
        </label>
        <label>
          Temperature
          <input
            type="number"
            min={0}
            max={2}
            step={0.1}
            required
            disabled={!canEdit}
            value={draft.temperature}
            onChange={(event) => setDraft({ ...draft, temperature: Number(event.target.value) })}
          />
        </label>
        <label>
          Timeout (seconds)
          <input
            type="number"
            min={1}
            max={300}
            step={1}
            required
            disabled={!canEdit}
            value={draft.timeout_seconds}
            onChange={(event) => setDraft({ ...draft, timeout_seconds: Number(event.target.value) })}
          />
        </label>
        {canEdit && (
          <div className="row">
            <button type="submit" className="primary" disabled={action.busy}>
              Save usage settings
            </button>
            {saved && <span role="status">Saved.</span>}
          </div>
        )}
        <ErrorNote error={action.error} />
      </form>
    </section>
  );
}
