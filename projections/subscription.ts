/**
 * Catch-up subscription over all events (docs/architecture.md "Event sourcing"; issue 20): the one way
 * projections and the process manager consume events. Reads through the event store
 * port's `readAll` from a checkpoint, hands each batch to `handle` in global order, then
 * follows new appends (woken by `onAppended` in this process, by the poll for others).
 *
 * The checkpoint is the handler's: `handle` answers the position it has now stored, which
 * may be past the batch when another process advanced a shared checkpoint meanwhile; the
 * next read starts there, so nothing is delivered twice to the same checkpoint and no
 * position is skipped (the port promises `readAll` has no gaps).
 */
import type { RecordedEvent } from '../domain/shared/messages.ts';
import { startCatchUpLoop, type CatchUpLoop } from './catch-up.ts';

/** The part of the event store port (adapters/event-store/port.ts) a subscriber reads. */
export type EventFeed = {
  /** Up to `limit` events with global position > `afterPosition`, in position order, with no gaps. */
  readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]>;
  /** Registers a wake-up fired after appends commit in this process; returns an unsubscribe. */
  onAppended(listener: (lastPosition: number) => void): () => void;
};

export type SubscriptionOptions = {
  /** Where delivery starts: events after this global position. */
  fromPosition: number;
  /**
   * Takes one batch (1..batchSize events, in order). Answers the checkpoint it now holds,
   * or undefined for "the last event of the batch".
   */
  handle: (events: RecordedEvent[]) => Promise<number | undefined> | Promise<void>;
  batchSize?: number;
  /** How often to look for appends made by other processes, ms. */
  pollIntervalMs?: number;
  onError?: (error: unknown) => void;
};

export type Subscription = {
  /** Reads and handles one batch; true when more is surely waiting (a full batch, or the checkpoint jumped past it). */
  poll: () => Promise<boolean>;
  /** Starts following: polls until caught up, then sleeps until an append or the poll interval. */
  start: () => void;
  /** Asks a started subscription to poll again soon. */
  wake: () => void;
  /** Stops following and waits for the batch in flight. */
  stop: () => Promise<void>;
  /** The checkpoint as of the last handled batch. */
  position: () => number;
};

export function createSubscription(feed: EventFeed, options: SubscriptionOptions): Subscription {
  const batchSize = options.batchSize ?? 500;
  let position = options.fromPosition;
  let loop: CatchUpLoop | null = null;
  let unsubscribe: (() => void) | null = null;

  const poll = async () => {
    const events = await feed.readAll(position, batchSize);
    const last = events[events.length - 1];
    if (!last) return false;
    const reached = (await options.handle(events)) ?? last.globalPosition;
    position = Math.max(position, reached);
    // A short batch means caught up; appends made meanwhile wake the loop.
    return events.length === batchSize || reached > last.globalPosition;
  };

  return {
    poll,
    start: () => {
      if (loop) return;
      loop = startCatchUpLoop({ step: poll, pollIntervalMs: options.pollIntervalMs ?? 500, onError: options.onError ?? (() => {}) });
      unsubscribe = feed.onAppended(() => loop?.wake());
    },
    wake: () => loop?.wake(),
    stop: async () => {
      unsubscribe?.();
      unsubscribe = null;
      await loop?.stop();
      loop = null;
    },
    position: () => position,
  };
}

/** Creates a subscription and starts it (the port contract suite's entry point). */
export function subscribeToAll(feed: EventFeed, options: SubscriptionOptions): Subscription {
  const subscription = createSubscription(feed, options);
  subscription.start();
  return subscription;
}
