/**
 * Merge on the case page (`POST /cases/<id>/merge`; docs/configuration.md "Case merge and
 * split"): a merged case says where it went, a case others were merged into lists them,
 * and with `canEdit` cases named by key (`SVC-12, SVC-14`, each found with
 * `GET /cases?key=`) are merged into this one with a reason. The API refuses what the
 * caller may not merge; its reason is shown.
 */
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { Case } from '../api-shapes.ts';
import { ErrorNote } from '../ui.tsx';

/** The ids of the cases `keys` name, or the first key no visible case has. */
async function casesByKey(keys: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const key of keys) {
    const page = answer(await client.GET('/cases', { params: { query: { key, limit: 1 } } }));
    const found = page.items[0];
    if (!found) throw new Error(`No case ${key} that you can see.`);
    ids.push(found.id);
  }
  return ids;
}

/** Where the case went, or what came into it, and the merge form. */
export function MergePanel({ value, canEdit, onChanged }: { value: Case; canEdit: boolean; onChanged: () => void }) {
  const headingId = useId();
  const keysId = useId();
  const reasonId = useId();
  const action = useAction();
  const [keys, setKeys] = useState('');
  const [reason, setReason] = useState('');
  const [merged, setMerged] = useState<string | null>(null);
  if (value.merged_into !== null) {
    return (
      <section className="panel" aria-labelledby={headingId} data-testid="merged-into">
        <h2 id={headingId}>Merged</h2>
        <p>
          This case was merged into <Link to={`/cases/${value.merged_into}`}>another case</Link>, which holds its alerts, observables, tasks, comments and
          evidence now.
        </p>
      </section>
    );
  }
  const merge = () =>
    action.run(
      async () => {
        const named = keys
          .split(/[\s,]+/)
          .map((k) => k.trim())
          .filter((k) => k !== '');
        const sourceIds = await casesByKey(named);
        return answer(await client.POST('/cases/{id}/merge', { params: { path: { id: value.id } }, body: { source_ids: sourceIds, reason: reason.trim() } }));
      },
      (answered) => {
        setMerged(answered.merged.length === 0 ? 'Nothing more to merge: those cases were merged here already.' : `Merged ${answered.merged.length} case(s).`);
        setKeys('');
        setReason('');
        onChanged();
      },
    );
  if (value.merged_from.length === 0 && !canEdit) return null;
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Merge</h2>
      {value.merged_from.length > 0 && (
        <p data-testid="merged-from">
          Merged into this case:{' '}
          {value.merged_from.map((m, i) => (
            <span key={m.case_id}>
              {i > 0 && ', '}
              <Link to={`/cases/${m.case_id}`}>{m.key}</Link>
            </span>
          ))}
        </p>
      )}
      {canEdit && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            merge();
          }}
        >
          <label htmlFor={keysId}>Cases to merge into this one (keys)</label>
          <input id={keysId} value={keys} placeholder="SVC-12, SVC-14" onChange={(event) => setKeys(event.target.value)} required />
          <label htmlFor={reasonId}>Reason</label>
          <input id={reasonId} value={reason} maxLength={2000} onChange={(event) => setReason(event.target.value)} required />
          <button type="submit" disabled={action.busy}>
            Merge
          </button>
        </form>
      )}
      {merged && <p role="status">{merged}</p>}
      <ErrorNote error={action.error} />
    </section>
  );
}
