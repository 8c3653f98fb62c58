/**
 * The embedded engine's queue tables are vacuumed (runtime/embedded-vacuum.ts): PGlite runs
 * no autovacuum, so without it the deleted `jobs` rows of every finished run stay behind
 * and every claim walks their index entries. On PGlite only: a server vacuums itself.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessService, type InProcessService } from '../support/in-process-service.ts';

type TableStats = { n_dead_tup: number; vacuum_count: number };

describe('embedded vacuum on pglite', () => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService({ server: false }, { extraEnv: { SVC_EMBEDDED_VACUUM_INTERVAL_S: '1' } });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('vacuums the jobs table on its interval, leaving no dead rows of deleted jobs', async () => {
    const { db, engine } = svc.service.opened;
    expect(engine).toBe('pglite');
    const stats = async () =>
      (await sql<TableStats>`select n_dead_tup::int, vacuum_count::int from pg_stat_user_tables where relname = 'jobs'`.execute(db)).rows[0] as TableStats;
    const before = (await stats()).vacuum_count;
    for (let i = 0; i < 200; i++) {
      await sql`insert into jobs (kind, key, due_at) values ('run', ${`vacuum-${i}`}, now())`.execute(db);
      await sql`delete from jobs where kind = 'run' and key = ${`vacuum-${i}`}`.execute(db);
    }
    await expect.poll(async () => (await stats()).vacuum_count, { timeout: 10_000, interval: 200 }).toBeGreaterThan(before);
    await expect.poll(async () => (await stats()).n_dead_tup, { timeout: 10_000, interval: 200 }).toBe(0);
  });
});
