/**
 * Case observables read model (`case_observables`) and their case timeline rows
 * (`observable_added`, `observable_removed`). Idempotent: rows are keyed by the
 * observable id and timeline rows by event position.
 */
import type { Insertable } from 'kysely';
import { observableEventTypes, type ObservableEvent } from '../../domain/observables/events.ts';
import type { CaseObservablesTable, CaseTimelineTable } from '../database.ts';
import type { Projection } from '../projector.ts';
import { insertTimeline, timelineRow } from '../cases/timeline.ts';

export const observablesProjection: Projection = {
  name: 'observables',
  apply: async (trx, batch) => {
    const events = batch.filter((e) => observableEventTypes.has(e.type));
    if (events.length === 0) return;
    const added: Insertable<CaseObservablesTable>[] = [];
    const removed: { id: string; at: string }[] = [];
    const timeline: Insertable<CaseTimelineTable>[] = [];
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as ObservableEvent;
      const { case_id: caseId, ...payload } = event.data;
      timeline.push(timelineRow(recorded, caseId, event.type === 'observable.added' ? 'observable_added' : 'observable_removed', payload));
      if (event.type === 'observable.added') {
        const d = event.data;
        added.push({
          id: d.observable_id,
          case_id: d.case_id,
          type: d.type,
          value: d.value,
          normalized: d.normalized,
          added_by: d.added_by,
          created_at: d.at,
          removed_at: null,
        });
      } else removed.push({ id: event.data.observable_id, at: event.data.at });
    }
    if (added.length > 0)
      await trx
        .insertInto('case_observables')
        .values(added)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    for (const r of removed) {
      await trx.updateTable('case_observables').set({ removed_at: r.at }).where('id', '=', r.id).where('removed_at', 'is', null).execute();
    }
    await insertTimeline(trx, timeline);
  },
};
