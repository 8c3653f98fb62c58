/**
 * Approve or deny one approval gate (`POST /runs/<id>/approve` or `/deny` with
 * `{step_id, note}`), used by the run page and the approvals queue. A person decides; the
 * server checks the approver's role, the gate's roles and separation of duties, and its
 * refusal is shown in words.
 */
import { useState } from 'react';
import { useAction } from './action.ts';
import { answer, client } from './api.ts';
import { ErrorNote } from './ui.tsx';

export function GateDecision({ runId, stepId, onDecided }: { runId: string; stepId: string; onDecided: () => void }) {
  const [note, setNote] = useState('');
  const action = useAction();
  const decide = (verdict: 'approve' | 'deny') =>
    action.run(async () => {
      const request = { params: { path: { id: runId } }, body: { step_id: stepId, note: note.trim() === '' ? null : note } };
      return answer(await (verdict === 'approve' ? client.POST('/runs/{id}/approve', request) : client.POST('/runs/{id}/deny', request)));
    }, onDecided);
  const noteId = `note-${runId}-${stepId}`;
  return (
    <div className="gate-decision">
      <div className="row">
        <label htmlFor={noteId}>Note</label>
        <input id={noteId} value={note} maxLength={4000} onChange={(event) => setNote(event.target.value)} />
        <button type="button" className="primary" disabled={action.busy} onClick={() => decide('approve')}>
          Approve {stepId}
        </button>
        <button type="button" className="danger" disabled={action.busy} onClick={() => decide('deny')}>
          Deny {stepId}
        </button>
      </div>
      <ErrorNote error={action.error} />
    </div>
  );
}
