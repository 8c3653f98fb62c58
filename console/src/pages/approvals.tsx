/**
 * The approvals queue (route `/approvals`): the gates waiting for a person
 * (`GET /approvals?status=pending`, scoped by the server to runs the caller may see), each
 * with its run, case and expiry, approved or denied in place. Live: read again on every
 * `approval.updated` frame, so a gate decided elsewhere leaves the queue. Approve and Deny are
 * offered to the roles that hold `approve_runbooks` by default (role-matrix.ts).
 */
import { Link } from 'react-router';
import { answer, client } from '../api.ts';
import { GateDecision } from '../gate-decision.tsx';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { mayApprove } from '../role-matrix.ts';
import { Ago, ErrorNote, Loading } from '../ui.tsx';

export function ApprovalsPage() {
  const canDecide = mayApprove(useMe().role);
  const queue = useResource(
    async () => answer(await client.GET('/approvals', { params: { query: { status: 'pending', limit: 200 } } })),
    [],
    (frame) => frame.type === 'approval.updated',
  );
  return (
    <>
      <h1>Approvals</h1>
      <ErrorNote error={queue.error} />
      {!queue.data && !queue.error && <Loading what="the approvals queue" />}
      {queue.data?.items.length === 0 && <p className="muted">Nothing is waiting for approval.</p>}
      <ul className="plain" data-testid="approvals">
        {queue.data?.items.map((gate) => (
          <li key={`${gate.run_id}/${gate.step_id}`} data-testid="approval">
            <p>
              <Link to={`/runs/${gate.run_id}`}>{gate.runbook_id}</Link>, step <strong>{gate.step_id}</strong>: {gate.reason}
              {gate.message ? ` — ${gate.message}` : ''}
            </p>
            <p className="muted">
              {gate.case_id && (
                <>
                  <Link to={`/cases/${gate.case_id}`}>case</Link> ·{' '}
                </>
              )}
              requested by {gate.requested_by ?? 'automation'} · opened <Ago at={gate.opened_at} /> · expires <Ago at={gate.expires_at} /> · roles{' '}
              {gate.roles.join(', ') || 'any approver'}
            </p>
            {canDecide ? (
              <GateDecision runId={gate.run_id} stepId={gate.step_id} onDecided={queue.reload} />
            ) : (
              <p className="muted">An approver decides this gate.</p>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
