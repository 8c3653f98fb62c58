/**
 * What changed, for live updates (SPEC.md "Live updates and inbox": case, run, alert and
 * approval updates; and ours, effect updates for the console's containment page): a batch of recorded events reduced to one reference per changed
 * thing, the last event winning. References carry ids and states only, never content:
 * a client that cares reads the thing through the API, with its own permissions.
 */
import { streamCategory } from '../shared/streams.ts';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

export type LiveRef =
  | { type: 'case.updated'; case_id: string; event: string }
  | { type: 'alert.updated'; alert_id: string; event: string }
  | { type: 'run.updated'; run_id: string; event: string; status: string | null }
  | { type: 'approval.updated'; run_id: string; step_id: string; status: ApprovalStatus }
  | { type: 'effect.updated'; effect_id: string; event: string };

type Recorded = { streamId: string; type: string; data: Record<string, unknown> };

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Run status an event moves a run to, when it says. */
const runStatusOf = (e: Recorded): string | null => {
  if (e.type === 'run.queued') return 'queued';
  if (e.type === 'run.started') return 'running';
  if (e.type === 'gate.opened') return 'waiting_approval';
  if (e.type === 'run.finished') return text(e.data.status);
  return null;
};

/** The references of one event (none for events nobody watches live). */
function refsOf(e: Recorded): LiveRef[] {
  const category = streamCategory(e.streamId);
  const caseId = text(e.data.case_id);
  // A ticket link's events (a comment or status taken from the ticket, a mirror sent) change what the case shows.
  if ((category === 'case' || category === 'task' || category === 'observable' || category === 'ticket') && caseId)
    return [{ type: 'case.updated', case_id: caseId, event: e.type }];
  const alertId = text(e.data.alert_id);
  if (category === 'alert' && alertId) return [{ type: 'alert.updated', alert_id: alertId, event: e.type }];
  const effectId = text(e.data.effect_id);
  if (category === 'effect' && effectId) return [{ type: 'effect.updated', effect_id: effectId, event: e.type }];
  const runId = text(e.data.run_id);
  if (category !== 'run' || !runId) return [];
  const refs: LiveRef[] = [{ type: 'run.updated', run_id: runId, event: e.type, status: runStatusOf(e) }];
  const stepId = text(e.data.step_id);
  if (stepId && e.type === 'gate.opened') refs.push({ type: 'approval.updated', run_id: runId, step_id: stepId, status: 'pending' });
  if (stepId && e.type === 'gate.decided')
    refs.push({ type: 'approval.updated', run_id: runId, step_id: stepId, status: e.data.decision === 'approved' ? 'approved' : 'denied' });
  if (stepId && e.type === 'runbook.approval_expired') refs.push({ type: 'approval.updated', run_id: runId, step_id: stepId, status: 'expired' });
  return refs;
}

const keyOf = (r: LiveRef) =>
  r.type === 'case.updated'
    ? `c:${r.case_id}`
    : r.type === 'alert.updated'
      ? `a:${r.alert_id}`
      : r.type === 'effect.updated'
        ? `e:${r.effect_id}`
        : r.type === 'run.updated'
          ? `r:${r.run_id}`
          : `g:${r.run_id}:${r.step_id}`;

/**
 * One reference per changed case, alert, effect, run and gate of `events`, in order of last
 * change. A run keeps the last status any of its events stated.
 */
export function liveRefs(events: readonly Recorded[]): LiveRef[] {
  const byKey = new Map<string, LiveRef>();
  for (const e of events) {
    for (const ref of refsOf(e)) {
      const key = keyOf(ref);
      const before = byKey.get(key);
      byKey.delete(key);
      if (ref.type === 'run.updated' && ref.status === null && before?.type === 'run.updated') byKey.set(key, { ...ref, status: before.status });
      else byKey.set(key, ref);
    }
  }
  return [...byKey.values()];
}
