/**
 * Every schema migration of the service, read models' and event store's, as one
 * provider: Kysely applies them in name order, so the numbers interleave as written.
 */
import type { MigrationProvider } from 'kysely';
import { eventStoreMigrations } from '../adapters/event-store/migrations/index.ts';
import { readModelMigrations } from '../projections/migrations/index.ts';

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...readModelMigrations, ...eventStoreMigrations }),
};
