/**
 * Event store on a KurrentDB server (docs/architecture.md "KurrentDB": `SVC_EVENT_STORE=kurrentdb`),
 * through `@kurrent/kurrentdb-client`. That is the maintained successor of the design
 * card's `@eventstore/db-client`: the old package was renamed with the server
 * (EventStoreDB is now KurrentDB) and is deprecated; the new one gets the fixes and the
 * new server features, among them the atomic multi-stream append of KurrentDB 25.1 that
 * `appendMany` needs. Projections and their checkpoint stay in Postgres: the projector
 * reads this store through `readAll` like any other.
 *
 * The mappings are in adapters/kurrentdb/mapping.ts: version = revision + 1 (expected 0 is
 * `no_stream`); global position = the event's log position, a bigint turned into a checked
 * Number; metadata members JSON-encoded as strings; data stored with `jsonb`'s key order,
 * so a RecordedEvent reads back as the Postgres store gives it (adapters/event-store/event-row.ts).
 *
 * - `append` and a one-stream `appendMany` use `appendToStream` (any server 22.6 or later);
 *   a `appendMany` over several streams uses `multiStreamAppend`, all or nothing, which needs
 *   KurrentDB 25.1: an older server answers a clear error, never a stream-by-stream write.
 * - A wrong expected version becomes StreamVersionConflict with the stream's actual version.
 * - `lastPosition` is read back from the last event of each written stream: the append
 *   answer carries a position whose relation to the last event is not documented, and
 *   `waitFor(lastPosition)` must not be early.
 * - `readAll` reads `$all` forwards after the position, without system events (filtered by
 *   type on the server and by stream here); positions must strictly increase, or it throws.
 * - `purge` refuses (see there): retention needs the Postgres store.
 * - `onAppended` fires after this process's appends; other processes' appends are found by polling.
 * Not run against a real server on the build machines (docs/architecture.md "KurrentDB").
 */
import {
  BACKWARDS,
  END,
  excludeSystemEvents,
  jsonEvent,
  KurrentDBClient,
  StreamNotFoundError,
  UnsupportedError,
  WrongExpectedVersionError,
  type EventData,
  type Position,
} from '@kurrent/kurrentdb-client';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import {
  allPositionOf,
  decodeData,
  decodeMetadata,
  encodeData,
  encodeMetadata,
  expectedStreamState,
  isSystemEvent,
  readAllFrom,
  streamPositionOf,
  versionOfRevision,
  versionOfState,
} from './mapping.ts';
import {
  StreamVersionConflict,
  writesToAppend,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type PurgeResult,
  type StreamWrite,
} from '../event-store/port.ts';

/** Events read per step when `headPosition` walks back over system streams. */
const HEAD_PAGE = 16;

/** The part of a client event this store reads. */
type ServerEvent = { streamId: string; revision: bigint; type: string; data: unknown; metadata: unknown; created: Date };

function toEventData(event: NewEvent): EventData {
  return jsonEvent({ type: event.type, data: encodeData(event.data), metadata: encodeMetadata(event.metadata) });
}

function toRecorded(event: ServerEvent, globalPosition: number): RecordedEvent {
  return {
    globalPosition,
    streamId: event.streamId,
    streamVersion: versionOfRevision(event.revision),
    type: event.type,
    data: decodeData(event.data),
    metadata: decodeMetadata(event.metadata),
    recordedAt: event.created.toISOString(),
  };
}

/** The port's conflict for a client's wrong-expected-version error on one of `writes`; any other error as it is. */
function conflictOf(error: unknown, writes: StreamWrite[]): unknown {
  if (!(error instanceof WrongExpectedVersionError)) return error;
  const write = writes.length === 1 ? writes[0] : writes.find((w) => w.streamId === error.streamName);
  return write ? new StreamVersionConflict(write.streamId, write.expectedVersion, versionOfState(error.actualState, write.streamId)) : error;
}

export class KurrentDbEventStore implements EventStore {
  private readonly client: KurrentDBClient;
  private readonly listeners = new Set<(p: number) => void>();
  private readonly inFlight = new Set<Promise<void>>();

  /** `connectionString`: `kurrentdb://[user:password@]host:port?tls=...` (KURRENTDB_CONNECTION_STRING). */
  constructor(connectionString: string) {
    this.client = KurrentDBClient.connectionString(connectionString);
  }

  append(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion): Promise<AppendResult> {
    return this.appendMany([{ streamId, events, expectedVersion }]);
  }

  async appendMany(writes: StreamWrite[]): Promise<AppendResult> {
    const written = this.write(writesToAppend(writes));
    const settled = written.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return written;
  }

  readStream(streamId: string): Promise<RecordedEvent[]> {
    return this.readStreamFrom(streamId, 1);
  }

