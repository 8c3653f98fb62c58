/**
 * The `alerts` row as a pure fold over alert events (SPEC.md "Alerts"): `new` when
 * received, `linked` once a case holds it, `dismissed` when an analyst dismissed it
 * (linking it again makes it `linked`); repeats count up and move `last_seen_at`.
 * An event at or below the row's version is already reflected and changes nothing.
 */
import type { Selectable } from 'kysely';
import type { AlertEvent } from '../../domain/alerts/events.ts';
import type { AlertsTable } from '../database.ts';
import type { LooseRow } from '../loose-row.ts';

/** An `alerts` row; `payload` is absent on rows loaded for an update (it never changes). */
export type AlertRecord = Omit<LooseRow<Selectable<AlertsTable>>, 'payload'> & { payload?: Record<string, unknown> };

/** The row after `event` (at stream `version`); `undefined` while the alert was never received. */
export function evolveAlertRow(row: AlertRecord | undefined, event: AlertEvent, version: number): AlertRecord | undefined {
  if (event.type === 'alert.received') {
    if (row) return row;
    const d = event.data;
    return {
      id: d.alert_id,
      source: d.source,
      external_id: d.external_id,
      rule_id: d.rule_id,
      title: d.title,
      severity: d.severity,
      status: 'new',
      case_id: null,
      detected_at: d.detected_at,
      url: d.url,
      correlation_key: d.correlation_key,
      suite_correlation_id: d.suite_correlation_id,
      team: d.team,
      repeat_count: 0,
      payload: d.payload,
      received_at: d.received_at,
      last_seen_at: d.received_at,
      version,
    };
  }
  if (!row || row.version >= version) return row;
  switch (event.type) {
    case 'alert.linked':
      return { ...row, case_id: event.data.case_id, status: 'linked', version };
    case 'alert.unlinked':
      return { ...row, case_id: null, status: 'new', version };
    case 'alert.repeated':
      return { ...row, repeat_count: row.repeat_count + 1, last_seen_at: event.data.at, version };
    case 'alert.dismissed':
      return { ...row, status: 'dismissed', version };
  }
}
