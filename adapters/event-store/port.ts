/**
 * The event store port (docs/architecture.md "Event sourcing"; issue: event store).
 *
 * Streams are versioned by event count: a new stream is at version 0 and its first
 * event is recorded with stream version 1. `expectedVersion` is the version the
 * writer last saw, or `'any'` to skip the check. Positions are global, strictly
 * increasing, and a reader of `readAll` never sees a later position before an
 * earlier one commits (no gaps from late commits).
 */
import { DomainError } from '../../domain/shared/errors.ts';
import type { Event, EventMetadata, RecordedEvent } from '../../domain/shared/messages.ts';

export type NewEvent = Event & { metadata?: EventMetadata };
export type ExpectedVersion = number | 'any';
export type StreamWrite = { streamId: string; events: NewEvent[]; expectedVersion: ExpectedVersion };

/**
 * The writes of an `appendMany` that carry events, as every store takes them; throws when
 * none carries one or a stream is written twice (its expected version would be ambiguous).
 */
export function writesToAppend(writes: StreamWrite[]): StreamWrite[] {
  const nonEmpty = writes.filter((w) => w.events.length > 0);
  if (nonEmpty.length === 0) throw new Error('appendMany needs at least one event');
  const streamsSeen = new Set<string>();
  for (const w of nonEmpty) {
    if (streamsSeen.has(w.streamId)) throw new Error(`stream ${w.streamId} written twice in one append`);
    streamsSeen.add(w.streamId);
  }
  return nonEmpty;
}

/** Result of an append: the last global position written and each stream's new version. */
export type AppendResult = { lastPosition: number; versions: Record<string, number> };

/** Optimistic-concurrency failure: the stream moved since the writer read it. */
export class StreamVersionConflict extends DomainError {
  constructor(streamId: string, expected: ExpectedVersion, actual: number) {
    super('stream_version_conflict', 409, `stream ${streamId} is at version ${actual}, expected ${expected}`, {
      stream_id: streamId,
      expected_version: expected,
      actual_version: actual,
    });
  }
}

/**
 * A retention purge (docs/architecture.md "Event sourcing": deletion is the one exception, and it is itself recorded):
 * `streamIds` are deleted whole and `record` appended, in one transaction. `guard` is the
 * stream whose state decided the purge; it must still be at `expectedVersion`.
 */
export type StreamPurge = { guard: { streamId: string; expectedVersion: number }; streamIds: string[]; record: StreamWrite[] };

/** Result of a purge: the record's append result and how many events were deleted. */
export type PurgeResult = AppendResult & { eventsDeleted: number };

export interface EventStore {
  /** Appends events to one stream. Throws StreamVersionConflict on a version mismatch. */
  append(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion): Promise<AppendResult>;
  /** Appends to several streams atomically: all writes land or none (first conflict is thrown). */
  appendMany(writes: StreamWrite[]): Promise<AppendResult>;
  /** All events of one stream in version order; empty for a stream that does not exist. */
  readStream(streamId: string): Promise<RecordedEvent[]>;
  /** The events of one stream from `fromVersion` on (1-based, inclusive), in version order; empty when it has none there. */
  readStreamFrom(streamId: string, fromVersion: number): Promise<RecordedEvent[]>;
  /** Up to `limit` events with global position > `afterPosition`, in position order. */
  readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]>;
  /** The highest committed global position (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Deletes `purge.streamIds` and appends `purge.record` atomically. Throws
   * StreamVersionConflict, changing nothing, when the guard or a record stream moved.
   */
  purge(purge: StreamPurge): Promise<PurgeResult>;
  /** Registers a wake-up callback fired after appends commit in this process; returns an unsubscribe. */
  onAppended(listener: (lastPosition: number) => void): () => void;
}
