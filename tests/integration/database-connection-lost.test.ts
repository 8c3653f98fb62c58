/**
 * The service outlives the PostgreSQL server ending its connections (a server restart, an
 * administrator's `pg_terminate_backend`, `idle_session_timeout`): a pooled connection
 * that dies while idle is dropped and counted as `database.connection_lost` in
 * `GET /diagnostics`, and the next request is served on a new one. Before, the pool's
 * unhandled 'error' event ended the process. PostgreSQL only: PGlite has no connections.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseNameOf, serverAdminQuery } from '../support/engines.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

/**
 * Ends every session on the database of `url` but the caller's own; answers how many it ended.
 * Waits up to 5 s for each backend to exit: without a timeout `pg_terminate_backend` only
 * signals, and a request sent meanwhile could land on a backend that is about to die. Then
 * lets one event-loop turn pass, so the pool has read each ended connection's notice (sent
 * before the backend exited, so before this answer) before the test's next request.
 */
async function terminateSessions(url: string): Promise<number> {
  const ended = await serverAdminQuery('select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [
    databaseNameOf(url),
  ]);
  await new Promise(setImmediate);
  return ended.rowCount;
}

describe('a PostgreSQL server ending the service connections', () => {
  let svc: InProcessService | undefined;
  beforeAll(async () => {
    if (serverUrl) svc = await startInProcessService({ server: true });
  }, 60_000);
  afterAll(async () => svc?.close());

  it('costs no request: lost idle connections are counted and replaced', async (ctx) => {
    ctx.skip(!svc, 'TEST_DATABASE_URL is not set: PGlite has no connections a server could end');
    const service = svc as InProcessService;
    expect((await callAs(service, root, 'GET', '/cases')).status).toBe(200);
    expect(await terminateSessions(String(service.env.DATABASE_URL))).toBeGreaterThan(0);

    await expect
      .poll(async () => (await callAs(service, root, 'GET', '/diagnostics')).body.errors, { timeout: 10_000 })
      .toContainEqual(expect.objectContaining({ type: 'database.connection_lost' }));
    expect((await callAs(service, root, 'GET', '/cases')).status).toBe(200);
    const lost = service.errors().filter((line) => line.msg === 'the database server ended a connection');
    expect(lost.length).toBeGreaterThan(0);
    expect(JSON.stringify(lost)).not.toContain(String(service.env.DATABASE_URL));
  });

  it('fails only the query in flight when its connection ends mid-query, and serves the next', async (ctx) => {
    ctx.skip(!svc, 'TEST_DATABASE_URL is not set: PGlite has no connections a server could end');
    const service = svc as InProcessService;
    const before = service.errors().length;
    const sleeping = sql`select pg_sleep(5)`.execute(service.service.opened.db);
    const outcome = sleeping.then(
      () => 'finished',
      (error: Error) => error.message,
    );
    // Until the sleep is running: then its connection is checked out, with no idle listener on it.
    await expect
      .poll(async () => {
        const { rows } = await serverAdminQuery<{ n: number }>("select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep(5)%'");
        return rows[0]?.n;
      })
      .toBe(1);
    expect(await terminateSessions(String(service.env.DATABASE_URL))).toBeGreaterThan(0);
    expect(await outcome).toMatch(/terminat/);
    expect((await callAs(service, root, 'GET', '/cases')).status).toBe(200);
    expect(
      service
        .errors()
        .slice(before)
        .some((line) => line.msg === 'the database server ended a connection'),
    ).toBe(true);
  });
});
