/**
 * Editing a case's title, description, severity, tags and ATT&CK techniques
 * (`PUT /cases/<id>`, only the fields that changed; edit-fields.ts holds the rules). A
 * technique id is checked as it is added (`T1059`, `T1059.001`); the API checks
 * everything again and its refusal is shown in words. A change of techniques lands on the
 * timeline as `attack_techniques_updated`.
 */
import { type FormEvent, type KeyboardEvent, useId, useState } from 'react';
import { useAction } from '../action.ts';
import { type TechniqueNames, techniqueWords, useTechniqueNames } from '../attack.ts';
import { answer, client } from '../api.ts';
import type { Case } from '../api-shapes.ts';
import { caseSeverities } from '../config.ts';
import { ErrorNote, withCurrent } from '../ui.tsx';
import { type CaseFields, caseChanges, fieldsOf, MAX_TECHNIQUES, parseTag, parseTechnique, withItem } from './edit-fields.ts';

/** The edit form of `value`: `onSaved` after a save, `onCancel` when closed unsaved. */
export function CaseEditForm({ value, onSaved, onCancel }: { value: Case; onSaved: () => void; onCancel: () => void }) {
  const before = fieldsOf(value);
  const techniques = useTechniqueNames();
  const [form, setForm] = useState<CaseFields>(before);
  const action = useAction();
  const changes = caseChanges(before, form);
  const unchanged = Object.keys(changes).length === 0;
  const save = (event: FormEvent) => {
    event.preventDefault();
    if (unchanged) return onCancel();
    return action.run(async () => answer(await client.PUT('/cases/{id}', { params: { path: { id: value.id } }, body: changes })), onSaved);
  };
  return (
    <form className="case-edit" aria-label="Edit the case" onSubmit={save}>
      <label>
        Title
        <input type="text" required maxLength={500} value={form.title} onChange={(event) => setForm({ ...form, title: event.target.value })} />
      </label>
      <label>
        Description
        <textarea rows={3} maxLength={20_000} value={form.description} onChange={(event) => setForm({ ...form, description: event.target.value })} />
      </label>
      <label>
        Severity
        <select value={form.severity} onChange={(event) => setForm({ ...form, severity: event.target.value })}>
          {withCurrent(caseSeverities, form.severity).map((severity) => (
            <option key={severity} value={severity}>
              {severity}
            </option>
          ))}
        </select>
      </label>
      <ListField label="Tags" noun="tag" items={form.tags} parse={parseTag} onChange={(tags) => setForm({ ...form, tags })} />
      <ListField
        label="ATT&CK techniques"
        noun="technique"
        items={form.attack_techniques}
        max={MAX_TECHNIQUES}
        parse={parseTechnique}
        known={techniques}
        onChange={(techniques) => setForm({ ...form, attack_techniques: techniques })}
      />
      <div className="row">
        <button type="submit" className="primary" disabled={action.busy}>
          {unchanged ? 'Close' : 'Save changes'}
        </button>
        <button type="button" disabled={action.busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorNote error={action.error} />
    </form>
  );
}

/**
 * A list of short values (tags, technique ids) shown as removable items, with a field that
 * adds one (Enter or the button) once `parse` accepts it, or says why not. With `known`
 * (the ATT&CK catalog's techniques) each item is named, the field suggests the catalog's
 * ids by name, and a typed id is named, or said to be unknown to the catalog, before it is
 * added: an id the catalog lacks is still taken (a newer ATT&CK release may hold it).
 */
function ListField({
  label,
  noun,
  items,
  max,
  parse,
  known,
  onChange,
}: {
  label: string;
  noun: string;
  items: string[];
  max?: number;
  parse: (text: string) => { id: string } | { problem: string };
  known?: TechniqueNames;
  onChange: (items: string[]) => void;
}) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const problemId = useId();
  const hintId = useId();
  const suggestionsId = useId();
  const catalog = known && known.items.length > 0 ? known : null;
  const typed = text.trim() === '' ? null : parse(text);
  const typedId = typed && 'id' in typed ? typed.id : null;
  const typedTechnique = typedId ? catalog?.byId.get(typedId) : undefined;
  const hint =
    !catalog || !typedId ? null : typedTechnique ? `${typedId}: ${techniqueWords(typedTechnique)}` : `${typedId} is not in this install's ATT&CK catalog.`;
  const full = max !== undefined && items.length >= max;
  const add = () => {
    const parsed = parse(text);
    if ('problem' in parsed) return setProblem(parsed.problem);
    setProblem(null);
    setText('');
    onChange(withItem(items, parsed.id));
  };
  const onKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    add();
  };
  return (
    <fieldset className="list-field">
      <legend>{label}</legend>
      {items.length === 0 ? (
        <p className="muted">{`No ${noun}s.`}</p>
      ) : (
        <ul className="chips">
          {items.map((item) => {
            const name = catalog?.byId.get(item)?.name;
            return (
              <li key={item} className="chip">
                <span className={noun === 'technique' ? 'mono' : undefined}>{item}</span>
                {name && <span>{` ${name}`}</span>}
                <button type="button" aria-label={`Remove ${noun} ${item}`} onClick={() => onChange(items.filter((other) => other !== item))}>
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div className="row">
        <input
          type="text"
          aria-label={`Add a ${noun}`}
          aria-invalid={problem !== null}
          aria-describedby={problem ? problemId : hint ? hintId : undefined}
          list={catalog ? suggestionsId : undefined}
          disabled={full}
          value={text}
          onChange={(event) => {
            // A refusal speaks of the text that was refused: once it changes, the refusal goes.
            setProblem(null);
            setText(event.target.value);
          }}
          onKeyDown={onKey}
        />
        <button type="button" disabled={full} onClick={add}>
          {`Add ${noun}`}
        </button>
      </div>
      {catalog && (
        <datalist id={suggestionsId}>
          {catalog.items.map((technique) => (
            <option key={technique.id} value={technique.id}>
              {technique.name}
            </option>
          ))}
        </datalist>
      )}
      {hint && !problem && (
        <p id={hintId} className="muted" data-testid={`${noun}-hint`}>
          {hint}
        </p>
      )}
      {problem && (
        <p id={problemId} className="error" role="alert">
          {problem}
        </p>
      )}
      {full && <p className="muted">{`At most ${max} ${noun}s.`}</p>}
    </fieldset>
  );
}
