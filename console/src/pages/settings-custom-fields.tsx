/**
 * Custom fields (`/settings/custom-fields`; docs/configuration.md "Custom fields"): the
 * typed fields cases carry, org-wide or a team's, each with its options and whether it is
 * required to resolve or close. Lists them (`GET /custom-fields`); an administrator defines
 * one, changes its label, options and requirement, or deletes it after confirming. The API
 * decides who may (`admin` in the field's team, a realm admin for an org-wide field); a
 * refusal shows in words.
 */
import { type FormEvent, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client, noContent } from '../api.ts';
import type { paths } from '../api-types.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { Confirm, ErrorNote, Loading } from '../ui.tsx';

type CreateBody = paths['/custom-fields']['post']['requestBody']['content']['application/json'];
type FieldType = CreateBody['type'];
type Stage = NonNullable<CreateBody['required_at']>;
type CustomField = paths['/custom-fields']['get']['responses'][200]['content']['application/json']['items'][number];

/** The types the API takes, every one listed or the type check fails. */
const FIELD_TYPES = Object.keys({
  string: true,
  number: true,
  boolean: true,
  date: true,
  enum: true,
  multi_enum: true,
  user: true,
} satisfies Record<FieldType, true>) as FieldType[];
const hasOptions = (type: string) => type === 'enum' || type === 'multi_enum';
/** Options as typed: one a line, blank lines dropped. */
const optionsOf = (text: string) =>
  text
    .split('\n')
    .map((o) => o.trim())
    .filter((o) => o !== '');

export function CustomFieldsPage() {
  const list = useResource(async () => answer(await client.GET('/custom-fields')), []);
  const canManage = useMe().role === 'admin';
  return (
    <>
      <SettingsNav />
      <h1>Custom fields</h1>
      <p className="muted">Typed values cases carry. A field required to resolve or close refuses that status until the case holds a value.</p>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Loading what="custom fields" />}
      {list.data && canManage && <NewField onCreated={list.reload} />}
      {list.data &&
        (list.data.items.length === 0 ? (
          <p>No custom fields yet.</p>
        ) : (
          <table aria-label="Custom fields">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
                <th scope="col">Type</th>
                <th scope="col">Options</th>
                <th scope="col">Team</th>
                <th scope="col">Required</th>
                {canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((field) => (
                <FieldRow key={field.id} field={field} canManage={canManage} onChanged={list.reload} />
              ))}
            </tbody>
          </table>
        ))}
    </>
  );
}

