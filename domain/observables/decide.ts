/**
 * Observable decisions (SPEC.md "Case sub-resources": observables are de-duplicated on
 * the normalized value). The stream is keyed by (case, type, normalized value), so the
 * stream itself is the de-duplication: adding a present observable decides nothing, and
 * adding one that was removed brings it back under a new id.
 *
 * Errors: `observable_not_found` (404) for removing one that is absent.
 */
import { notFound } from '../shared/errors.ts';
import type { ObservableCommand } from './commands.ts';
import type { ObservableEvent } from './events.ts';
import type { ObservableState } from './state.ts';

export function decideObservable(command: ObservableCommand, state: ObservableState): ObservableEvent[] {
  if (command.type === 'add') {
    if (state.present) return [];
    const { observableId, caseId, kind, value, normalized, by, now } = command;
    return [{ type: 'observable.added', data: { observable_id: observableId, case_id: caseId, type: kind, value, normalized, added_by: by, at: now } }];
  }
  if (!state.present || state.observableId !== command.observableId) {
    throw notFound('observable_not_found', 'observable not found', { observable_id: command.observableId });
  }
  return [{ type: 'observable.removed', data: { observable_id: command.observableId, case_id: command.caseId, removed_by: command.by, at: command.now } }];
}
