/**
 * A list's saved views (`/views`; docs/configuration.md "Saved views") in its header: pick
 * one to put its filters in the URL, save the filters in force as a view (private, or
 * shared with a team), delete one of mine. The case list and the alert inbox use it; the
 * API decides who sees and changes what, and its refusals are shown in words.
 */
import { type FormEvent, useId, useState } from 'react';
import { useAction } from './action.ts';
import { answer, client, noContent } from './api.ts';
import type { SavedView, SavedViewRequest } from './api-shapes.ts';
import { useMe } from './me.tsx';
import { useResource } from './resource.ts';
import { ErrorNote } from './ui.tsx';

/** `view`'s filters over the keys of `shape` (the list's filters), each absent one empty. */
const filtersOf = <F extends Record<string, string>>(view: SavedView, shape: F): F =>
  Object.fromEntries(Object.keys(shape).map((key) => [key, view.query[key] ?? ''])) as F;

/** The filters in force that hold a value, as a view's query. */
const queryOf = (filters: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== ''));

export function SavedViews<F extends Record<string, string>>({
  resource,
  filters,
  onApply,
}: {
  resource: SavedView['resource'];
  filters: F;
  onApply: (filters: F) => void;
}) {
  const me = useMe();
  const views = useResource(async () => answer(await client.GET('/views')).items.filter((view) => view.resource === resource), [resource]);
  const [chosen, setChosen] = useState('');
  const [name, setName] = useState('');
  const [team, setTeam] = useState('');
  const save = useAction();
  const remove = useAction();
  const selectId = useId();
  const picked = views.data?.find((view) => view.id === chosen) ?? null;
  const choose = (id: string) => {
    setChosen(id);
    const view = views.data?.find((item) => item.id === id);
    if (view) onApply(filtersOf(view, filters));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The body is the list's own filters; the API checks them against that list's schema.
    const body = { name: name.trim(), resource, query: queryOf(filters), team_id: team.trim() || null } as SavedViewRequest;
    void save.run(
      async () => answer(await client.POST('/views', { body })),
      (view) => {
        setName('');
        setChosen(view.id);
        views.reload();
      },
    );
  };
  const deleteView = (view: SavedView) =>
    remove.run(
      async () => noContent(await client.DELETE('/views/{id}', { params: { path: { id: view.id } } })),
      () => {
        setChosen('');
        views.reload();
      },
    );
  return (
    <div className="saved-views" data-testid="saved-views">
      <label htmlFor={selectId}>Saved view</label>
      <select id={selectId} value={chosen} onChange={(event) => choose(event.target.value)}>
        <option value="">{views.data && views.data.length === 0 ? 'none saved yet' : 'choose…'}</option>
        {views.data?.map((view) => (
          <option key={view.id} value={view.id}>
            {view.team_id ? `${view.name} (team ${view.team_id})` : view.name}
          </option>
        ))}
      </select>
      {picked && picked.owner_id === me.id && (
        <button type="button" className="danger" disabled={remove.busy} onClick={() => deleteView(picked)}>
          Delete this view
        </button>
      )}
      <form className="row" onSubmit={submit}>
        <label>
          Save these filters as
          <input type="text" value={name} maxLength={200} placeholder="view name" onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Share with team
          <input type="text" value={team} maxLength={200} placeholder="only me" onChange={(event) => setTeam(event.target.value)} />
        </label>
        <button type="submit" disabled={save.busy || name.trim() === ''}>
          Save view
        </button>
      </form>
      <ErrorNote error={views.error ?? save.error ?? remove.error} />
    </div>
  );
}
