/**
 * Opens the event store of the configuration (SVC_EVENT_STORE; docs/configuration.md):
 * the `events` table of the service database, or a KurrentDB server. Either way the read
 * models and their checkpoint live in the service database.
 *
 * Read models are projected up to a checkpoint that is a position of the store they were
 * projected from, and positions of two stores mean nothing to each other; so a database
 * whose `events` table already holds events is refused for KurrentDB (there is no
 * migration between stores).
 */
import type { Kysely } from 'kysely';
import type { EventStore } from '../adapters/event-store/port.ts';
import { PostgresEventStore } from '../adapters/event-store/postgres.ts';
import type { Database } from '../projections/database.ts';
import type { EventStoreConfig } from './config.ts';

/** The store, `settle` (waits for the appends in flight) and `close` (after the last reader stopped). */
export type OpenedEventStore = { store: EventStore; settle: () => Promise<void>; close: () => Promise<void> };

export async function openEventStore(config: EventStoreConfig, db: Kysely<Database>): Promise<OpenedEventStore> {
  const postgres = new PostgresEventStore(db);
  if (config.kind === 'postgres') return { store: postgres, settle: () => postgres.settle(), close: async () => {} };
  if ((await postgres.headPosition()) > 0) {
    throw new Error('SVC_EVENT_STORE=kurrentdb, but this database already holds events of the postgres event store, which its read models were projected from');
  }
  // The KurrentDB client (gRPC) is loaded only when configured: it is a quarter of a start's module loading.
  const { KurrentDbEventStore } = await import('../adapters/kurrentdb/store.ts');
  const kurrent = new KurrentDbEventStore(config.connectionString);
  return { store: kurrent, settle: () => kurrent.settle(), close: () => kurrent.close() };
}
