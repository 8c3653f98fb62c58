/**
 * Custom fields on the case page (docs/configuration.md "Custom fields"): the fields that
 * apply to the case (`GET /custom-fields`: org-wide ones and its team's), each with its
 * value and whether it is required to resolve or close, and with `canEdit` a form that
 * sends what changed in one `PUT /cases/<id>` (`custom_fields`, an emptied field as null).
 * The API checks each value by type; its reasons are shown.
 */
import { useId, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { Case, Person } from '../api-shapes.ts';
import { useResource } from '../resource.ts';
import { ErrorNote } from '../ui.tsx';
import { personLabel } from './people.ts';

type Field = { id: string; name: string; label: string; type: string; options: string[] | null; team_id: string | null; required_at: string | null };
type Value = string | number | boolean | string[];

/** What an input holds for `value`: the text of a scalar, the list of a multi_enum. */
const draftOf = (value: Value | undefined): string | string[] => (value === undefined ? '' : Array.isArray(value) ? value : String(value));

/** The value `draft` stands for in `field`, null when emptied. */
function valueFrom(field: Field, draft: string | string[]): Value | null {
  if (Array.isArray(draft)) return draft.length === 0 ? null : draft;
  if (draft.trim() === '') return null;
  if (field.type === 'number') return Number(draft);
  if (field.type === 'boolean') return draft === 'true';
  return draft;
}

function FieldInput({
  field,
  draft,
  people,
  onChange,
}: {
  field: Field;
  draft: string | string[];
  people: Person[];
  onChange: (next: string | string[]) => void;
}) {
  const id = useId();
  const required = field.required_at ? ` (required to ${field.required_at})` : '';
  const label = (
    <label htmlFor={id}>
      {field.label}
      {required}
    </label>
  );
  const text = typeof draft === 'string' ? draft : '';
  switch (field.type) {
    case 'multi_enum': {
      const chosen = Array.isArray(draft) ? draft : [];
      return (
        <fieldset>
          <legend>
            {field.label}
            {required}
          </legend>
          {(field.options ?? []).map((option) => (
            <label key={option}>
              <input
                type="checkbox"
                checked={chosen.includes(option)}
                onChange={(event) => onChange(event.target.checked ? [...chosen, option] : chosen.filter((c) => c !== option))}
              />{' '}
              {option}
            </label>
          ))}
        </fieldset>
      );
    }
    case 'enum':
    case 'boolean':
    case 'user': {
      const options =
        field.type === 'enum'
          ? (field.options ?? []).map((o) => ({ value: o, text: o }))
          : field.type === 'boolean'
            ? [
                { value: 'true', text: 'yes' },
                { value: 'false', text: 'no' },
              ]
            : people.map((p) => ({ value: p.id, text: personLabel(p) }));
      return (
        <>
          {label}
          <select id={id} value={text} onChange={(event) => onChange(event.target.value)}>
            <option value="">(none)</option>
            {text !== '' && !options.some((o) => o.value === text) && <option value={text}>{text}</option>}
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.text}
              </option>
            ))}
          </select>
        </>
      );
    }
    default:
      return (
        <>
          {label}
          <input
            id={id}
            type={field.type === 'number' ? 'number' : field.type === 'date' ? 'date' : 'text'}
            value={text}
            onChange={(event) => onChange(event.target.value)}
          />
        </>
      );
  }
}

export function CustomFieldsPanel({ value, canEdit, onChanged }: { value: Case; canEdit: boolean; onChanged: () => void }) {
  const headingId = useId();
  const fields = useResource(async () => answer(await client.GET('/custom-fields')).items as Field[], []);
  const action = useAction();
  const [drafts, setDrafts] = useState<Record<string, string | string[]>>({});
  const applying = (fields.data ?? []).filter((f) => f.team_id === null || f.team_id === value.team);
  const asksForPeople = canEdit && applying.some((f) => f.type === 'user');
  // Only a `user` field offers people: read them only then.
  const people = useResource(
    async () => (asksForPeople ? answer(await client.GET('/cases/assignable-users', { params: { query: { case_id: value.id } } })).items : []),
    [value.id, asksForPeople],
  );
  if (applying.length === 0 && !fields.error) return null;
  const current = value.custom_fields as Record<string, Value>;
  const draftFor = (field: Field) => drafts[field.name] ?? draftOf(current[field.name]);
  const save = () => {
    const changed: Record<string, Value | null> = {};
    for (const field of applying) {
      if (drafts[field.name] === undefined) continue;
      const next = valueFrom(field, drafts[field.name] as string | string[]);
      if (JSON.stringify(next) !== JSON.stringify(current[field.name] ?? null)) changed[field.name] = next;
    }
    if (Object.keys(changed).length === 0) return;
    action.run(
      async () => answer(await client.PUT('/cases/{id}', { params: { path: { id: value.id } }, body: { custom_fields: changed } })),
      () => {
        setDrafts({});
        onChanged();
      },
    );
  };
  return (
    <section className="panel" aria-labelledby={headingId} data-testid="custom-fields">
      <h2 id={headingId}>Custom fields</h2>
      <ErrorNote error={fields.error ?? action.error} />
      {canEdit ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save();
          }}
        >
          {applying.map((field) => (
            <div key={field.id}>
              <FieldInput field={field} draft={draftFor(field)} people={people.data ?? []} onChange={(next) => setDrafts({ ...drafts, [field.name]: next })} />
            </div>
          ))}
          <button type="submit" disabled={action.busy}>
            Save fields
          </button>
        </form>
      ) : (
        <dl>
          {applying.map((field) => (
            <div key={field.id}>
              <dt>{field.label}</dt>
              <dd>
                {current[field.name] === undefined
                  ? '(none)'
                  : Array.isArray(current[field.name])
                    ? (current[field.name] as string[]).join(', ')
                    : String(current[field.name])}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
