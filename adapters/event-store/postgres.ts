/**
 * Event store on Postgres (PGlite embedded or a PostgreSQL server): an append-only
 * `events` table (docs/architecture.md "Engines").
 *
 * Appends are group-committed: requests that arrive while a batch is in flight are
 * written together in the next one. Every batch takes one advisory lock, so global
 * positions commit in order and a reader by position never skips a late-committing
 * event (docs/architecture.md "Write path", the gap problem). A batch is one statement, its own transaction
 * (`svc_append`, migration 0039): the lock, the stream versions, each request's check
 * and its inserts, in one round trip. What it wrote is kept for this
 * process's projector (recent-appends.ts), which then need not read it back. Stream
 * reads asked for in the same tick are one statement.
 */
import DataLoader from 'dataloader';
import { sql, type Kysely } from 'kysely';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import type { Database } from '../../projections/database.ts';
import { toRecordedEvent } from './event-row.ts';
import { RecentAppends, type CommittedEvent } from './recent-appends.ts';
import {
  StreamVersionConflict,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type PurgeResult,
  type StreamPurge,
  type StreamWrite,
  writesToAppend,
} from './port.ts';

/** Advisory lock key shared by every appender of this database ('svc-evts'). */
export const APPEND_LOCK_KEY = 0x7376_632d_6576_7473n;

/** One stream read: the events of `streamId` from `fromVersion` on. */
type StreamRead = { streamId: string; fromVersion: number };

/** An event's type, data and metadata as the JSON texts the jsonb columns take. */
type EventTexts = { type: string; data: string; metadata: string };

const eventTexts = (e: NewEvent): EventTexts => ({ type: e.type, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata ?? {}) });

/** An events row to insert, data and metadata as the JSON texts the jsonb columns take. */
type EventRow = { stream_id: string; stream_version: number } & EventTexts;

const eventRow = (streamId: string, version: number, e: NewEvent): EventRow => ({ stream_id: streamId, stream_version: version, ...eventTexts(e) });

/** One multi-row INSERT of `rows` (a purge's record); their positions and recording time come back. */
function insertEvents(trx: Kysely<Database>, rows: EventRow[]) {
  if (rows.length === 0) return Promise.resolve([]);
  return trx.insertInto('events').values(rows).returning(['global_position', 'stream_id', 'stream_version', 'recorded_at']).execute();
}

/**
 * The `requests` argument of `svc_append` (migration 0039 gives its shape), built around
 * the events' JSON texts so each payload is serialised once.
 */
function appendRequests(batch: readonly Pending[], texts: readonly EventTexts[][][]): string {
  const events = (t: readonly EventTexts[]) => t.map((e) => `{"t":${JSON.stringify(e.type)},"d":${e.data},"m":${e.metadata}}`).join(',');
  const writes = (p: Pending, i: number) =>
    p.writes
      .map(
        (w, j) =>
          `{"s":${JSON.stringify(w.streamId)},"x":${w.expectedVersion === 'any' ? 'null' : JSON.stringify(w.expectedVersion)},"e":[${events(texts[i]?.[j] ?? [])}]}`,
      )
      .join(',');
  return `[${batch.map((p, i) => `[${writes(p, i)}]`).join(',')}]`;
}

/** One row of `svc_append`: an inserted event (`actual` null) or a request's conflict (`actual` set, the rest null). */
type AppendRow = {
  request: number;
  stream: string;
  version: number | null;
  event: number | null;
  position_at: string | null;
  recorded: Date | string | null;
  actual: number | null;
};

type Pending = {
  writes: StreamWrite[];
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
};

export type PostgresEventStoreOptions = {
  /** Most append requests written in one transaction. */
  maxBatch?: number;
};

export class PostgresEventStore implements EventStore {
  private readonly queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private readonly listeners = new Set<(p: number) => void>();
  private readonly maxBatch: number;
  private readonly recent = new RecentAppends();
  /**
   * Stream reads coalesce per tick (DataLoader, no caching): the runs a worker claims
   * together read their streams, and concurrent steps their cases, in one statement.
   */
  private readonly streamReads = new DataLoader<StreamRead, RecordedEvent[]>((reads) => this.readStreams(reads), { cache: false, maxBatchSize: 100 });

  constructor(
    private readonly db: Kysely<Database>,
    options: PostgresEventStoreOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
  }

  append(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion): Promise<AppendResult> {
    return this.appendMany([{ streamId, events, expectedVersion }]);
  }

  async appendMany(writes: StreamWrite[]): Promise<AppendResult> {
    const nonEmpty = writesToAppend(writes);
    return new Promise((resolve, reject) => {
      this.queue.push({ writes: nonEmpty, resolve, reject });
      this.kick();
    });
  }

  readStream(streamId: string): Promise<RecordedEvent[]> {
    return this.streamReads.load({ streamId, fromVersion: 1 });
  }

  readStreamFrom(streamId: string, fromVersion: number): Promise<RecordedEvent[]> {
    return this.streamReads.load({ streamId, fromVersion });
  }

