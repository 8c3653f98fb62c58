/**
 * The alert inbox read model (`alerts`; SPEC.md "Alerts").
 *
 * Per batch: one read of the touched rows that already exist (without their
 * payload), a pure fold (alert-row.ts), one multi-row insert of the alerts received
 * in the batch with one of their normalized observables (`alert_observables`, which
 * the view `case_observables_present` turns into case observables), and one update of
 * every earlier alert the batch changed (repeats, links, unlinks).
 */
import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import type { AlertEvent, AlertReceived } from '../../domain/alerts/events.ts';
import type { AlertObservablesTable, AlertsTable, Database } from '../database.ts';
import type { Projection } from '../projector.ts';
import { evolveAlertRow, type AlertRecord } from './alert-row.ts';
import { settleAll } from '../settle-all.ts';

const alertTypes = new Set<string>(['alert.received', 'alert.linked', 'alert.repeated', 'alert.unlinked', 'alert.dismissed']);

export const alertsProjection: Projection = {
  name: 'alerts',
  apply: async (trx, batch) => {
    const events = batch.filter((e) => alertTypes.has(e.type));
    if (events.length === 0) return;
    const alertIdOf = (e: { data: unknown }) => (e.data as { alert_id: string }).alert_id;

    const existing = await loadAlerts(trx, [...new Set(events.map(alertIdOf))]);
    const rows = new Map(existing);
    const changed = new Set<string>();
    for (const recorded of events) {
      const id = alertIdOf(recorded);
      const before = rows.get(id);
      const after = evolveAlertRow(before, { type: recorded.type, data: recorded.data } as AlertEvent, recorded.streamVersion);
      if (after && after !== before) {
        rows.set(id, after);
        changed.add(id);
      }
    }

    const inserts: Insertable<AlertsTable>[] = [];
    const updates: AlertRecord[] = [];
    for (const id of changed) {
      const row = rows.get(id);
      if (!row) continue;
      if (existing.has(id)) updates.push(row);
      else inserts.push({ ...row, payload: JSON.stringify(row.payload ?? {}) });
    }
    const observables = observableRows(events);
    // Independent statements: they go out together (pipelined on a server).
    await settleAll([
      updates.length > 0 && alertRowsUpdate(updates).execute(trx),
      inserts.length > 0 &&
        trx
          .insertInto('alerts')
          .values(inserts)
          .onConflict((oc) => oc.column('id').doNothing())
          .execute(),
      observables.length > 0 &&
        trx
          .insertInto('alert_observables')
          .values(observables)
          .onConflict((oc) => oc.columns(['alert_id', 'type', 'normalized']).doNothing())
          .execute(),
    ]);
  },
};

/**
 * One UPDATE for every earlier alert the batch changed; a row already at or past its
 * version is left alone. The `any` of the ids is there for the planner, which takes a
 * JSON record set for 100 rows and would scan the whole table to join it.
 */
export function alertRowsUpdate(rows: readonly AlertRecord[]): RawBuilder<unknown> {
  const changes = JSON.stringify(
    rows.map((r) => ({ id: r.id, status: r.status, case_id: r.case_id, repeat_count: r.repeat_count, last_seen_at: r.last_seen_at, version: r.version })),
  );
  return sql`
    update alerts as a set
      status = v.status, case_id = v.case_id, repeat_count = v.repeat_count, last_seen_at = v.last_seen_at, version = v.version
    from jsonb_to_recordset(${changes}::jsonb) as v(id uuid, status text, case_id uuid, repeat_count integer, last_seen_at timestamptz, version integer)
    where a.id = any(${rows.map((r) => r.id)}::uuid[]) and a.id = v.id and a.version < v.version`;
}

/** The normalized observables of the alerts received in `events`, one row per (alert, type, normalized value). */
function observableRows(events: readonly { type: string; data: unknown }[]): AlertObservablesTable[] {
  const rows = new Map<string, AlertObservablesTable>();
  for (const e of events) {
    if (e.type !== 'alert.received') continue;
    const d = (e as { data: AlertReceived['data'] }).data;
    for (const o of d.observables) {
      if (o.normalized === undefined) continue;
      const key = `${d.alert_id}\u0000${o.type}\u0000${o.normalized}`;
      if (!rows.has(key)) rows.set(key, { alert_id: d.alert_id, type: o.type, value: o.value, normalized: o.normalized });
    }
  }
  return [...rows.values()];
}

const columnsButPayload = [
  'id',
  'source',
  'external_id',
  'rule_id',
  'title',
  'severity',
  'status',
  'case_id',
  'detected_at',
  'url',
  'correlation_key',
  'suite_correlation_id',
  'team',
  'repeat_count',
  'received_at',
  'last_seen_at',
  'version',
] as const satisfies readonly Exclude<keyof AlertsTable, 'payload'>[];

async function loadAlerts(trx: Kysely<Database>, ids: string[]): Promise<Map<string, AlertRecord>> {
  const found = await trx.selectFrom('alerts').select(columnsButPayload).where('id', 'in', ids).execute();
  return new Map(found.map((row) => [row.id, row]));
}
