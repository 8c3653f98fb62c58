/**
 * Folded stream states kept between commands, per process (an in-memory snapshot of each
 * recently used stream): loading a stream reads only the events appended since the state
 * was folded, not the whole stream again. A case that collects thousands of alerts in a
 * storm is otherwise read whole by every command and runbook step that touches it, so
 * each one costs more than the last (bench/webhook-runs.ts header).
 *
 * Always current: every load reads the store from the kept version on, so appends by
 * other processes are folded in. That read starts at the kept version's own event and
 * checks its global position: a purged stream (deleted whole, retention) or one created
 * again no longer has that event there, and is read whole. Deciders' `evolve` returns new
 * states and never changes the one it is given (domain/shared/messages.ts), which is
 * what makes a kept state safe to fold on and to hand out.
 */
import { LRUCache } from 'lru-cache';
import { fold, type Decider, type Event } from '../../domain/shared/messages.ts';
import type { EventStore } from '../event-store/port.ts';

/** The streams a process keeps folded, least recently used dropped first: a case state is a few KB. */
export const STREAM_STATES_KEPT = 5000;

/** What folding needs of a decider. */
export type Folding<E extends Event, S> = Pick<Decider<never, E, S>, 'initialState' | 'evolve'>;

/** A stream's state and version (its number of events, the expected version of the next append). */
export type StreamState<S> = { state: S; version: number };

export type StreamStates = {
  /** `streamId` folded with `decider` (state of an empty stream at version 0 when it has no events). */
  load: <E extends Event, S>(streamId: string, decider: Folding<E, S>) => Promise<StreamState<S>>;
};

type Kept = { decider: unknown; state: unknown; version: number; position: number };

/** Loads stream states from `store`, keeping up to `kept` of them. */
export function createStreamStates(store: Pick<EventStore, 'readStream' | 'readStreamFrom'>, kept = STREAM_STATES_KEPT): StreamStates {
  const states = new LRUCache<string, Kept>({ max: kept });
  return {
    load: async <E extends Event, S>(streamId: string, decider: Folding<E, S>): Promise<StreamState<S>> => {
      const known = states.get(streamId);
      let state: S;
      let version: number;
      let events = known && known.decider === decider ? await store.readStreamFrom(streamId, known.version) : null;
      if (known && events && events[0]?.globalPosition === known.position) {
        events = events.slice(1);
        state = events.reduce((s, e) => decider.evolve(s, e as unknown as E), known.state as S);
        version = known.version + events.length;
      } else {
        events = await store.readStream(streamId);
        state = fold(decider, events);
        version = events.length;
      }
      const last = events[events.length - 1];
      // A slower load of an older version must not replace a newer one kept meanwhile.
      if (last && version >= (states.peek(streamId)?.version ?? 0)) {
        states.set(streamId, { decider, state, version, position: last.globalPosition });
      }
      return { state, version };
    },
  };
}

const perStore = new WeakMap<object, StreamStates>();

/** The stream states of `store`, one per store object and so per process and database (like the per-stream locks in aggregate.ts). */
export function streamStatesOf(store: Pick<EventStore, 'readStream' | 'readStreamFrom'>): StreamStates {
  let states = perStore.get(store);
  if (!states) {
    states = createStreamStates(store);
    perStore.set(store, states);
  }
  return states;
}
