/**
 * Event store contract suite: every EventStore implementation passes it, on every engine.
 * Postgres runs on PGlite always and on a server when TEST_DATABASE_URL is set; the
 * in-memory store of tests/support always. KurrentDB
 * runs at KURRENTDB_CONNECTION_STRING when it is set, else in a container this file starts
 * (@testcontainers/kurrentdb) when a Docker engine answers, else it is skipped with the
 * reason printed. Stream names carry a random prefix, so a long-lived server can be reused.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asJsonb } from '../../adapters/event-store/jsonb.ts';
import { KurrentDbEventStore } from '../../adapters/kurrentdb/store.ts';
import { APPEND_LOCK_KEY, PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { StreamVersionConflict, type EventStore } from '../../adapters/event-store/port.ts';
import { createSubscription, subscribeToAll } from '../../projections/subscription.ts';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import { engines, type TestEngine } from '../support/engines.ts';
import { MemoryEventStore } from '../support/memory-event-store.ts';
import { recording } from '../support/recording.ts';
import { KURRENTDB_IMAGE } from '../support/kurrentdb-image.ts';

const ev = (n: number) => ({ type: 'thing.happened', data: { n } });

/** A store under test: `another` opens a second store over the same events (a second process). */
type OpenedStore = { store: EventStore; another: () => EventStore; close: () => Promise<void> };
type StoreVariant = { name: string; purges: boolean; open: () => Promise<OpenedStore> };

const postgresVariants: StoreVariant[] = engines.map((engine) => ({
  name: engine.name,
  purges: true,
  open: async () => {
    const opened = await engine.open();
    return { store: new PostgresEventStore(opened.db), another: () => new PostgresEventStore(opened.db), close: () => opened.close() };
  },
}));

