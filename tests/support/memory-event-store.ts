/**
 * An event store held in memory (issue 47: the middle of the test pyramid), for tests
 * whose behaviour does not live in the database: it passes the same contract suite as the
 * PostgreSQL and PGlite stores (tests/contract/event-store.test.ts), so a decider, a
 * command handler or the run driver tested on it behaves as on a real store.
 *
 * Events are kept as the JSON texts a `jsonb` column would take and read back with
 * jsonb's key order (adapters/event-store/jsonb.ts), each read a fresh copy. An append
 * decides and writes before it first yields, so concurrent appends are serialised as the
 * append lock serialises them on a server. `another()` opens a second store over the same
 * events, as a second process would; `onAppended` wakes only the listeners of the store
 * that appended, as in-process wake-ups do.
 */
import { parseAsJsonb } from '../../adapters/event-store/jsonb.ts';
import {
  StreamVersionConflict,
  writesToAppend,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type PurgeResult,
  type StreamPurge,
  type StreamWrite,
} from '../../adapters/event-store/port.ts';
import type { EventMetadata, RecordedEvent } from '../../domain/shared/messages.ts';

/** One stored event: its place, and its data and metadata as JSON texts. */
type StoredEvent = { globalPosition: number; streamId: string; streamVersion: number; type: string; data: string; metadata: string; recordedAt: string };

/** The events every store opened over one memory share. */
type Memory = { log: StoredEvent[]; streams: Map<string, StoredEvent[]>; head: number };

const recorded = (e: StoredEvent): RecordedEvent => ({
  globalPosition: e.globalPosition,
  streamId: e.streamId,
  streamVersion: e.streamVersion,
  type: e.type,
  data: parseAsJsonb(e.data) as Record<string, unknown>,
  metadata: parseAsJsonb(e.metadata) as EventMetadata,
  recordedAt: e.recordedAt,
});

export class MemoryEventStore implements EventStore {
  private readonly listeners = new Set<(p: number) => void>();

  constructor(private readonly memory: Memory = { log: [], streams: new Map(), head: 0 }) {}

  /** A second store over the same events (another process, for the contract suite). */
  another(): MemoryEventStore {
    return new MemoryEventStore(this.memory);
  }

  async append(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion): Promise<AppendResult> {
    return this.appendMany([{ streamId, events, expectedVersion }]);
  }

  async appendMany(writes: StreamWrite[]): Promise<AppendResult> {
    const result = this.write(writesToAppend(writes));
    this.wake(result.lastPosition);
    return result;
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    return (this.memory.streams.get(streamId) ?? []).map(recorded);
  }

  async readStreamFrom(streamId: string, fromVersion: number): Promise<RecordedEvent[]> {
    return (this.memory.streams.get(streamId) ?? []).filter((e) => e.streamVersion >= fromVersion).map(recorded);
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]> {
    const { log } = this.memory;
    // Positions only grow: a binary search finds the first event after the checkpoint.
    let low = 0;
    let high = log.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((log[mid]?.globalPosition ?? 0) <= afterPosition) low = mid + 1;
      else high = mid;
    }
    return log.slice(low, low + limit).map(recorded);
  }

  async headPosition(): Promise<number> {
    return this.memory.log.at(-1)?.globalPosition ?? 0;
  }

  async purge(purge: StreamPurge): Promise<PurgeResult> {
    const { guard, streamIds, record } = purge;
    this.check(guard.streamId, guard.expectedVersion);
    const writes = writesToAppend(record);
    for (const w of writes) this.check(w.streamId, w.expectedVersion);
    const doomed = new Set(streamIds);
    if (writes.some((w) => doomed.has(w.streamId))) throw new Error('a purge cannot record into a stream it deletes');
    const before = this.memory.log.length;
    this.memory.log = this.memory.log.filter((e) => !doomed.has(e.streamId));
    for (const id of doomed) this.memory.streams.delete(id);
    const eventsDeleted = before - this.memory.log.length;
    const result = this.write(writes);
    this.wake(result.lastPosition);
    return { ...result, eventsDeleted };
  }

  onAppended(listener: (lastPosition: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Throws StreamVersionConflict when `streamId` is not at `expected` (`any` always is). */
  private check(streamId: string, expected: ExpectedVersion): void {
    const actual = this.memory.streams.get(streamId)?.length ?? 0;
    if (expected !== 'any' && expected !== actual) throw new StreamVersionConflict(streamId, expected, actual);
  }

  /** Checks every write, then records them all: one conflict writes nothing. */
  private write(writes: StreamWrite[]): AppendResult {
    for (const w of writes) this.check(w.streamId, w.expectedVersion);
    const recordedAt = new Date().toISOString();
    const versions: Record<string, number> = {};
    for (const w of writes) {
      const stream = this.memory.streams.get(w.streamId) ?? [];
      for (const e of w.events) {
        this.memory.head += 1;
        const stored: StoredEvent = {
          globalPosition: this.memory.head,
          streamId: w.streamId,
          streamVersion: stream.length + 1,
          type: e.type,
          data: JSON.stringify(e.data),
          metadata: JSON.stringify(e.metadata ?? {}),
          recordedAt,
        };
        stream.push(stored);
        this.memory.log.push(stored);
      }
      this.memory.streams.set(w.streamId, stream);
      versions[w.streamId] = stream.length;
    }
    return { lastPosition: this.memory.head, versions };
  }

  private wake(position: number): void {
    for (const l of this.listeners) l(position);
  }
}
