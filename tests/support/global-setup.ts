/**
 * Vitest's global setup: runs once per `vitest run`, before any test file. It compiles the
 * service (tools/build.mjs, about 2 s) so every test that starts `bin/svc.js` runs the code
 * under test, not an older build, and builds the migrated databases every test database is
 * copied from (migrated-databases.ts).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { prepareMigratedDatabases } from './migrated-databases.ts';

export default async function setup(): Promise<void> {
  await Promise.all([
    promisify(execFile)(process.execPath, [fileURLToPath(new URL('../../tools/build.mjs', import.meta.url))]),
    prepareMigratedDatabases(process.env.TEST_DATABASE_URL),
  ]);
}
