/**
 * The projector's batch as one pipelined transaction (adapters/db/pipelined.ts,
 * projections/projector.ts): projections run concurrently unless one names another in
 * `after`, a failure anywhere rolls the whole batch back with its checkpoint, and on a
 * server the statements issued together travel together. The round trips are counted by a
 * loopback TCP proxy in front of the server: a turn is the client writing after the
 * server last answered.
 */
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../adapters/db/connect.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import type { Database } from '../../projections/database.ts';
import { createProjector, type Projection, type TransactionRunner } from '../../projections/projector.ts';
import { runsProjection } from '../../projections/runs/runs.projection.ts';
import { runDecider } from '../../domain/runs/index.ts';
import { streams } from '../../domain/shared/streams.ts';
import { runbookDefinition, stepDefinition } from '../support/runbook-definitions.ts';
import { migrateToLatest } from '../../runtime/migrate.ts';
import { createServerDatabase, engines } from '../support/engines.ts';

/** A proxy to `target` that counts the client's turns: writes that follow an answer of the server. */
async function turnCountingProxy(target: URL): Promise<{ port: number; turns: () => number; reset: () => void; close: () => Promise<void> }> {
  let turns = 0;
  let answered = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (chunk) => {
      if (answered) turns++;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      answered = true;
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    turns: () => turns,
    reset: () => {
      turns = 0;
      answered = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const tenSelects = (trx: Kysely<Database>) => Promise.all(Array.from({ length: 10 }, (_, i) => sql<{ n: number }>`select ${i}::int as n`.execute(trx)));

describe.skipIf(!process.env.TEST_DATABASE_URL)('a pipelined transaction on a PostgreSQL server', () => {
  const closing: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close();
  });

  it('sends the statements issued together in one round trip, where a Kysely transaction takes one each', async () => {
    const database = await createServerDatabase();
    const proxy = await turnCountingProxy(new URL(database));
    const url = new URL(database);
    closing.push(proxy.close);
    url.host = `127.0.0.1:${proxy.port}`;
    const opened = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
    closing.push(opened.close);
    // Both pools connect first, so the handshakes are not counted.
    await tenSelects(opened.db);
    await opened.pipelinedTransaction(tenSelects);

    proxy.reset();
    const pipelined = await opened.pipelinedTransaction(tenSelects);
    const pipelinedTurns = proxy.turns();
    proxy.reset();
    await opened.db.transaction().execute(tenSelects);
    const serialTurns = proxy.turns();

    expect(pipelined.map((r) => r.rows[0]?.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // BEGIN with the ten, then COMMIT; the Kysely transaction waits for each of the twelve.
    expect(pipelinedTurns).toBeLessThanOrEqual(3);
    expect(serialTurns).toBeGreaterThanOrEqual(12);
  });

  it('refuses a transaction nested in the pipelined one, and rolls the batch back', async () => {
    const opened = await openDatabase({ databaseUrl: await createServerDatabase(), poolSize: 1 });
    closing.push(opened.close);
    await sql`create table nested_probe (n integer not null)`.execute(opened.db);
    const nested = opened.pipelinedTransaction(async (trx) => {
      await sql`insert into nested_probe (n) values (1)`.execute(trx);
      // A COMMIT sent from here would end the batch's transaction early.
      await trx.transaction().execute(async (inner) => sql`insert into nested_probe (n) values (2)`.execute(inner));
    });
    await expect(nested).rejects.toThrow('a pipelined transaction cannot open another');
    const rows = await sql<{ n: number }>`select count(*)::int as n from nested_probe`.execute(opened.db);
    expect(rows.rows[0]?.n).toBe(0);
  });

  it("writes a queued run's row, step rows and job together: the runs projection's tables wait for no one", async () => {
    const database = await createServerDatabase();
    const proxy = await turnCountingProxy(new URL(database));
    closing.push(proxy.close);
    const url = new URL(database);
    url.host = `127.0.0.1:${proxy.port}`;
    const opened = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
    closing.push(opened.close);
    await migrateToLatest(opened.db);
    const store = new PostgresEventStore(opened.db);
    const runId = randomUUID();
    const queued = runDecider.decide(
      {
        type: 'queue_run',
        runbook: runbookDefinition([stepDefinition('a'), stepDefinition('b')]),
        runId,
        caseId: null,
        triggerType: 'manual',
        trigger: {},
        inputs: {},
        dryRun: false,
        requestedBy: null,
        now: new Date().toISOString(),
      },
      runDecider.initialState(),
    );
    await store.append(streams.run(runId), queued, 0);
    let batchTurns = -1;
    const counted: TransactionRunner = async (body) => {
      await opened.pipelinedTransaction(tenSelects);
      proxy.reset();
      const value = await opened.pipelinedTransaction(body);
      batchTurns = proxy.turns();
      return value;
    };
    await createProjector(opened.db, store, [runsProjection], { checkpointName: 'runs-turns', transaction: counted }).catchUp();

    const job = await opened.db.selectFrom('jobs').select('key').where('key', '=', runId).executeTakeFirst();
    const steps = await opened.db.selectFrom('run_steps').select('step_id').where('run_id', '=', runId).execute();
    expect(job?.key).toBe(runId);
    expect(steps.map((r) => r.step_id).sort()).toEqual(['a', 'b']);
    // BEGIN with the checkpoint, the three inserts, COMMIT; one after the other they were five.
    expect(batchTurns).toBeLessThanOrEqual(3);
  });
});

describe.each(engines)('the projector batch on $name', (engine) => {
  const table = 'pipelined_projector_rows';
  const write = (name: string): Projection => ({
    name,
    apply: async (trx, events) => {
      await sql`insert into pipelined_projector_rows (name, position) select ${name}, unnest(${events.map((e) => e.globalPosition)}::bigint[])`.execute(trx);
    },
  });

  let opened: Awaited<ReturnType<typeof engine.open>>;
  let store: PostgresEventStore;
  beforeAll(async () => {
    opened = await engine.open();
    await sql.raw(`create table ${table} (name text not null, position bigint not null, seen integer)`).execute(opened.db);
    store = new PostgresEventStore(opened.db);
    await store.append(
      'pipelined-1',
      [
        { type: 'test.one', data: {} },
        { type: 'test.two', data: {} },
      ],
      'any',
    );
  }, 60_000);
  afterAll(async () => opened.close());
  beforeEach(async () => {
    await sql.raw(`truncate ${table}`).execute(opened.db);
  });

  it('runs a projection after those it names, which it sees, and the rest concurrently', async () => {
    const first = write('first');
    const reader: Projection = {
      name: 'reader',
      after: [first],
      apply: async (trx) => {
        await sql`insert into pipelined_projector_rows (name, position, seen)
                    select 'reader', 0, count(*)::int from pipelined_projector_rows where name = 'first'`.execute(trx);
      },
    };
    const projector = createProjector(opened.db, store, [first, write('other'), reader], {
      checkpointName: 'after',
      transaction: opened.pipelinedTransaction,
    });
    await projector.catchUp();
    const rows = await sql<{ name: string; seen: number | null }>`select name, seen from pipelined_projector_rows order by name, position`.execute(opened.db);
    expect(rows.rows.filter((r) => r.name === 'reader')).toEqual([{ name: 'reader', seen: 2 }]);
    expect(rows.rows.filter((r) => r.name !== 'reader')).toHaveLength(4);
  });

  it('rolls the whole batch back when one projection fails, and waits for the others first', async () => {
    let slowFinished = false;
    const slow: Projection = {
      name: 'slow',
      apply: async (trx, events) => {
        // Still busy when the other fails, so its write comes after the failure is known.
        await new Promise((resolve) => setTimeout(resolve, 100));
        await write('slow')
          .apply(trx, events)
          .catch(() => {});
        slowFinished = true;
      },
    };
    const failing: Projection = {
      name: 'failing',
      apply: async (trx) => {
        await sql`select 1 / 0`.execute(trx);
      },
    };
    const projector = createProjector(opened.db, store, [slow, write('fast'), failing], {
      checkpointName: 'failing',
      transaction: opened.pipelinedTransaction,
    });
    await expect(projector.catchUp()).rejects.toThrow(/division by zero/);
    expect(slowFinished).toBe(true);
    const rows = await sql<{ n: number }>`select count(*)::int as n from pipelined_projector_rows`.execute(opened.db);
    expect(rows.rows[0]?.n).toBe(0);
    const checkpoint = await opened.db.selectFrom('projection_checkpoints').select('position').where('name', '=', 'failing').executeTakeFirst();
    expect(Number(checkpoint?.position ?? 0)).toBe(0);
  });

  it('refuses a projection listed before one it must run after', async () => {
    const first = write('first');
    const reader: Projection = { ...write('reader'), after: [first] };
    expect(() => createProjector(opened.db, store, [reader, first])).toThrow('projection reader runs after first, which is listed after it');
  });
});
