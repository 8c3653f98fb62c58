/**
 * Observable state rebuilt from its stream: whether the (case, type, normalized value) is
 * on the case now, and under which id.
 */
import type { ObservableEvent } from './events.ts';

export type ObservableState = { present: false } | { present: true; observableId: string };

export const initialObservableState = (): ObservableState => ({ present: false });

export function evolveObservable(_state: ObservableState, event: ObservableEvent): ObservableState {
  return event.type === 'observable.added' ? { present: true, observableId: event.data.observable_id } : { present: false };
}