function FieldRow({ field, canManage, onChanged }: { field: CustomField; canManage: boolean; onChanged: () => void }) {
  const action = useAction();
  const [editing, setEditing] = useState(false);
  const [label, setLabel] = useState(field.label);
  const [options, setOptions] = useState((field.options ?? []).join('\n'));
  const [required, setRequired] = useState<Stage | ''>(field.required_at ?? '');
  const [deleting, setDeleting] = useState(false);
  const save = (event: FormEvent) => {
    event.preventDefault();
    action.run(
      async () =>
        answer(
          await client.PUT('/custom-fields/{id}', {
            params: { path: { id: field.id } },
            body: { label: label.trim(), options: hasOptions(field.type) ? optionsOf(options) : null, required_at: required === '' ? null : required },
          }),
        ),
      () => {
        setEditing(false);
        onChanged();
      },
    );
  };
  const remove = () => action.run(async () => noContent(await client.DELETE('/custom-fields/{id}', { params: { path: { id: field.id } } })), onChanged);
  return (
    <tr>
      <td className="mono">{field.name}</td>
      <td>
        {editing ? (
          <form id={`edit-${field.id}`} onSubmit={save}>
            <label>
              Label
              <input type="text" required maxLength={100} value={label} onChange={(event) => setLabel(event.target.value)} />
            </label>
          </form>
        ) : (
          field.label
        )}
      </td>
      <td>{field.type.replace(/_/g, ' ')}</td>
      <td>
        {editing && hasOptions(field.type) ? (
          <label>
            Options, one a line
            <textarea form={`edit-${field.id}`} rows={3} value={options} onChange={(event) => setOptions(event.target.value)} />
          </label>
        ) : (
          (field.options ?? []).join(', ')
        )}
      </td>
      <td>{field.team_id ?? 'every team'}</td>
      <td>
        {editing ? (
          <label>
            Required
            <select form={`edit-${field.id}`} value={required} onChange={(event) => setRequired(event.target.value as Stage | '')}>
              <option value="">never</option>
              <option value="resolve">to resolve</option>
              <option value="close">to close</option>
            </select>
          </label>
        ) : field.required_at ? (
          `to ${field.required_at}`
        ) : (
          'never'
        )}
      </td>
      {canManage && (
        <td>
          {editing ? (
            <>
              <button type="submit" form={`edit-${field.id}`} disabled={action.busy}>
                Save<span className="visually-hidden"> {field.name}</span>
              </button>
              <button type="button" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </>
          ) : (
            <button type="button" onClick={() => setEditing(true)}>
              Edit<span className="visually-hidden"> {field.name}</span>
            </button>
          )}
          {deleting ? (
            <Confirm
              question={`Delete ${field.name}? Cases keep their values, but none can be set any more.`}
              yes="Delete"
              busy={action.busy}
              onYes={remove}
              onNo={() => setDeleting(false)}
            />
          ) : (
            <button type="button" onClick={() => setDeleting(true)}>
              Delete<span className="visually-hidden"> {field.name}</span>
            </button>
          )}
          <ErrorNote error={action.error} />
        </td>
      )}
    </tr>
  );
}

function NewField({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [label, setLabel] = useState('');
  const [type, setType] = useState<FieldType>('string');
  const [options, setOptions] = useState('');
  const [team, setTeam] = useState('');
  const [required, setRequired] = useState<Stage | ''>('');
  const action = useAction();
  const create = (event: FormEvent) => {
    event.preventDefault();
    const body: CreateBody = {
      name: name.trim(),
      label: label.trim(),
      type,
      options: hasOptions(type) ? optionsOf(options) : null,
      team_id: team.trim() || null,
      required_at: required === '' ? null : required,
    };
    action.run(
      async () => answer(await client.POST('/custom-fields', { body })),
      () => {
        setName('');
        setLabel('');
        setOptions('');
        setTeam('');
        setRequired('');
        onCreated();
      },
    );
  };
  return (
    <section className="panel" aria-labelledby="new-field-title">
      <h2 id="new-field-title">New custom field</h2>
      <form className="settings-form" onSubmit={create}>
        <label>
          Name
          <input type="text" required pattern="[a-z][a-z0-9_]{0,62}" value={name} placeholder="root_cause" onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Label
          <input type="text" required maxLength={100} value={label} onChange={(event) => setLabel(event.target.value)} />
        </label>
        <label>
          Type
          <select value={type} onChange={(event) => setType(event.target.value as FieldType)}>
            {FIELD_TYPES.map((choice) => (
              <option key={choice} value={choice}>
                {choice.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        {hasOptions(type) && (
          <label>
            Options, one a line
            <textarea rows={3} required value={options} onChange={(event) => setOptions(event.target.value)} />
          </label>
        )}
        <label>
          Team
          <input type="text" value={team} placeholder="none: every team" onChange={(event) => setTeam(event.target.value)} />
        </label>
        <label>
          Required
          <select value={required} onChange={(event) => setRequired(event.target.value as Stage | '')}>
            <option value="">never</option>
            <option value="resolve">to resolve</option>
            <option value="close">to close</option>
          </select>
        </label>
        <button type="submit" disabled={action.busy}>
          Define field
        </button>
      </form>
      <ErrorNote error={action.error} />
    </section>
  );
}
