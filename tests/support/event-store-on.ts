/**
 * The event store (adapters/event-store/postgres.ts) on a fresh, migrated database of
 * `engine`, for one describe block: opened before its tests and closed after them. Its
 * `store` and `db` are there once the block's tests run.
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import type { EventStore } from '../../adapters/event-store/port.ts';
import type { Database } from '../../projections/database.ts';
import type { TestEngine } from './engines.ts';

export type EventStoreOn = { store: EventStore; db: Kysely<Database> };

export function eventStoreOn(engine: TestEngine): EventStoreOn {
  const on = {} as EventStoreOn;
  let close: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    const opened = await engine.open();
    close = opened.close;
    on.db = opened.db;
    on.store = new PostgresEventStore(opened.db);
  });
  afterAll(async () => close?.());
  return on;
}
