/**
 * Vitest's global setup: runs once per `vitest run`, before any test file, and builds
 * the migrated databases every test database is copied from (migrated-databases.ts).
 */
import { prepareMigratedDatabases } from './migrated-databases.ts';

export default async function setup(): Promise<void> {
  await prepareMigratedDatabases(process.env.TEST_DATABASE_URL);
}
