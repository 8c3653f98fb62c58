/**
 * Alert and correlation events (SPEC.md "Alert", "Webhook intake"; CONTRACTS.md section 5).
 */
import type { Event } from '../shared/messages.ts';
import type { Observable } from './observables.ts';

export type AlertReceived = Event<
  'alert.received',
  {
    alert_id: string;
    source: string;
    external_id: string;
    rule_id: string | null;
    title: string;
    severity: string;
    detected_at: string | null;
    url: string | null;
    correlation_key: string;
    suite_correlation_id: string | null;
    team: string | null;
    observables: Observable[];
    payload: Record<string, unknown>;
    received_at: string;
  }
>;
/** `case_key` rides along so a repeat of the alert can answer with the key without reading the case. */
export type AlertLinked = Event<'alert.linked', { alert_id: string; case_id: string; case_key: string; correlated: boolean; at: string }>;
export type AlertRepeated = Event<'alert.repeated', { alert_id: string; at: string }>;
/** The alert left its case (unlinked by an analyst, or before moving to another case). */
export type AlertUnlinked = Event<'alert.unlinked', { alert_id: string; case_id: string; at: string }>;
/** Dismissed from the inbox by an analyst (SPEC.md "Alerts": POST /alerts/<id>/dismiss); only an alert in no case. */
export type AlertDismissed = Event<'alert.dismissed', { alert_id: string; reason: string | null; by: string | null; at: string }>;
export type AlertEvent = AlertReceived | AlertLinked | AlertRepeated | AlertUnlinked | AlertDismissed;

/** The correlation stream of one key records which case currently collects its alerts. */
export type CorrelationCaseBound = Event<'correlation.case_bound', { correlation_key: string; case_id: string; at: string }>;
