/**
 * Load-decide-append for one aggregate stream, retried on an optimistic-concurrency
 * conflict (the stream moved between read and append): the command is decided
 * again against the fresh state, so concurrent edits never lose an event.
 * Commands on one stream take turns inside a process, so a busy case costs no
 * retries there; conflicts come only from other processes or other writers of the
 * stream (intake, alert moves) and are retried.
 */
import { DomainError } from '../../domain/shared/errors.ts';
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

/** One stream's part of a batch: the stream, and its command decided against its state (called again on a retry). */
export type BatchItem<C, S> = { streamId: string; command: (state: S) => C };

/** What a batch decided for one stream: its events and the state after them, or the refusal its decider threw. */
export type BatchOutcome<E extends Event, S> = { ok: true; events: E[]; state: S } | { ok: false; error: DomainError };

/**
 * Decides each item's command against its own stream, then appends every stream's events
 * in one atomic `appendMany`, so a batch of commands on many aggregates (a bulk close of
 * cases) costs one transaction rather than one each. A refusal of the decider (a
 * `DomainError`) fails only its item; a version conflict on any stream decides the whole
 * batch again against fresh states, as `decideAndAppend` does for one. The streams take
 * their in-process locks in id order, so two batches never wait on each other in a cycle.
 * `position` is the last global position written, null when nothing was.
 *
 * @throws Error when two items name one stream (its expected version would be ambiguous).
 */
export async function decideAndAppendBatch<C, E extends Event, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  items: BatchItem<C, S>[],
  metadata: EventMetadata,
): Promise<{ outcomes: BatchOutcome<E, S>[]; position: number | null }> {
  const ids = items.map((item) => item.streamId);
  if (new Set(ids).size !== ids.length) throw new Error('a batch names one stream twice');
  const lock = streamLock(store);
  const locked = [...ids].sort().reduceRight<() => Promise<{ outcomes: BatchOutcome<E, S>[]; position: number | null }>>(
    (inner, streamId) => () => lock(streamId, inner),
    () =>
      retryOnConflict(async () => {
        const loaded = await Promise.all(items.map((item) => streamStatesOf(store).load(item.streamId, decider)));
        const writes: StreamWrite[] = [];
        const outcomes = items.map((item, index): BatchOutcome<E, S> => {
          const { state, version } = loaded[index] as StreamState<S>;
          try {
            const events = decider.decide(item.command(state), state);
            if (events.length > 0) writes.push({ streamId: item.streamId, events: events.map((e) => ({ ...e, metadata })), expectedVersion: version });
            return { ok: true, events, state: events.reduce(decider.evolve, state) };
          } catch (error) {
            if (error instanceof DomainError) return { ok: false, error };
            throw error;
          }
        });
        const position = writes.length === 0 ? null : (await store.appendMany(writes)).lastPosition;
        return { outcomes, position };
      }),
  );
  return locked();
}