/** Whether a Docker engine answers within 3 s (the docker CLI may be installed without one). */
function dockerAnswers(): Promise<boolean> {
  return new Promise((resolve) => execFile('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 3000 }, (error) => resolve(error === null)));
}

/** Starts a KurrentDB container and answers where it listens. */
type StartContainer = () => Promise<{ connectionString: string; stop: () => Promise<unknown> }>;

/**
 * KurrentDB at KURRENTDB_CONNECTION_STRING, or in a container; a string says why neither
 * is there. @testcontainers/kurrentdb is loaded only when a Docker engine answers: its
 * testcontainers 12 needs Node >= 22.22 and fails to load on older Node.
 */
async function kurrentDbVariant(): Promise<StoreVariant | string> {
  const given = process.env.KURRENTDB_CONNECTION_STRING;
  let startContainer: StartContainer | null = null;
  if (!given) {
    if (!(await dockerAnswers())) return 'KURRENTDB_CONNECTION_STRING is not set and no Docker engine answers `docker info`';
    try {
      const { KurrentDbContainer } = await import('@testcontainers/kurrentdb');
      startContainer = async () => {
        const started = await new KurrentDbContainer(KURRENTDB_IMAGE).start();
        return { connectionString: started.getConnectionString(), stop: () => started.stop() };
      };
    } catch (error) {
      return `KURRENTDB_CONNECTION_STRING is not set and @testcontainers/kurrentdb does not load on Node ${process.version} (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  return {
    name: 'kurrentdb',
    // Its store refuses purges (adapters/kurrentdb/store.ts): retention needs Postgres.
    purges: false,
    open: async () => {
      const container = startContainer ? await startContainer() : null;
      const connectionString = given ?? (container?.connectionString as string);
      const stores: KurrentDbEventStore[] = [];
      const another = () => {
        const store = new KurrentDbEventStore(connectionString);
        stores.push(store);
        return store;
      };
      return {
        store: another(),
        another,
        close: async () => {
          for (const store of stores) await store.close();
          await container?.stop();
        },
      };
    },
  };
}

/** The in-memory store the tests of the middle floor run on (tests/support/memory-event-store.ts). */
const memoryVariant: StoreVariant = {
  name: 'memory',
  purges: true,
  open: async () => {
    const store = new MemoryEventStore();
    return { store, another: () => store.another(), close: async () => {} };
  },
};

const kurrentdb = await kurrentDbVariant();
if (typeof kurrentdb === 'string') console.warn(`event store contract on kurrentdb skipped: ${kurrentdb}`);
const variants = [...postgresVariants, memoryVariant, ...(typeof kurrentdb === 'string' ? [] : [kurrentdb])];

/** Opens `variant` for the enclosing describe; `s(name)` is a stream id unique to this run. */
function useVariant(variant: StoreVariant) {
  const prefix = `t${randomBytes(4).toString('hex')}-`;
  const ctx = { s: (name: string) => `${prefix}${name}` } as { opened: OpenedStore; store: EventStore; s: (name: string) => string };
  beforeAll(async () => {
    ctx.opened = await variant.open();
    ctx.store = ctx.opened.store;
  }, 300_000);
  afterAll(async () => ctx.opened?.close());
  return ctx;
}

/** Opens a fresh database on `engine` for the enclosing describe, with a store over it. */
function useStore(engine: TestEngine) {
  const ctx = {} as { opened: Awaited<ReturnType<TestEngine['open']>>; store: EventStore };
  beforeAll(async () => {
    ctx.opened = await engine.open();
    ctx.store = new PostgresEventStore(ctx.opened.db);
  });
  afterAll(async () => ctx.opened.close());
  return ctx;
}

if (typeof kurrentdb === 'string') {
  describe.skip(`event store on kurrentdb (skipped: ${kurrentdb})`, () => {
    it('passes the contract suite', () => {});
  });
}

describe.each(variants)('event store on $name', (variant) => {
  const ctx = useVariant(variant);
  const { s } = ctx;

  it('appends to a new stream and reads it back in version order', async () => {
    const result = await ctx.store.append(s('new'), [ev(1), ev(2), ev(3)], 0);
    expect(result.versions[s('new')]).toBe(3);
    const events = await ctx.store.readStream(s('new'));
    expect(events.map((e) => [e.streamVersion, e.data.n])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(events[2]?.globalPosition).toBe(result.lastPosition);
    expect(events[0]!.globalPosition).toBeLessThan(events[1]!.globalPosition);
  });

  it('reads a stream from a version on: the tail with that version first, nothing past the end or of an unknown stream', async () => {
    await ctx.store.append(s('from'), [ev(1), ev(2), ev(3), ev(4)], 0);
    const whole = await ctx.store.readStream(s('from'));
    expect(await ctx.store.readStreamFrom(s('from'), 1)).toEqual(whole);
    expect((await ctx.store.readStreamFrom(s('from'), 3)).map((e) => [e.streamVersion, e.data.n])).toEqual([
      [3, 3],
      [4, 4],
    ]);
    expect(await ctx.store.readStreamFrom(s('from'), 3)).toEqual(whole.slice(2));
    expect(await ctx.store.readStreamFrom(s('from'), 5)).toEqual([]);
    expect(await ctx.store.readStreamFrom(s('from-unknown'), 1)).toEqual([]);
  });

  it('answers reads asked for at once each as if asked alone: one stream twice, from different versions, and an unknown one', async () => {
    await ctx.store.append(s('at-once-a'), [ev(1), ev(2), ev(3)], 0);
    await ctx.store.append(s('at-once-b'), [ev(4)], 0);
    const alone = [
      await ctx.store.readStream(s('at-once-a')),
      await ctx.store.readStreamFrom(s('at-once-a'), 3),
      await ctx.store.readStream(s('at-once-b')),
      await ctx.store.readStream(s('at-once-none')),
      await ctx.store.readStreamFrom(s('at-once-b'), 2),
    ];
    const together = await Promise.all([
      ctx.store.readStream(s('at-once-a')),
      ctx.store.readStreamFrom(s('at-once-a'), 3),
      ctx.store.readStream(s('at-once-b')),
      ctx.store.readStream(s('at-once-none')),
      ctx.store.readStreamFrom(s('at-once-b'), 2),
    ]);
    expect(together).toEqual(alone);
    expect(together.map((events) => events.map((e) => e.data.n))).toEqual([[1, 2, 3], [3], [4], [], []]);
  });

  it('reads back data and metadata as a jsonb column gives them: same values, jsonb key order', async () => {
    const data = { zeta: 1, b: { y: [1, { d: null, c: 'x' }], x: true }, a: 'é', keys: { é: 1, ab: 2, z: 3, '😀': 4, ﬀ: 5, B: 6, aé: 7, zz: 8 } };
    const metadata = { correlation_id: 'c-1', actor: { kind: 'user' as const, id: 'u-1', email: 'u@example.com' } };
    await ctx.store.append(s('json'), [{ type: 'thing.shaped', data, metadata }], 0);
    const [read] = await ctx.store.readStream(s('json'));
    expect(JSON.stringify(read?.data)).toBe(JSON.stringify(asJsonb(data)));
    expect(JSON.stringify(read?.metadata)).toBe(JSON.stringify(asJsonb(metadata)));
    expect(Date.parse(read?.recordedAt ?? '')).not.toBeNaN();
  });

  it('reads an unknown stream as empty', async () => {
    expect(await ctx.store.readStream(s('missing'))).toEqual([]);
  });

  it('refuses a wrong expected version and writes nothing', async () => {
    await ctx.store.append(s('ver'), [ev(1)], 0);
    await expect(ctx.store.append(s('ver'), [ev(2)], 0)).rejects.toBeInstanceOf(StreamVersionConflict);
    await expect(ctx.store.append(s('ver'), [ev(2)], 5)).rejects.toMatchObject({ code: 'stream_version_conflict', status: 409, params: { actual_version: 1 } });
    expect((await ctx.store.readStream(s('ver'))).length).toBe(1);
    await ctx.store.append(s('ver'), [ev(2)], 'any');
    expect((await ctx.store.readStream(s('ver'))).length).toBe(2);
  });

  it('gives exactly one success and one conflict to two appends with the same expected version', async () => {
    for (let round = 0; round < 10; round++) {
      const stream = s(`race-${round}`);
      const results = await Promise.allSettled([ctx.store.append(stream, [ev(1)], 0), ctx.store.append(stream, [ev(2)], 0)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect(rejected[0]?.reason).toBeInstanceOf(StreamVersionConflict);
      expect(await ctx.store.readStream(stream)).toHaveLength(1);
    }
  });

  it('appends to several streams atomically: one conflict writes none of them', async () => {
    await ctx.store.append(s('multi-b'), [ev(1)], 0);
    await expect(
      ctx.store.appendMany([
        { streamId: s('multi-a'), events: [ev(1)], expectedVersion: 0 },
        { streamId: s('multi-b'), events: [ev(2)], expectedVersion: 0 },
      ]),
    ).rejects.toMatchObject({ code: 'stream_version_conflict', params: { stream_id: s('multi-b'), actual_version: 1 } });
    expect(await ctx.store.readStream(s('multi-a'))).toEqual([]);
    const ok = await ctx.store.appendMany([
      { streamId: s('multi-a'), events: [ev(1)], expectedVersion: 0 },
      { streamId: s('multi-b'), events: [ev(2)], expectedVersion: 1 },
    ]);
    expect(ok.versions).toEqual({ [s('multi-a')]: 1, [s('multi-b')]: 2 });
    const written = [...(await ctx.store.readStream(s('multi-a'))), ...(await ctx.store.readStream(s('multi-b')))];
    expect(Math.max(...written.map((e) => e.globalPosition))).toBe(ok.lastPosition);
  });

  it('keeps a conflicting request from failing the others committed in the same batch', async () => {
    await ctx.store.append(s('batch-x'), [ev(1)], 0);
    const results = await Promise.allSettled([
      ctx.store.append(s('batch-y'), [ev(1)], 0),
      ctx.store.append(s('batch-x'), [ev(2)], 0),
      ctx.store.append(s('batch-z'), [ev(1)], 0),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('wakes onAppended listeners with the position each append reached', async () => {
    const woken: number[] = [];
    const off = ctx.store.onAppended((p) => woken.push(p));
    const first = await ctx.store.append(s('wake'), [ev(1)], 0);
    const second = await ctx.store.append(s('wake'), [ev(2)], 1);
    off();
    await ctx.store.append(s('wake'), [ev(3)], 2);
    expect(woken).toEqual([first.lastPosition, second.lastPosition]);
  });

  it('reads all events after a checkpoint in global order, with a limit', async () => {
    const head = await ctx.store.headPosition();
    await ctx.store.append(s('all-1'), [ev(1), ev(2)], 0);
    await ctx.store.append(s('all-2'), [ev(3)], 0);
    const after = await ctx.store.readAll(head, 10);
    expect(after.map((e) => e.data.n)).toEqual([1, 2, 3]);
    expect(await ctx.store.readAll(head, 2)).toHaveLength(2);
    expect(await ctx.store.readAll(after[0]!.globalPosition, 10)).toEqual(after.slice(1));
    expect(await ctx.store.headPosition()).toBe(after[2]?.globalPosition);
  });

  it('reads its own appends back exactly as another reader of the same events does, alone or interleaved with another writer', async () => {
    const other = ctx.opened.another();
    const shaped = { zeta: 1, b: { y: [1, { d: null, c: 'x' }], x: true }, a: 'é', n: 1.5e-7 };
    const alone = await ctx.store.headPosition();
    await ctx.store.append(s('own-1'), [{ type: 'thing.shaped', data: shaped, metadata: { correlation_id: 'c-1' } }, ev(2)], 0);
    await ctx.store.append(s('own-2'), [ev(3)], 0);
    const aloneFromTable = await ctx.opened.another().readAll(alone, 10);
    expect(aloneFromTable).toHaveLength(3);
    expect(JSON.stringify(await ctx.store.readAll(alone, 10))).toBe(JSON.stringify(aloneFromTable));
    // Read again from the same position (a batch that failed to apply): the same events.
    expect(JSON.stringify(await ctx.store.readAll(alone, 10))).toBe(JSON.stringify(aloneFromTable));

    const interleaved = await ctx.store.headPosition();
    await ctx.store.append(s('own-1'), [ev(4)], 2);
    await other.append(s('own-3'), [ev(5)], 0);
    await ctx.store.append(s('own-1'), [{ type: 'thing.shaped', data: shaped }], 3);
    const fromTable = await ctx.opened.another().readAll(interleaved, 10);
    expect(fromTable.map((e) => e.streamId)).toEqual([s('own-1'), s('own-3'), s('own-1')]);
    expect(JSON.stringify(await ctx.store.readAll(interleaved, 10))).toBe(JSON.stringify(fromTable));
  });

  // Retention: the Postgres store deletes and records in one transaction; KurrentDB cannot, so its store refuses.
  if (variant.purges) {
    it('purges whole streams and appends the record in one step, counting what it deleted', async () => {
      await ctx.store.append(s('purge-case'), [ev(1), ev(2)], 0);
      await ctx.store.append(s('purge-task'), [ev(3)], 0);
      await ctx.store.append(s('purge-keep'), [ev(4)], 0);
      const woken: number[] = [];
      const off = ctx.store.onAppended((p) => woken.push(p));
      const result = await ctx.store.purge({
        guard: { streamId: s('purge-case'), expectedVersion: 2 },
        streamIds: [s('purge-case'), s('purge-task')],
        record: [{ streamId: s('purge-record'), events: [ev(5)], expectedVersion: 0 }],
      });
      off();
      expect(result.eventsDeleted).toBe(3);
      expect(result.versions).toEqual({ [s('purge-record')]: 1 });
      expect(woken).toEqual([result.lastPosition]);
      expect(await ctx.store.readStream(s('purge-case'))).toEqual([]);
      expect(await ctx.store.readStream(s('purge-task'))).toEqual([]);
      expect((await ctx.store.readStream(s('purge-keep'))).map((e) => e.data.n)).toEqual([4]);
      expect((await ctx.store.readStream(s('purge-record')))[0]?.globalPosition).toBe(result.lastPosition);
      expect(await ctx.store.headPosition()).toBe(result.lastPosition);
    });

    it('refuses a purge whose guard stream moved, and deletes and appends nothing', async () => {
      await ctx.store.append(s('purge-moved'), [ev(1), ev(2)], 0);
      await expect(
        ctx.store.purge({
          guard: { streamId: s('purge-moved'), expectedVersion: 1 },
          streamIds: [s('purge-moved')],
          record: [{ streamId: s('purge-moved-record'), events: [ev(3)], expectedVersion: 0 }],
        }),
      ).rejects.toBeInstanceOf(StreamVersionConflict);
      await ctx.store.append(s('purge-twice-record'), [ev(1)], 0);
      await expect(
        ctx.store.purge({
          guard: { streamId: s('purge-moved'), expectedVersion: 2 },
          streamIds: [s('purge-moved')],
          record: [{ streamId: s('purge-twice-record'), events: [ev(3)], expectedVersion: 0 }],
        }),
      ).rejects.toBeInstanceOf(StreamVersionConflict);
      expect(await ctx.store.readStream(s('purge-moved'))).toHaveLength(2);
      expect(await ctx.store.readStream(s('purge-moved-record'))).toEqual([]);
    });
  } else {
    it('refuses every purge, deleting and appending nothing', async () => {
      await ctx.store.append(s('purge-refused'), [ev(1)], 0);
      await expect(
        ctx.store.purge({
          guard: { streamId: s('purge-refused'), expectedVersion: 1 },
          streamIds: [s('purge-refused')],
          record: [{ streamId: s('purge-refused-record'), events: [ev(2)], expectedVersion: 0 }],
        }),
      ).rejects.toThrow('retention purge needs the postgres event store');
      expect(await ctx.store.readStream(s('purge-refused'))).toHaveLength(1);
      expect(await ctx.store.readStream(s('purge-refused-record'))).toEqual([]);
    });
  }

  it('delivers every event exactly once, in order, to a catch-up subscription under concurrent appends', async () => {
    const start = await ctx.store.headPosition();
    const seen: RecordedEvent[] = [];
    const sub = subscribeToAll(ctx.store, { fromPosition: start, pollIntervalMs: 5, batchSize: 7, handle: async (e) => void seen.push(...e) });
    const second = ctx.opened.another();
    const writers = Array.from({ length: 120 }, (_, i) => (i % 2 ? ctx.store : second).append(s(`sub-${i % 13}`), [ev(i), ev(i + 1000)], 'any'));
    await Promise.all(writers);
    const head = await ctx.store.headPosition();
    await expect.poll(() => sub.position(), { timeout: 10_000 }).toBe(head);
    await sub.stop();
    const positions = seen.map((e) => e.globalPosition);
    expect(new Set(positions).size).toBe(240);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('resumes a subscription from its stored checkpoint: nothing twice, nothing skipped', async () => {
    const start = await ctx.store.headPosition();
    for (let i = 0; i < 30; i++) await ctx.store.append(s(`resume-${i % 4}`), [ev(i)], 'any');
    const head = await ctx.store.headPosition();
    const seen: number[] = [];
    let checkpoint = start;
    // The first subscriber stores its checkpoint after each batch and stops after the second.
    const first = createSubscription(ctx.store, {
      fromPosition: start,
      batchSize: 4,
      handle: async (events) => {
        seen.push(...events.map((e) => e.globalPosition));
        checkpoint = events.at(-1)!.globalPosition;
      },
    });
    await first.poll();
    await first.poll();
    expect(checkpoint).toBe(first.position());
    const second = subscribeToAll(ctx.store, {
      fromPosition: checkpoint,
      batchSize: 4,
      pollIntervalMs: 5,
      handle: async (events) => void seen.push(...events.map((e) => e.globalPosition)),
    });
    await expect.poll(() => second.position(), { timeout: 10_000 }).toBe(head);
    await second.stop();
    const all = (await ctx.store.readAll(start, 1000)).map((e) => e.globalPosition);
    expect(seen).toEqual(all);
  });

  it('reads on from the checkpoint a handler reports when another reader of it moved it further', async () => {
    const start = await ctx.store.headPosition();
    for (let i = 0; i < 10; i++) await ctx.store.append(s('jump'), [ev(i)], 'any');
    const positions = (await ctx.store.readAll(start, 100)).map((e) => e.globalPosition);
    const batches: number[][] = [];
    const sub = createSubscription(ctx.store, {
      fromPosition: start,
      batchSize: 3,
      // The first batch finds the shared checkpoint already at the sixth event: it stores nothing.
      handle: async (events) => {
        batches.push(events.map((e) => e.globalPosition));
        return batches.length === 1 ? positions[5] : undefined;
      },
    });
    expect(await sub.poll()).toBe(true);
    expect(sub.position()).toBe(positions[5]);
    await sub.poll();
    expect(batches[1]).toEqual(positions.slice(6, 9));
  });
});

/** Needs two real connections at once, so only a PostgreSQL server can show it (PGlite has one). */
describe.each(engines)('postgres event store reads on $name', (engine) => {
  const ctx = useStore(engine);

  it('reads the streams asked for in one tick with one statement', async () => {
    const statements: string[] = [];
    const store = new PostgresEventStore(recording(ctx.opened.db, statements));
    await ctx.store.append('tick-a', [ev(1), ev(2)], 0);
    await ctx.store.append('tick-b', [ev(3)], 0);
    const reads = await Promise.all([store.readStream('tick-a'), store.readStreamFrom('tick-a', 2), store.readStream('tick-b')]);
    expect(reads.map((events) => events.map((e) => e.data.n))).toEqual([[1, 2], [2], [3]]);
    expect(statements).toHaveLength(1);
  });

  it('writes a batch of appends in one statement: a conflict stays its own, and later requests see the versions earlier ones wrote', async () => {
    const statements: string[] = [];
    const store = new PostgresEventStore(recording(ctx.opened.db, statements));
    await store.append('batch-a', [ev(1)], 0);
    statements.length = 0;
    const [moved, stale, several] = await Promise.allSettled([
      store.append('batch-a', [ev(2)], 1),
      store.append('batch-a', [ev(3)], 1),
      store.appendMany([
        { streamId: 'batch-b', events: [ev(4), ev(5)], expectedVersion: 0 },
        { streamId: 'batch-a', events: [ev(6)], expectedVersion: 'any' },
      ]),
    ]);
    expect(statements).toHaveLength(1);
    expect(moved).toMatchObject({ status: 'fulfilled', value: { versions: { 'batch-a': 2 } } });
    expect(stale.status === 'rejected' && stale.reason).toMatchObject({ params: { stream_id: 'batch-a', expected_version: 1, actual_version: 2 } });
    expect(several).toMatchObject({ status: 'fulfilled', value: { versions: { 'batch-b': 2, 'batch-a': 3 } } });
    const a = await store.readStream('batch-a');
    const b = await store.readStream('batch-b');
    expect(a.map((e) => [e.streamVersion, e.data.n])).toEqual([
      [1, 1],
      [2, 2],
      [3, 6],
    ]);
    expect(b.map((e) => [e.streamVersion, e.data.n])).toEqual([
      [1, 4],
      [2, 5],
    ]);
    expect(several.status === 'fulfilled' && several.value.lastPosition).toBe(Math.max(...[...a, ...b].map((e) => e.globalPosition)));
  });

  it('writes a batch whose requests touch distinct streams in one statement: versions checked, positions in request order', async () => {
    const statements: string[] = [];
    const store = new PostgresEventStore(recording(ctx.opened.db, statements));
    await store.append('set-old', [ev(1), ev(2)], 0);
    await store.append('set-moved', [ev(1)], 0);
    statements.length = 0;
    const results = await Promise.allSettled([
      store.append('set-new', [ev(10), ev(11)], 0),
      store.append('set-moved', [ev(12)], 0),
      store.appendMany([
        { streamId: 'set-old', events: [ev(13)], expectedVersion: 2 },
        { streamId: 'set-any', events: [ev(14), ev(15)], expectedVersion: 'any' },
      ]),
      store.appendMany([
        { streamId: 'set-fresh', events: [ev(16)], expectedVersion: 0 },
        { streamId: 'set-wrong', events: [ev(17)], expectedVersion: 3 },
      ]),
      store.append('set-last', [ev(18)], 0),
    ]);
    expect(statements).toHaveLength(1);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    const [, moved, , wrong] = results;
    expect(moved?.status === 'rejected' && moved.reason).toMatchObject({ params: { stream_id: 'set-moved', expected_version: 0, actual_version: 1 } });
    expect(wrong?.status === 'rejected' && wrong.reason).toMatchObject({ params: { stream_id: 'set-wrong', expected_version: 3, actual_version: 0 } });
    expect(results[2]).toMatchObject({ status: 'fulfilled', value: { versions: { 'set-old': 3, 'set-any': 2 } } });
    // A rejected request writes nothing, not even to its streams that would have passed.
    expect(await store.readStream('set-fresh')).toEqual([]);
    expect((await store.readStream('set-moved')).map((e) => e.data.n)).toEqual([1]);
    const written = await store.readAll(0, 1000);
    const batch = written.filter((e) => (e.data.n as number) >= 10);
    expect(batch.map((e) => [e.streamId, e.streamVersion, e.data.n])).toEqual([
      ['set-new', 1, 10],
      ['set-new', 2, 11],
      ['set-old', 3, 13],
      ['set-any', 1, 14],
      ['set-any', 2, 15],
      ['set-last', 1, 18],
    ]);
    const positions = batch.map((e) => e.globalPosition);
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
    expect(results[4]).toMatchObject({ status: 'fulfilled', value: { lastPosition: positions.at(-1) } });
  });
});

describe.each(engines.filter((e) => e.name === 'postgres'))('event store ordering on $name', (engine) => {
  const ctx = useStore(engine);

  it('never lets a reader pass an append that commits late', async () => {
    const client = new pg.Client({ connectionString: ctx.opened.url! });
    await client.connect();
    try {
      const before = await ctx.store.headPosition();
      // A slow appender following the store's protocol: holds the append lock, inserts, does not commit yet.
      await client.query('begin');
      await client.query('select pg_advisory_xact_lock($1)', [APPEND_LOCK_KEY.toString()]);
      await client.query(`insert into events (stream_id, stream_version, type, data) values ('s-late', 1, 'late', '{}')`);
      const fast = ctx.store.append('s-fast', [ev(1)], 0);
      await new Promise((r) => setTimeout(r, 200));
      expect(await ctx.store.readAll(before, 10)).toEqual([]);
      await client.query('commit');
      await fast;
      const seen = await ctx.store.readAll(before, 10);
      expect(seen.map((e) => e.streamId)).toEqual(['s-late', 's-fast']);
    } finally {
      await client.end();
    }
  });

  it('reads stream versions after the append lock is granted, so it sees what the appender it waited for wrote', async () => {
    const client = new pg.Client({ connectionString: ctx.opened.url! });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('select pg_advisory_xact_lock($1)', [APPEND_LOCK_KEY.toString()]);
      await client.query(`insert into events (stream_id, stream_version, type, data) values ('s-race', 1, 'first', '{}')`);
      // Both wait on the lock; a version read with a snapshot older than the grant would
      // see version 0 and fail on the unique index instead of answering a conflict.
      const stale = ctx.store.append('s-race', [ev(1)], 0);
      const current = ctx.store.append('s-race-other', [ev(2)], 0);
      await new Promise((r) => setTimeout(r, 200));
      await client.query('commit');
      await expect(stale).rejects.toBeInstanceOf(StreamVersionConflict);
      await current;
      await ctx.store.append('s-race', [ev(3)], 1);
      expect((await ctx.store.readStream('s-race')).map((e) => e.type)).toEqual(['first', ev(3).type]);
    } finally {
      await client.end();
    }
  });
});
