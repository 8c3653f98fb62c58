/**
 * What a test reads of the event history goes through the event store port, like the
 * projector (issue 20: no SQL outside adapters/event-store/ touches the `events` table).
 */
import type { Kysely } from 'kysely';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import type { Database } from '../../projections/database.ts';

/** Every recorded event of `db` that `keep` accepts, in global order. */
export async function recordedEvents(db: Kysely<Database>, keep: (event: RecordedEvent) => boolean = () => true): Promise<RecordedEvent[]> {
  const store = new PostgresEventStore(db);
  const kept: RecordedEvent[] = [];
  for (let after = 0; ; ) {
    const page = await store.readAll(after, 1000);
    const last = page.at(-1);
    if (!last) return kept;
    kept.push(...page.filter(keep));
    after = last.globalPosition;
  }
}

/** The recorded events of `type`, in global order. */
export const eventsOfType = (db: Kysely<Database>, type: string) => recordedEvents(db, (e) => e.type === type);
