/**
 * The alert inbox read model (`alerts`; SPEC.md "Alerts"). Statuses: `new` until the
 * alert is linked to a case, then `linked`.
 */
import type { AlertEvent } from '../../domain/alerts/events.ts';
import type { Projection } from '../projector.ts';

const alertTypes = new Set<string>(['alert.received', 'alert.linked', 'alert.repeated']);

export const alertsProjection: Projection = {
  name: 'alerts',
  apply: async (trx, recorded) => {
    if (!alertTypes.has(recorded.type)) return;
    const event = { type: recorded.type, data: recorded.data } as AlertEvent;
    const version = recorded.streamVersion;
    switch (event.type) {
      case 'alert.received': {
        const d = event.data;
        await trx
          .insertInto('alerts')
          .values({
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
            payload: JSON.stringify(d.payload),
            received_at: d.received_at,
            last_seen_at: d.received_at,
            version,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'alert.linked':
        await trx
          .updateTable('alerts')
          .set({ case_id: event.data.case_id, status: 'linked', version })
          .where('id', '=', event.data.alert_id)
          .where('version', '<', version)
          .execute();
        return;
      case 'alert.repeated':
        await trx
          .updateTable('alerts')
          .set((eb) => ({ repeat_count: eb('repeat_count', '+', 1), last_seen_at: event.data.at, version }))
          .where('id', '=', event.data.alert_id)
          .where('version', '<', version)
          .execute();
        return;
    }
  },
};
