/**
 * Alert intake decisions (CONTRACTS.md section 5): the de-duplication key, the
 * correlation key, and whether an alert joins an open case or opens a new one.
 */
import type { CaseState } from '../cases/state.ts';
import type { Observable } from './observables.ts';

/** A detector alert after validation, in the service's own terms. */
export type IncomingAlert = {
  source: string;
  external_id: string;
  rule_id: string | null;
  title: string;
  severity: string;
  detected_at: string | null;
  url: string | null;
  correlation_root: string | null;
  suite_correlation_id: string | null;
  team: string | null;
  matched_log: Record<string, unknown>;
  observables: Observable[];
  payload: Record<string, unknown>;
};

/** The correlation key: `correlation_root`, else the rule id, else the title. */
export function correlationKeyOf(alert: IncomingAlert): string {
  return alert.correlation_root ?? (alert.rule_id !== null ? `rule:${alert.rule_id}` : `title:${alert.title}`);
}

export type CorrelationDecision = { kind: 'append'; caseId: string } | { kind: 'open' };

/**
 * Joins the bound case when it is still open (status not resolved or closed, not
 * merged into another case) and was last active within `windowMs` of `now`; otherwise
 * a new case opens.
 */
export function decideCorrelation(bound: CaseState | null, now: Date, windowMs: number, closedStatuses: ReadonlySet<string>): CorrelationDecision {
  if (!bound?.exists) return { kind: 'open' };
  if (closedStatuses.has(bound.status) || bound.mergedInto !== null) return { kind: 'open' };
  if (now.getTime() - Date.parse(bound.lastActivityAt) > windowMs) return { kind: 'open' };
  return { kind: 'append', caseId: bound.id };
}
