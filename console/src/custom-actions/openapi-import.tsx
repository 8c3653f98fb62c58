/**
 * Drafting custom actions from a vendor's OpenAPI document (`POST
 * /custom-actions/import/openapi`, docs/configuration.md "OpenAPI import"): the document
 * pasted or read from a file (it stays in the browser until sent; nothing is fetched), a
 * name prefix, then one draft per operation with its method and path, the risk the import
 * suggests and the notes of what to check, and every part the import left out with its
 * reason. Picking a draft hands its spec and notes to the editor: the import writes
 * nothing, and a draft is saved only as the author leaves it.
 */
import { type ChangeEvent, type FormEvent, useState } from 'react';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { ErrorNote } from '../ui.tsx';

type ImportBody = paths['/custom-actions/import/openapi']['post']['requestBody']['content']['application/json'];
const importDocument = async (body: ImportBody) => answer(await client.POST('/custom-actions/import/openapi', { body }));
/** The import's answer as the client types it. */
type Imported = Awaited<ReturnType<typeof importDocument>>;
/** A draft as the editor takes it: the spec, and what the author must check before saving it. */
export type PickedDraft = { spec: Imported['drafts'][number]['spec']; notes: string[]; suggestedRisk: string };

export function OpenApiImport({ onPick }: { onPick: (draft: PickedDraft) => void }) {
  const [document, setDocument] = useState('');
  const [prefix, setPrefix] = useState('custom.vendor');
  const [imported, setImported] = useState<Imported | null>(null);
  const action = useAction();
  const readFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) setDocument(await file.text());
  };
  const send = (event: FormEvent) => {
    event.preventDefault();
    return action.run(() => importDocument({ document, name_prefix: prefix.trim() }), setImported);
  };
  return (
    <section className="panel" aria-labelledby="import-title">
      <h2 id="import-title">Draft from an OpenAPI document</h2>
      <p className="muted">
        OpenAPI 3.0 or 3.1, JSON or YAML. Nothing is saved and nothing is fetched: each operation becomes a disabled draft with the arbitrary risk, for you to
        narrow and save.
      </p>
      <form className="settings-form" onSubmit={send}>
        <label>
          Document
          <textarea rows={8} className="mono" value={document} onChange={(event) => setDocument(event.target.value)} />
        </label>
        <label>
          Or read it from a file
          <input type="file" accept=".json,.yaml,.yml,application/json,application/yaml" onChange={readFile} />
        </label>
        <label>
          Name prefix
          <input type="text" className="mono" value={prefix} onChange={(event) => setPrefix(event.target.value)} />
        </label>
        <div className="row">
          <button type="submit" disabled={action.busy || document.trim() === ''}>
            Draft the actions
          </button>
          {action.busy && <span role="status">Reading the document…</span>}
        </div>
        <ErrorNote error={action.error} />
      </form>
      {imported && <Drafts imported={imported} onPick={onPick} />}
    </section>
  );
}

function Drafts({ imported, onPick }: { imported: Imported; onPick: (draft: PickedDraft) => void }) {
  return (
    <div data-testid="openapi-drafts">
      <p role="status">
        {`${imported.title} (OpenAPI ${imported.openapi_version}): ${imported.drafts.length} ${imported.drafts.length === 1 ? 'draft' : 'drafts'}, ${imported.skipped.length} left out.`}
        {imported.server_url &&
          ` Server ${imported.server_url}: the connection's base URL is its origin${imported.server_path_prefix ? `, and each draft's path begins with ${imported.server_path_prefix}` : ''}.`}
      </p>
      {imported.drafts.length > 0 && (
        <table aria-label="Drafts">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Operation</th>
              <th scope="col">Suggested risk</th>
              <th scope="col">To check</th>
              <th scope="col">Draft</th>
            </tr>
          </thead>
          <tbody>
            {imported.drafts.map((draft) => (
              <tr key={draft.spec.name}>
                <td className="mono">{draft.spec.name}</td>
                <td className="mono">{`${draft.method} ${draft.path}`}</td>
                <td>{draft.suggested_risk}</td>
                <td>
                  <ul>
                    {draft.notes.map((note) => (
                      <li key={note}>{note}</li>
                    ))}
                  </ul>
                </td>
                <td>
                  <button
                    type="button"
                    aria-label={`Edit this draft: ${draft.spec.name}`}
                    onClick={() => onPick({ spec: draft.spec, notes: draft.notes, suggestedRisk: draft.suggested_risk })}
                  >
                    Edit this draft
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {imported.skipped.length > 0 && (
        <details>
          <summary>{`Left out (${imported.skipped.length})`}</summary>
          <ul>
            {imported.skipped.map((skip) => (
              <li key={`${skip.location}:${skip.reason}`}>
                <span className="mono">{skip.location}</span>
                {`: ${skip.reason}`}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
