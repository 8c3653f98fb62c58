/**
 * Catch-up subscription over all events from a checkpoint (issue: event store).
 * Delivers every event after `fromPosition` exactly once, in global order, then
 * follows new appends. The checkpoint is the caller's to persist.
 */
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import { startCatchUpLoop } from '../../projections/catch-up.ts';
import type { EventStore } from './port.ts';

export type Subscription = { stop: () => Promise<void>; position: () => number };

export type SubscribeOptions = {
  fromPosition: number;
  handle: (events: RecordedEvent[]) => Promise<void>;
  batchSize?: number;
  pollIntervalMs?: number;
  onError?: (error: unknown) => void;
};

export function subscribeToAll(store: EventStore, options: SubscribeOptions): Subscription {
  let position = options.fromPosition;
  const loop = startCatchUpLoop({
    pollIntervalMs: options.pollIntervalMs ?? 500,
    onError: options.onError ?? (() => {}),
    step: async () => {
      const events = await store.readAll(position, options.batchSize ?? 500);
      if (events.length === 0) return false;
      await options.handle(events);
      position = events[events.length - 1]?.globalPosition ?? position;
      return true;
    },
  });
  const unsubscribe = store.onAppended(() => loop.wake());
  return {
    position: () => position,
    stop: async () => {
      unsubscribe();
      await loop.stop();
    },
  };
}
