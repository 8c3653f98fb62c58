/**
 * Every rule of the Alert decider, given-when-then on plain data (SPEC.md "Alert",
 * "Alerts", "Webhook intake"; docs/architecture.md "Habits" 4): the alert stream is the authority on which
 * case holds the alert.
 */
import { describe, expect, it } from 'vitest';
import { alertDecider, type AlertCommand, type AlertEvent } from '../../../domain/alerts/index.ts';
import type { IncomingAlert } from '../../../domain/alerts/intake.ts';
import { given } from '../../support/decider.ts';

const T = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T11:00:00.000Z';

const alert: IncomingAlert = {
  source: 'detector',
  external_id: 'ext-1',
  rule_id: 'r1',
  title: 'Login burst',
  severity: 'high',
  detected_at: T,
  url: null,
  correlation_root: null,
  suite_correlation_id: null,
  team: 'soc',
  matched_log: {},
  observables: [{ type: 'ip', value: '203.0.113.7' }],
  payload: { host: 'web-1' },
};
const received: AlertEvent = {
  type: 'alert.received',
  data: {
    alert_id: 'a1',
    source: 'detector',
    external_id: 'ext-1',
    rule_id: 'r1',
    title: 'Login burst',
    severity: 'high',
    detected_at: T,
    url: null,
    correlation_key: 'rule:r1',
    suite_correlation_id: null,
    team: 'soc',
    observables: [{ type: 'ip', value: '203.0.113.7' }],
    payload: { host: 'web-1' },
    received_at: T,
  },
};
const linked = (caseId: string, correlated = false, at = T): AlertEvent => ({
  type: 'alert.linked',
  data: { alert_id: 'a1', case_id: caseId, case_key: `SVC-${caseId}`, correlated, at },
});
const unlinked = (caseId: string, at = LATER): AlertEvent => ({ type: 'alert.unlinked', data: { alert_id: 'a1', case_id: caseId, at } });
const dismissed: AlertEvent = { type: 'alert.dismissed', data: { alert_id: 'a1', reason: 'noise', by: 'ana@example.com', at: LATER } };
const receive = (link: Extract<AlertCommand, { type: 'receive' }>['link']): AlertCommand => ({ type: 'receive', alertId: 'a1', alert, link, now: T });
const link = (caseId: string): AlertCommand => ({ type: 'link', caseId, caseKey: `SVC-${caseId}`, now: LATER });
const dismiss: AlertCommand = { type: 'dismiss', reason: 'noise', by: 'ana@example.com', now: LATER };

describe('receive', () => {
  it('records an alert intake put in a case, correlated or not', () => {
    const { state } = given(alertDecider, [])
      .when(receive({ caseId: '1', caseKey: 'SVC-1', correlated: true }))
      .then([received, linked('1', true)]);
    expect(state).toEqual({ exists: true, id: 'a1', caseId: '1', caseKey: 'SVC-1', dismissed: false });
  });

  it('records an alert entered by hand in no case', () => {
    const { state } = given(alertDecider, []).when(receive(null)).then([received]);
    expect(state).toMatchObject({ caseId: null, caseKey: null });
  });

  it('refuses an alert whose (source, external id) is known', () => {
    const error = given(alertDecider, [received]).when(receive(null)).thenThrows('alert_exists', 409);
    expect(error.params).toEqual({ source: 'detector', external_id: 'ext-1' });
  });
});

describe('a command on an alert that does not exist', () => {
  it.each<AlertCommand>([{ type: 'repeat', now: T }, link('1'), { type: 'unlink', caseId: '1', now: T }, dismiss])(
    'is refused as alert_not_found ($type)',
    (command) => {
      given(alertDecider, []).when(command).thenThrows('alert_not_found', 404);
    },
  );
});

describe('repeat', () => {
  it('counts a repeated delivery on the alert, wherever it is', () => {
    const repeated: AlertEvent = { type: 'alert.repeated', data: { alert_id: 'a1', at: LATER } };
    const { state } = given(alertDecider, [received, linked('1')])
      .when({ type: 'repeat', now: LATER })
      .then([repeated]);
    expect(state).toMatchObject({ caseId: '1', caseKey: 'SVC-1' });
    given(alertDecider, [received]).when({ type: 'repeat', now: LATER }).then([repeated]);
  });
});

describe('link', () => {
  it('puts an alert in no case into the case', () => {
    given(alertDecider, [received])
      .when(link('2'))
      .then([linked('2', false, LATER)]);
  });

  it('moves an alert out of the case that holds it first', () => {
    const { state } = given(alertDecider, [received, linked('1')])
      .when(link('2'))
      .then([unlinked('1'), linked('2', false, LATER)]);
    expect(state).toMatchObject({ caseId: '2', caseKey: 'SVC-2' });
  });

  it('decides nothing for the case that holds it', () => {
    given(alertDecider, [received, linked('1')])
      .when(link('1'))
      .then([]);
  });

  it('takes a dismissed alert back into a case', () => {
    const { state } = given(alertDecider, [received, dismissed])
      .when(link('2'))
      .then([linked('2', false, LATER)]);
    expect(state).toMatchObject({ dismissed: false });
  });
});

describe('unlink', () => {
  it('takes the alert out of the case that holds it', () => {
    const { state } = given(alertDecider, [received, linked('1')])
      .when({ type: 'unlink', caseId: '1', now: LATER })
      .then([unlinked('1')]);
    expect(state).toMatchObject({ caseId: null, caseKey: null });
  });

  it('refuses a case that does not hold the alert', () => {
    const error = given(alertDecider, [received, linked('1')])
      .when({ type: 'unlink', caseId: '2', now: LATER })
      .thenThrows('alert_not_in_case', 404);
    expect(error.params).toEqual({ alert_id: 'a1', case_id: '2' });
    given(alertDecider, [received]).when({ type: 'unlink', caseId: '1', now: LATER }).thenThrows('alert_not_in_case', 404);
  });
});

describe('dismiss', () => {
  it('dismisses an alert in no case, once', () => {
    const { state } = given(alertDecider, [received]).when(dismiss).then([dismissed]);
    expect(state).toMatchObject({ dismissed: true });
    given(alertDecider, [received, dismissed]).when(dismiss).then([]);
  });

  it('dismisses an alert again once it left the case it was taken into', () => {
    given(alertDecider, [received, dismissed, linked('1', false, LATER), unlinked('1')])
      .when(dismiss)
      .then([dismissed]);
  });

  it('refuses an alert a case holds', () => {
    const error = given(alertDecider, [received, linked('1')])
      .when(dismiss)
      .thenThrows('alert_in_case', 409);
    expect(error.params).toEqual({ alert_id: 'a1', case_id: '1' });
  });
});
