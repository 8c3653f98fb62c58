/**
 * A case observable as an aggregate (SPEC.md "Case sub-resources": observables are
 * de-duplicated on the normalized value). Its stream is keyed by (case, type,
 * normalized value), so the stream itself is the de-duplication: adding a present
 * observable decides nothing, and adding one that was removed brings it back under a
 * new id.
 *
 * Errors: `observable_not_found` (404) for removing one that is absent.
 */
import { notFound } from '../shared/errors.ts';
import type { Decider, Event } from '../shared/messages.ts';

export type ObservableAdded = Event<
  'observable.added',
  { observable_id: string; case_id: string; type: string; value: string; normalized: string; added_by: string | null; at: string }
>;
export type ObservableRemoved = Event<'observable.removed', { observable_id: string; case_id: string; removed_by: string | null; at: string }>;
export type ObservableEvent = ObservableAdded | ObservableRemoved;

export const observableEventTypes: ReadonlySet<string> = new Set<ObservableEvent['type']>(['observable.added', 'observable.removed']);

export type ObservableState = { present: false } | { present: true; observableId: string };

export type ObservableCommand =
  | { type: 'add'; observableId: string; caseId: string; kind: string; value: string; normalized: string; by: string | null; now: string }
  | { type: 'remove'; observableId: string; caseId: string; by: string | null; now: string };

export const observableDecider: Decider<ObservableCommand, ObservableEvent, ObservableState> = {
  initialState: () => ({ present: false }),
  evolve: (state, event) => (event.type === 'observable.added' ? { present: true, observableId: event.data.observable_id } : { present: false }),
  decide: (command, state) => {
    if (command.type === 'add') {
      if (state.present) return [];
      const { observableId, caseId, kind, value, normalized, by, now } = command;
      return [{ type: 'observable.added', data: { observable_id: observableId, case_id: caseId, type: kind, value, normalized, added_by: by, at: now } }];
    }
    if (!state.present || state.observableId !== command.observableId) {
      throw notFound('observable_not_found', 'observable not found', { observable_id: command.observableId });
    }
    return [{ type: 'observable.removed', data: { observable_id: command.observableId, case_id: command.caseId, removed_by: command.by, at: command.now } }];
  },
};
