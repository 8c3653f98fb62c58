/**
 * The database engines every contract and integration suite runs on: embedded
 * PGlite always, and a PostgreSQL server when TEST_DATABASE_URL is set (CI sets it).
 * Each `open()` gives a fresh, migrated, isolated database.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type OpenedDatabase } from '../../adapters/db/connect.ts';
import { migrateToLatest } from '../../runtime/migrate.ts';

export type TestEngine = { name: 'pglite' | 'postgres'; open: () => Promise<OpenedDatabase & { url: string | null }> };

const serverUrl = process.env.TEST_DATABASE_URL;

/** Creates a fresh database on the test server and returns its URL. */
export async function createServerDatabase(): Promise<string> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export const engines: TestEngine[] = [
  {
    name: 'pglite',
    open: async () => {
      const opened = await openDatabase({ dataDir: null });
      await migrateToLatest(opened.db);
      return { ...opened, url: null };
    },
  },
  ...(serverUrl
    ? [
        {
          name: 'postgres' as const,
          open: async () => {
            const url = await createServerDatabase();
            const opened = await openDatabase({ databaseUrl: url, poolSize: 20 });
            await migrateToLatest(opened.db);
            return { ...opened, url };
          },
        },
      ]
    : []),
];
