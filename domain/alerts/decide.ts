/**
 * Alert decisions (SPEC.md "Alert", "Alerts", "Webhook intake"; CONTRACTS.md section 5).
 *
 * Errors: `alert_exists` (409) for receiving an alert twice (an alert entered by hand
 * with a known source and external id; intake repeats it instead), `alert_not_found`
 * (404) for a command on an alert that does not exist, `alert_not_in_case` (404) for
 * unlinking from a case that does not hold it, `alert_in_case` (409) for dismissing an
 * alert a case holds.
 */
import { conflict, notFound } from '../shared/errors.ts';
import { assertNever } from '../shared/messages.ts';
import type { AlertCommand } from './commands.ts';
import type { AlertEvent, AlertReceived } from './events.ts';
import { correlationKeyOf } from './intake.ts';
import type { AlertState } from './state.ts';

type Existing = Extract<AlertState, { exists: true }>;
type Cmd<T extends AlertCommand['type']> = Extract<AlertCommand, { type: T }>;

export function decideAlert(command: AlertCommand, state: AlertState): AlertEvent[] {
  if (command.type === 'receive') return receive(command, state);
  if (!state.exists) throw notFound('alert_not_found', 'alert not found');
  switch (command.type) {
    case 'repeat':
      return [{ type: 'alert.repeated', data: { alert_id: state.id, at: command.now } }];
    case 'link':
      return link(command, state);
    case 'unlink':
      return unlink(command, state);
    case 'dismiss':
      return dismiss(command, state);
    default:
      return assertNever(command);
  }
}

function receive(c: Cmd<'receive'>, state: AlertState): AlertEvent[] {
  const { alert } = c;
  if (state.exists) {
    throw conflict('alert_exists', `an alert from ${alert.source} with that external id already exists`, {
      source: alert.source,
      external_id: alert.external_id,
    });
  }
  const received: AlertReceived = {
    type: 'alert.received',
    data: {
      alert_id: c.alertId,
      source: alert.source,
      external_id: alert.external_id,
      rule_id: alert.rule_id,
      title: alert.title,
      severity: alert.severity,
      detected_at: alert.detected_at,
      url: alert.url,
      correlation_key: correlationKeyOf(alert),
      suite_correlation_id: alert.suite_correlation_id,
      team: alert.team,
      observables: alert.observables,
      payload: alert.payload,
      received_at: c.now,
    },
  };
  if (c.link === null) return [received];
  const { caseId, caseKey, correlated } = c.link;
  return [received, { type: 'alert.linked', data: { alert_id: c.alertId, case_id: caseId, case_key: caseKey, correlated, at: c.now } }];
}

/** Already in the case: nothing. In another case: it leaves that one first (`alert.unlinked`). */
function link(c: Cmd<'link'>, s: Existing): AlertEvent[] {
  if (s.caseId === c.caseId) return [];
  const linked: AlertEvent = { type: 'alert.linked', data: { alert_id: s.id, case_id: c.caseId, case_key: c.caseKey, correlated: false, at: c.now } };
  if (s.caseId === null) return [linked];
  return [{ type: 'alert.unlinked', data: { alert_id: s.id, case_id: s.caseId, at: c.now } }, linked];
}

function unlink(c: Cmd<'unlink'>, s: Existing): AlertEvent[] {
  if (s.caseId !== c.caseId) throw notFound('alert_not_in_case', 'the case does not hold this alert', { alert_id: s.id, case_id: c.caseId });
  return [{ type: 'alert.unlinked', data: { alert_id: s.id, case_id: c.caseId, at: c.now } }];
}

/** Only an alert in no case; dismissing it again changes nothing. */
function dismiss(c: Cmd<'dismiss'>, s: Existing): AlertEvent[] {
  if (s.caseId !== null) throw conflict('alert_in_case', 'unlink the alert from its case before dismissing it', { alert_id: s.id, case_id: s.caseId });
  if (s.dismissed) return [];
  return [{ type: 'alert.dismissed', data: { alert_id: s.id, reason: c.reason, by: c.by, at: c.now } }];
}
