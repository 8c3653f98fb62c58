/**
 * The server connection pool (docs/configuration.md `SVC_DB_POOL_SIZE`, `SVC_DB_POOL_IDLE_S`):
 * by default a connection opened for a burst stays open after it, so the next burst finds
 * warm server backends instead of opening new ones with cold catalog caches; a positive
 * idle time closes unused connections after it. PostgreSQL only: PGlite has no pool.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../adapters/db/connect.ts';
import { loadConfig } from '../../runtime/config.ts';
import { createServerDatabase, databaseNameOf, serverAdminQuery } from '../support/engines.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const skipReason = 'TEST_DATABASE_URL is not set: PGlite has no connection pool';

/** Client sessions on the database of `url`, this check's own excluded (an autovacuum worker visiting the new database is no session of the pool). */
async function sessionsOn(url: string): Promise<number> {
  const { rows } = await serverAdminQuery<{ n: number }>(
    "select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'",
    [databaseNameOf(url)],
  );
  return rows[0]?.n ?? 0;
}

/** Opens the database with `pool`, runs `size` overlapping queries so the pool opens `size` connections, waits `waitMs`, and counts the sessions left. */
async function sessionsAfterBurst(pool: { poolSize: number; poolIdleMs?: number }, waitMs: number): Promise<number> {
  const url = await createServerDatabase();
  const opened = await openDatabase({ databaseUrl: url, ...pool });
  try {
    await Promise.all(Array.from({ length: pool.poolSize }, () => sql`select pg_sleep(0.2)`.execute(opened.db)));
    expect(await sessionsOn(url)).toBe(pool.poolSize);
    await new Promise((r) => setTimeout(r, waitMs));
    return await sessionsOn(url);
  } finally {
    await opened.close();
  }
}

describe('the server connection pool', () => {
  it('keeps the connections of a burst open by default', async (ctx) => {
    ctx.skip(!serverUrl, skipReason);
    // Longer than pg-pool's own default of 10 s, after which it would have closed them.
    expect(await sessionsAfterBurst({ poolSize: 4 }, 11_000)).toBe(4);
  }, 30_000);

  it('closes unused connections after SVC_DB_POOL_IDLE_S', async (ctx) => {
    ctx.skip(!serverUrl, skipReason);
    expect(await sessionsAfterBurst({ poolSize: 4, poolIdleMs: 300 }, 1500)).toBe(0);
  });

  it('reads its size and idle time from the environment, with documented defaults', () => {
    const base = { SVC_DATA_DIR: '/tmp/svc-pool-config' };
    expect(loadConfig(base)).toMatchObject({ dbPoolSize: 10, dbPoolIdleMs: 0 });
    expect(loadConfig({ ...base, SVC_DB_POOL_SIZE: '25', SVC_DB_POOL_IDLE_S: '30' })).toMatchObject({ dbPoolSize: 25, dbPoolIdleMs: 30_000 });
    expect(() => loadConfig({ ...base, SVC_DB_POOL_SIZE: '0' })).toThrow(/SVC_DB_POOL_SIZE/);
  });
});
