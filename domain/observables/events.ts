/**
 * Observable events (SPEC.md "Case sub-resources": observables of a case, de-duplicated
 * on the normalized value).
 */
import type { Event } from '../shared/messages.ts';

export type ObservableAdded = Event<
  'observable.added',
  { observable_id: string; case_id: string; type: string; value: string; normalized: string; added_by: string | null; at: string }
>;
export type ObservableRemoved = Event<'observable.removed', { observable_id: string; case_id: string; removed_by: string | null; at: string }>;
export type ObservableEvent = ObservableAdded | ObservableRemoved;

export const observableEventTypes: ReadonlySet<string> = new Set<ObservableEvent['type']>(['observable.added', 'observable.removed']);
