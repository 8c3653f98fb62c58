/**
 * Load-decide-append for one aggregate stream, retried on an optimistic-concurrency
 * conflict (the stream moved between read and append): the command is decided
 * again against the fresh state, so concurrent edits never lose an event.
 * Commands on one stream take turns inside a process, so a busy case costs no
 * retries there; conflicts come only from other processes or other writers of the
 * stream (intake, alert moves) and are retried.
 */
import type { Decider, Event, EventMetadata } from '../../domain/shared/messages.ts';
import { StreamVersionConflict, type EventStore, type StreamWrite } from '../event-store/port.ts';
import { createKeyedMutex } from './keyed-mutex.ts';
import { streamStatesOf, type StreamState } from './stream-states.ts';

/** What a decision appended: its events, the state and stream version after them, and the last global position written (null: nothing). */
export type Decided<E extends Event, S> = { events: E[]; state: S; version: number; position: number | null };

/** Upper bound of conflict retries before the conflict reaches the caller as a 409. */
export const MAX_CONFLICT_RETRIES = 8;

/**
 * Waits before conflict retry `attempt` (0-based): full jitter over 5 ms doubling up to
 * 200 ms, so writers racing for one hot stream (two API processes taking alerts of one
 * key) take turns instead of one of them losing every race.
 */
export function conflictBackoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(200, 5 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` until it does not fail on a `StreamVersionConflict`, with the backoff
 * above, at most `MAX_CONFLICT_RETRIES` times more: the one retry policy of commands,
 * shared by those that read and write several streams in one append (alert moves).
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StreamVersionConflict) || n >= MAX_CONFLICT_RETRIES) throw error;
      await conflictBackoff(n);
    }
  }
}

/**
 * Writes to other streams that must land together with a decision (an audit entry
 * beside the event it records), given the events decided and the state before them.
 */
export type AlsoAppend<E extends Event, S> = (events: E[], before: S) => StreamWrite[];

/**
 * Decides `command(state)` against `streamId` and appends the events with the
 * version it read, plus whatever `also` adds, in one atomic `appendMany`. Returns the
 * events, the state after them, and the last global position written (null when the
 * decision produced no event; `also` is not asked then). `command` may read what the
 * decision needs from other streams (a custom action's name claim); it is called again
 * on every retry, so a conflict on such a stream is decided against what moved it.
 *
 * `known`: the stream's state and version as the caller read or wrote them a moment ago
 * (the `Decided` of its previous command on the stream, or a `load`), decided against
 * without reading the stream again: a command sequence on one stream (an effect's
 * request, then its verdict) costs one read, not one per command. The append's expected
 * version still checks it, so a stream that moved since is a conflict, and the retry
 * loads the stream afresh.
 */
export async function decideAndAppend<C, E extends Event, S>(
  store: EventStore,
  streamId: string,
  decider: Decider<C, E, S>,
  command: (state: S) => C | Promise<C>,
  metadata: EventMetadata,
  also?: AlsoAppend<E, S>,
  known?: StreamState<S>,
): Promise<Decided<E, S>> {
  return streamLock(store)(streamId, () => decideAndAppendRetrying(store, streamId, decider, command, metadata, also, known));
}

/** One per-stream lock per event store, that is per process and database. */
const streamLocks = new WeakMap<EventStore, ReturnType<typeof createKeyedMutex>>();
function streamLock(store: EventStore): ReturnType<typeof createKeyedMutex> {
  let lock = streamLocks.get(store);
  if (!lock) {
    lock = createKeyedMutex();
    streamLocks.set(store, lock);
  }
  return lock;
}

async function decideAndAppendRetrying<C, E extends Event, S>(
  store: EventStore,
  streamId: string,
  decider: Decider<C, E, S>,
  command: (state: S) => C | Promise<C>,
  metadata: EventMetadata,
  also: AlsoAppend<E, S> | undefined,
  known: StreamState<S> | undefined,
): Promise<Decided<E, S>> {
  let first = known;
  return retryOnConflict(async () => {
    const { state, version } = first ?? (await streamStatesOf(store).load(streamId, decider));
    first = undefined;
    const events = decider.decide(await command(state), state);
    if (events.length === 0) return { events, state, version, position: null };
    const own: StreamWrite = { streamId, events: events.map((e) => ({ ...e, metadata })), expectedVersion: version };
    const extra = also?.(events, state) ?? [];
    const result = extra.length === 0 ? await store.append(own.streamId, own.events, own.expectedVersion) : await store.appendMany([own, ...extra]);
    return { events, state: events.reduce(decider.evolve, state), version: version + events.length, position: result.lastPosition };
  });
}
