/**
 * The database engines every contract and integration suite runs on: embedded
 * PGlite always, and a PostgreSQL server when TEST_DATABASE_URL is set (CI sets it).
 * Each `open()` gives a fresh, migrated, isolated database, copied from the migrated one
 * global setup built (migrated-databases.ts).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type OpenedDatabase } from '../../adapters/db/connect.ts';
import { migratedEmbeddedImage, serverTemplate } from './migrated-databases.ts';

export type TestEngine = { name: 'pglite' | 'postgres'; open: () => Promise<OpenedDatabase & { url: string | null }> };

const serverUrl = process.env.TEST_DATABASE_URL;

/**
 * Runs one statement on the test server's maintenance database (TEST_DATABASE_URL) over a
 * connection of its own, outside any pool a test watches: for creating and dropping
 * databases and for looking at or ending other sessions. Answers the rows and row count.
 */
export async function serverAdminQuery<Row extends object = Record<string, unknown>>(
  statement: string,
  params: unknown[] = [],
): Promise<{ rows: Row[]; rowCount: number }> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const result = await admin.query<Row>(statement, params);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  } finally {
    await admin.end();
  }
}

/** The database name in a server URL `createServerDatabase` answered. */
export function databaseNameOf(url: string): string {
  return new URL(url).pathname.slice(1);
}

/**
 * Creates a fresh database on the test server and returns its URL: a copy of the migrated
 * template, or an empty one when `empty` is set.
 */
export async function createServerDatabase(options: { empty?: boolean } = {}): Promise<string> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  await serverAdminQuery(`create database ${name}${options.empty ? '' : ` template ${serverTemplate}`}`);
  const url = new URL(serverUrl as string);
  url.pathname = `/${name}`;
  return url.toString();
}

export const engines: TestEngine[] = [
  {
    name: 'pglite',
    open: async () => {
      const opened = await openDatabase({ dataDir: null, image: await migratedEmbeddedImage() });
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
            return { ...opened, url };
          },
        },
      ]
    : []),
];
