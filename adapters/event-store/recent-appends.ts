/**
 * The events this process appended last, kept so the projector's next `readAll` need not
 * read back from the database what was just written (the read-back was the costliest
 * statement of a projector batch: a tenth of the database time under intake load).
 *
 * Served only when it is exactly what the table would answer: the events right after the
 * reader's position, with no position missing up to the newest kept one. Another process's
 * append, a sequence gap left by a rolled-back transaction, or an evicted event leaves a
 * hole, and the reader goes to the database. Events are handed out once (`take`): the one
 * reader in a process is the projector, and a batch it fails to apply is read again from
 * its unchanged checkpoint, from the database, as fresh objects.
 */
import type { EventMetadata, RecordedEvent } from '../../domain/shared/messages.ts';
import { parseAsJsonb } from './jsonb.ts';

/** A committed event as the appender wrote it: data and metadata as the JSON texts inserted, parsed only when taken. */
export type CommittedEvent = Omit<RecordedEvent, 'data' | 'metadata'> & { dataText: string; metadataText: string };

/** The event a `jsonb` column would give back for `committed`. */
const recorded = (e: CommittedEvent): RecordedEvent => ({
  globalPosition: e.globalPosition,
  streamId: e.streamId,
  streamVersion: e.streamVersion,
  type: e.type,
  data: parseAsJsonb(e.dataText) as Record<string, unknown>,
  metadata: parseAsJsonb(e.metadataText) as EventMetadata,
  recordedAt: e.recordedAt,
});

/** Most events kept; past it the oldest go (a reader that far behind reads the database). */
export const RECENT_APPENDS_KEPT = 4096;

export class RecentAppends {
  private events: CommittedEvent[] = [];

  constructor(private readonly kept = RECENT_APPENDS_KEPT) {}

  /** Keeps `committed` (events of one committed transaction, any order). */
  add(committed: CommittedEvent[]): void {
    const sorted = [...committed].sort((a, b) => a.globalPosition - b.globalPosition);
    const newest = this.events[this.events.length - 1];
    // Appends commit in position order (the append lock), so this is almost always a push.
    if (newest === undefined || (sorted[0]?.globalPosition ?? Number.POSITIVE_INFINITY) > newest.globalPosition) this.events.push(...sorted);
    else this.events = [...this.events, ...sorted].sort((a, b) => a.globalPosition - b.globalPosition);
    if (this.events.length > this.kept) this.events = this.events.slice(this.events.length - this.kept);
  }

  /** Forgets everything (a purge deleted events that may be kept here). */
  clear(): void {
    this.events = [];
  }

  /**
   * Up to `limit` events after `afterPosition`, removed from what is kept, when every
   * position from `afterPosition + 1` to the newest kept event is here; null otherwise.
   */
  take(afterPosition: number, limit: number): RecordedEvent[] | null {
    const start = this.events.findIndex((e) => e.globalPosition > afterPosition);
    if (start === -1) {
      this.events = [];
      return null;
    }
    const rest = this.events.slice(start);
    const contiguous = rest.every((e, i) => e.globalPosition === afterPosition + 1 + i);
    if (!contiguous) {
      this.events = rest;
      return null;
    }
    const served = rest.slice(0, limit);
    this.events = rest.slice(served.length);
    return served.map(recorded);
  }
}