  /** The stream reads asked for in one tick, as one query (each read's events in version order). */
  private async readStreams(reads: readonly StreamRead[]): Promise<RecordedEvent[][]> {
    // One index range per read (a join on unnest would let the planner scan the whole table).
    const rows = await this.db
      .selectFrom('events')
      .selectAll()
      .where((eb) => eb.or(reads.map((r) => eb.and([eb('stream_id', '=', r.streamId), eb('stream_version', '>=', r.fromVersion)]))))
      .orderBy('stream_id')
      .orderBy('stream_version')
      .execute();
    const byStream = new Map<string, RecordedEvent[]>();
    for (const row of rows) {
      const events = byStream.get(row.stream_id) ?? [];
      events.push(toRecordedEvent(row));
      byStream.set(row.stream_id, events);
    }
    return reads.map((r) => (byStream.get(r.streamId) ?? []).filter((e) => e.streamVersion >= r.fromVersion));
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]> {
    const kept = this.recent.take(afterPosition, limit);
    if (kept) return kept;
    const rows = await this.db.selectFrom('events').selectAll().where('global_position', '>', afterPosition).orderBy('global_position').limit(limit).execute();
    return rows.map(toRecordedEvent);
  }

  async headPosition(): Promise<number> {
    const row = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('global_position').as('head'))
      .executeTakeFirst();
    return row?.head == null ? 0 : Number(row.head);
  }

  async purge(purge: StreamPurge): Promise<PurgeResult> {
    const checked = [{ streamId: purge.guard.streamId, expectedVersion: purge.guard.expectedVersion }, ...purge.record];
    const result = await this.db.transaction().execute(async (trx) => {
      const { rows: current } = await sql<{ stream_id: string; version: number }>`
        select stream_id, version from svc_append_lock(${APPEND_LOCK_KEY}::bigint, ${checked.map((w) => w.streamId)}::text[])`.execute(trx);
      const versions = new Map(current.map((r) => [r.stream_id, Number(r.version)]));
      for (const w of checked) {
        const actual = versions.get(w.streamId) ?? 0;
        if (w.expectedVersion !== 'any' && w.expectedVersion !== actual) throw new StreamVersionConflict(w.streamId, w.expectedVersion, actual);
      }
      const deleted = await trx.deleteFrom('events').where('stream_id', 'in', purge.streamIds).executeTakeFirst();
      const rows = purge.record.flatMap((w) => {
        const from = versions.get(w.streamId) ?? 0;
        return w.events.map((e, i) => eventRow(w.streamId, from + i + 1, e));
      });
      const inserted = await insertEvents(trx, rows);
      const appended: PurgeResult = { lastPosition: 0, versions: {}, eventsDeleted: Number(deleted.numDeletedRows) };
      for (const r of inserted) {
        appended.lastPosition = Math.max(appended.lastPosition, Number(r.global_position));
        appended.versions[r.stream_id] = Math.max(appended.versions[r.stream_id] ?? 0, r.stream_version);
      }
      return appended;
    });
    this.recent.clear();
    for (const l of this.listeners) l(result.lastPosition);
    return result;
  }

  onAppended(listener: (lastPosition: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every append requested so far is written or rejected (call before closing the database). */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private kick(): void {
    this.flushing ??= this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        // Yield one event-loop turn: PGlite answers in microtasks, so without this no
        // other request would reach the queue and every batch would hold one append.
        await new Promise((resolve) => setImmediate(resolve));
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          await this.flush(batch);
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  /** Writes one batch in one statement (`svc_append`, migration 0039); requests whose versions conflict are rejected alone. */
  private async flush(batch: Pending[]): Promise<void> {
    const texts = batch.map((p) => p.writes.map((w) => w.events.map(eventTexts)));
    const { rows } = await sql<AppendRow>`select * from svc_append(${APPEND_LOCK_KEY}::bigint, ${appendRequests(batch, texts)}::jsonb)`.execute(this.db);
    const outcomes = new Map<Pending, AppendResult | StreamVersionConflict>();
    const committed: CommittedEvent[] = [];
    let head = 0;
    for (const row of rows) {
      const pending = batch[row.request];
      if (!pending) continue;
      const writeIndex = pending.writes.findIndex((w) => w.streamId === row.stream);
      if (row.actual !== null) {
        outcomes.set(pending, new StreamVersionConflict(row.stream, pending.writes[writeIndex]?.expectedVersion ?? 'any', row.actual));
        continue;
      }
      const text = texts[row.request]?.[writeIndex]?.[(row.event ?? 0) - 1];
      const position = Number(row.position_at);
      const version = row.version ?? 0;
      if (text)
        committed.push({
          globalPosition: position,
          streamId: row.stream,
          streamVersion: version,
          type: text.type,
          dataText: text.data,
          metadataText: text.metadata,
          recordedAt: new Date(row.recorded ?? 0).toISOString(),
        });
      const outcome = outcomes.get(pending);
      const result = outcome && !(outcome instanceof StreamVersionConflict) ? outcome : { lastPosition: 0, versions: {} };
      result.lastPosition = Math.max(result.lastPosition, position);
      result.versions[row.stream] = Math.max(result.versions[row.stream] ?? 0, version);
      outcomes.set(pending, result);
      head = Math.max(head, position);
    }
    this.recent.add(committed);
    for (const pending of batch) {
      const outcome = outcomes.get(pending);
      if (outcome instanceof StreamVersionConflict) pending.reject(outcome);
      else if (outcome) pending.resolve(outcome);
      else pending.reject(new Error('svc_append answered nothing for an append request'));
    }
    if (head > 0) for (const l of this.listeners) l(head);
  }
}