  async readStreamFrom(streamId: string, fromVersion: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      // Revisions count from 0, stream versions from 1.
      for await (const resolved of this.client.readStream(streamId, { fromRevision: BigInt(Math.max(fromVersion, 1) - 1) })) {
        if (resolved.event) events.push(toRecorded(resolved.event, streamPositionOf(resolved.event.position)));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    let from = afterPosition;
    while (events.length < limit) {
      // One more than needed: a read from a position returns the event at it too.
      const wanted = limit - events.length + 1;
      let read = 0;
      let last = from;
      for await (const resolved of this.client.readAll({ fromPosition: readAllFrom(from), maxCount: wanted, filter: excludeSystemEvents() })) {
        read += 1;
        const event = resolved.event;
        if (!event) continue;
        const position = allPositionOf(event.position);
        if (position === from) continue;
        if (position < last) throw new Error(`KurrentDB $all read went back from position ${last} to ${position}`);
        last = position;
        // The server filtered system event types; a system stream can still hold other types.
        if (!isSystemEvent(event.streamId, event.type)) events.push(toRecorded(event, position));
        if (events.length === limit) break;
      }
      if (read < wanted) break;
      from = last;
    }
    return events;
  }

  async headPosition(): Promise<number> {
    let from: Position | typeof END = END;
    for (;;) {
      let read = 0;
      let oldest: Position | undefined;
      // Backwards from a position excludes the event at it, so each page starts past the last.
      for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: HEAD_PAGE, filter: excludeSystemEvents() })) {
        read += 1;
        const event = resolved.event;
        if (!event) continue;
        if (!isSystemEvent(event.streamId, event.type)) return allPositionOf(event.position);
        oldest = event.position;
      }
      if (read < HEAD_PAGE || !oldest) return 0;
      from = oldest;
    }
  }

  /**
   * Refuses, changing nothing. KurrentDB has no transaction spanning a stream deletion and
   * an append, so the purge would be record-then-delete, and that is not safe here: a crash
   * between them leaves the purged case's events in the store while the projected record
   * says they are gone (no later sweep finds the case again); and a soft-deleted stream
   * that is written again continues its old event numbers, so a stream recreated after a
   * purge (an alert of the same source and id arriving again) would have version !=
   * event count and every append to it would conflict. Retention needs the Postgres store
   * (runtime/config.ts refuses `SVC_EVENT_STORE=kurrentdb` with retention on).
   */
  async purge(): Promise<PurgeResult> {
    throw new Error('retention purge needs the postgres event store: KurrentDB cannot delete streams and append the purge record atomically');
  }

  onAppended(listener: (lastPosition: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every append requested so far is written or rejected. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Waits for the appends in flight, then closes the client's connections. */
  async close(): Promise<void> {
    await this.settle();
    await this.client.dispose();
  }

  private async write(writes: StreamWrite[]): Promise<AppendResult> {
    const revisions = writes.length === 1 ? [await this.appendOne(writes[0] as StreamWrite)] : await this.appendAtomically(writes);
    const written = writes.map((w, i) => ({ streamId: w.streamId, revision: revisions[i] as bigint }));
    const positions = await Promise.all(written.map((w) => this.positionOf(w.streamId, w.revision)));
    const result: AppendResult = {
      lastPosition: Math.max(...positions),
      versions: Object.fromEntries(written.map((w) => [w.streamId, versionOfRevision(w.revision)])),
    };
    for (const l of this.listeners) l(result.lastPosition);
    return result;
  }

  /** Appends one stream's events; answers the stream's new last revision. */
  private async appendOne(write: StreamWrite): Promise<bigint> {
    try {
      const result = await this.client.appendToStream(write.streamId, write.events.map(toEventData), {
        streamState: expectedStreamState(write.expectedVersion),
      });
      // With `throwOnAppendFailure=false` in the connection string a conflict is an answer, not an error.
      if (!result.success) {
        const actual = result.nextExpectedRevision < 0n ? 0 : versionOfRevision(result.nextExpectedRevision);
        throw new StreamVersionConflict(write.streamId, write.expectedVersion, actual);
      }
      return result.nextExpectedRevision;
    } catch (error) {
      throw conflictOf(error, [write]);
    }
  }

  /** Appends to several streams in one server transaction; answers each stream's new last revision, in `writes` order. */
  private async appendAtomically(writes: StreamWrite[]): Promise<bigint[]> {
    try {
      const result = await this.client.multiStreamAppend(
        writes.map((w) => ({ streamName: w.streamId, events: w.events.map(toEventData), expectedState: expectedStreamState(w.expectedVersion) })),
      );
      const revisions = new Map(result.responses.map((r) => [r.streamName, r.revision]));
      return writes.map((w) => {
        const revision = revisions.get(w.streamId);
        if (revision === undefined) throw new Error(`KurrentDB answered a multi-stream append without stream ${w.streamId}`);
        return revision;
      });
    } catch (error) {
      if (error instanceof UnsupportedError) {
        throw new Error(
          `appendMany over ${writes.length} streams needs KurrentDB 25.1 or later (multi-stream append), which this server lacks; appending stream by stream would not be atomic`,
        );
      }
      throw conflictOf(error, writes);
    }
  }

  /** The global position of event `revision` of `streamId`, read back after its append. */
  private async positionOf(streamId: string, revision: bigint): Promise<number> {
    for await (const resolved of this.client.readStream(streamId, { fromRevision: revision, maxCount: 1 })) {
      if (resolved.event) return streamPositionOf(resolved.event.position);
    }
    throw new Error(`event ${revision} of stream ${streamId} could not be read back after its append`);
  }
}
