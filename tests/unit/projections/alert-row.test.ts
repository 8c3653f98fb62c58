/**
 * The `alerts` row as a pure fold (projections/alerts/alert-row.ts): `alert.received`
 * creates a `new` row, `alert.linked` links it to a case, `alert.repeated` counts a
 * repeat and moves `last_seen_at`; an event at or below the row's version is already
 * reflected (same object back), and events of an alert never received give no row.
 */
import { describe, expect, it } from 'vitest';
import type { AlertEvent } from '../../../domain/alerts/events.ts';
import { evolveAlertRow, type AlertRecord } from '../../../projections/alerts/alert-row.ts';

const ALERT_ID = '00000000-0000-4000-8000-0000000000a1';
const CASE_ID = '00000000-0000-4000-8000-0000000000c1';
const T0 = '2025-01-15T08:00:00.123Z';
const T1 = '2025-01-15T08:05:00.456Z';
const T2 = '2025-01-15T08:10:00.789Z';

const received: Extract<AlertEvent, { type: 'alert.received' }> = {
  type: 'alert.received',
  data: {
    alert_id: ALERT_ID,
    source: 'sentinel',
    external_id: 'ext-1',
    rule_id: 'rule-9',
    title: 'Impossible travel',
    severity: 'high',
    detected_at: '2025-01-15T07:59:00.000Z',
    url: 'https://siem.example/alerts/1',
    correlation_key: 'user:ana@example.com',
    suite_correlation_id: 'suite-1',
    team: 'soc',
    observables: [],
    payload: { user: 'ana@example.com', nested: { ip: '203.0.113.9' } },
    received_at: T0,
  },
};
const linked: AlertEvent = { type: 'alert.linked', data: { alert_id: ALERT_ID, case_id: CASE_ID, case_key: 'SEC-7', correlated: false, at: T0 } };
const repeated = (at: string): AlertEvent => ({ type: 'alert.repeated', data: { alert_id: ALERT_ID, at } });

const receivedRow = (): AlertRecord => {
  const row = evolveAlertRow(undefined, received, 1);
  if (!row) throw new Error('alert.received gave no row');
  return row;
};

describe('evolveAlertRow', () => {
  it('creates a new, unlinked row from alert.received, seen once at its receipt', () => {
    expect(evolveAlertRow(undefined, received, 1)).toEqual({
      id: ALERT_ID,
      source: 'sentinel',
      external_id: 'ext-1',
      rule_id: 'rule-9',
      title: 'Impossible travel',
      severity: 'high',
      status: 'new',
      case_id: null,
      detected_at: '2025-01-15T07:59:00.000Z',
      url: 'https://siem.example/alerts/1',
      correlation_key: 'user:ana@example.com',
      suite_correlation_id: 'suite-1',
      team: 'soc',
      repeat_count: 0,
      payload: { user: 'ana@example.com', nested: { ip: '203.0.113.9' } },
      received_at: T0,
      last_seen_at: T0,
      version: 1,
    });
  });

  it('keeps an existing row on a repeated alert.received', () => {
    const row = { ...receivedRow(), repeat_count: 4, version: 6 };
    expect(evolveAlertRow(row, received, 1)).toBe(row);
  });

  it('links the alert: status linked and the case id, nothing else', () => {
    const row = receivedRow();
    const after = evolveAlertRow(row, linked, 2);
    expect(after).not.toBe(row);
    expect(after).toEqual({ ...row, status: 'linked', case_id: CASE_ID, version: 2 });
  });

  it('counts each repeat and moves last_seen_at, keeping received_at', () => {
    const row = evolveAlertRow(receivedRow(), linked, 2)!;
    const once = evolveAlertRow(row, repeated(T1), 3);
    expect(once).toEqual({ ...row, repeat_count: 1, last_seen_at: T1, version: 3 });
    const twice = evolveAlertRow(once, repeated(T2), 4);
    expect(twice).toEqual({ ...row, repeat_count: 2, last_seen_at: T2, version: 4 });
    expect(twice?.received_at).toBe(T0);
    expect(twice?.status).toBe('linked');
  });

  it.each([
    ['alert.linked', linked],
    ['alert.repeated', repeated(T1)],
  ] as const)('returns the same row for an %s at or below its version', (_type, event) => {
    const row = { ...receivedRow(), version: 3 };
    expect(evolveAlertRow(row, event, 3)).toBe(row);
    expect(evolveAlertRow(row, event, 2)).toBe(row);
    expect(evolveAlertRow(row, event, 4)).not.toBe(row);
  });

  it('does not count a repeat twice when the same event is folded again', () => {
    const row = evolveAlertRow(receivedRow(), repeated(T1), 2);
    expect(evolveAlertRow(row, repeated(T1), 2)).toBe(row);
    expect(row?.repeat_count).toBe(1);
  });

  it.each([
    ['alert.linked', linked],
    ['alert.repeated', repeated(T1)],
  ] as const)('gives no row for an %s of an alert never received', (_type, event) => {
    expect(evolveAlertRow(undefined, event, 2)).toBeUndefined();
  });

  it('folds a row loaded without its payload (Date timestamps) and leaves payload absent', () => {
    const { payload: _payload, ...rest } = receivedRow();
    const loaded: AlertRecord = { ...rest, received_at: new Date(T0), last_seen_at: new Date(T0) };
    const after = evolveAlertRow(loaded, repeated(T1), 2);
    expect(after).toEqual({ ...loaded, repeat_count: 1, last_seen_at: T1, version: 2 });
    expect(after).not.toHaveProperty('payload');
  });

  it('never mutates the row it is given', () => {
    const row = receivedRow();
    const snapshot = structuredClone(row);
    evolveAlertRow(evolveAlertRow(row, linked, 2), repeated(T1), 3);
    expect(row).toEqual(snapshot);
  });
});
