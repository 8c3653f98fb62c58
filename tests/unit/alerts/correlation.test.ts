/**
 * Correlation (CONTRACTS.md section 5, SPEC.md "Webhook intake"): an alert joins the case
 * its key is bound to while that case is open and was active within the window; otherwise
 * a new case opens. `decideCorrelation` decides against the bound case's state.
 */
import { describe, expect, it } from 'vitest';
import { correlationKeyOf, decideCorrelation, type IncomingAlert } from '../../../domain/alerts/intake.ts';
import { caseDecider, type CaseEvent } from '../../../domain/cases/index.ts';
import type { CaseState } from '../../../domain/cases/state.ts';
import { fold } from '../../../domain/shared/messages.ts';

const T = '2026-11-22T10:00:00.000Z';
const WINDOW_MS = 30 * 60_000;
const closed = new Set(['resolved', 'closed']);
const at = (minutes: number) => new Date(Date.parse(T) + minutes * 60_000);

const opened: CaseEvent = {
  type: 'case.opened',
  data: {
    case_id: 'c1',
    key: 'SVC-1',
    number: 1,
    title: 'Login burst',
    description: null,
    severity: 'high',
    tags: [],
    status: 'new',
    team: 'soc',
    private: false,
    correlation_key: 'rule:r1',
    opened_at: T,
    opened_by: null,
    opened_by_id: null,
  },
};
const bound = (...events: CaseEvent[]): CaseState => fold(caseDecider, [opened, ...events]);

describe('decideCorrelation', () => {
  it('opens a case when the key is bound to none', () => {
    expect(decideCorrelation(null, at(0), WINDOW_MS, closed)).toEqual({ kind: 'open' });
    expect(decideCorrelation(caseDecider.initialState(), at(0), WINDOW_MS, closed)).toEqual({ kind: 'open' });
  });

  it('appends to the bound case while it is open and within the window', () => {
    expect(decideCorrelation(bound(), at(30), WINDOW_MS, closed)).toEqual({ kind: 'append', caseId: 'c1' });
  });

  it('opens a case once the bound case is in a closed status', () => {
    for (const status of ['resolved', 'closed']) {
      const moved: CaseEvent = { type: 'case.status_changed', data: { case_id: 'c1', from: 'new', to: status, note: null, at: T } };
      expect(decideCorrelation(bound(moved), at(1), WINDOW_MS, closed)).toEqual({ kind: 'open' });
    }
  });

  it('opens a case once the window since the last activity passed, each alert appended restarting it', () => {
    expect(decideCorrelation(bound(), at(31), WINDOW_MS, closed)).toEqual({ kind: 'open' });
    const appended: CaseEvent = {
      type: 'case.alert_appended',
      data: { case_id: 'c1', alert_id: 'a2', title: 't', severity: 'high', correlated: true, at: at(20).toISOString() },
    };
    expect(decideCorrelation(bound(appended), at(31), WINDOW_MS, closed)).toEqual({ kind: 'append', caseId: 'c1' });
    expect(decideCorrelation(bound(appended), at(51), WINDOW_MS, closed)).toEqual({ kind: 'open' });
  });
});

describe('correlationKeyOf', () => {
  const alert = (over: Partial<IncomingAlert>): IncomingAlert => ({
    source: 'detector',
    external_id: 'e1',
    rule_id: null,
    title: 'Login burst',
    severity: 'high',
    detected_at: null,
    url: null,
    correlation_root: null,
    suite_correlation_id: null,
    team: null,
    matched_log: {},
    observables: [],
    payload: {},
    ...over,
  });

  it('takes the correlation root, else the rule id, else the title', () => {
    expect(correlationKeyOf(alert({ correlation_root: 'campaign-9', rule_id: 'r1' }))).toBe('campaign-9');
    expect(correlationKeyOf(alert({ rule_id: 'r1' }))).toBe('rule:r1');
    expect(correlationKeyOf(alert({}))).toBe('title:Login burst');
  });
});
