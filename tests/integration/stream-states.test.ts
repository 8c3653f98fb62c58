/**
 * Folded stream states kept between commands (adapters/commands/stream-states.ts), on the
 * real event store of every engine: a load reads only what was appended since the kept
 * state, folds appends of another store (another process) in, and reads a purged or
 * re-created stream whole instead of folding onto what was deleted.
 */
import { describe, expect, it } from 'vitest';
import { createStreamStates } from '../../adapters/commands/stream-states.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import type { EventStore } from '../../adapters/event-store/port.ts';
import type { Event } from '../../domain/shared/messages.ts';
import { countedReads } from '../support/counted-store.ts';
import { engines, type TestEngine } from '../support/engines.ts';
import { eventStoreOn } from '../support/event-store-on.ts';

type Added = { type: 'number.added'; data: { n: number } };
const added = (n: number): Added => ({ type: 'number.added', data: { n } });

/** Sums the numbers added, and lists them, so a state folded twice or from the wrong place shows. */
const summing = {
  initialState: () => ({ sum: 0, seen: [] as number[] }),
  evolve: (state: { sum: number; seen: number[] }, event: Added) => ({ sum: state.sum + event.data.n, seen: [...state.seen, event.data.n] }),
};
const counting = {
  initialState: () => 0,
  evolve: (count: number, _event: Event) => count + 1,
};

describe.each(engines)('stream states on $name', (engine: TestEngine) => {
  const on = eventStoreOn(engine);

  it('reads only the events appended since the kept state, including another process’s', async () => {
    const spy = countedReads(on.store);
    const states = createStreamStates(spy.store);
    await on.store.append('n-1', [added(1), added(2), added(3)], 0);
    expect(await states.load('n-1', summing)).toEqual({ state: { sum: 6, seen: [1, 2, 3] }, version: 3 });
    expect(spy.eventsRead()).toBe(3);

    const otherProcess = new PostgresEventStore(on.db);
    await otherProcess.append('n-1', [added(10)], 3);
    await on.store.append('n-1', [added(20)], 4);
    expect(await states.load('n-1', summing)).toEqual({ state: { sum: 36, seen: [1, 2, 3, 10, 20] }, version: 5 });
    // The kept version's own event, then the two new ones: not the whole stream again.
    expect(spy.eventsRead()).toBe(3 + 3);

    expect(await states.load('n-1', summing)).toEqual({ state: { sum: 36, seen: [1, 2, 3, 10, 20] }, version: 5 });
    expect(spy.eventsRead()).toBe(3 + 3 + 1);
  });

  it('gives the version an append expects next', async () => {
    const states = createStreamStates(on.store);
    await on.store.append('n-2', [added(1)], 0);
    const { version } = await states.load('n-2', summing);
    await on.store.append('n-2', [added(2)], version);
    const next = await states.load('n-2', summing);
    await expect(on.store.append('n-2', [added(3)], next.version)).resolves.toMatchObject({ versions: { 'n-2': 3 } });
  });

  it('reads a purged stream, and one created again, whole instead of folding onto deleted events', async () => {
    const states = createStreamStates(on.store);
    await on.store.append('n-3', [added(1), added(2)], 0);
    expect((await states.load('n-3', summing)).state.sum).toBe(3);
    await on.store.purge({
      guard: { streamId: 'n-3', expectedVersion: 2 },
      streamIds: ['n-3'],
      record: [{ streamId: 'n-3-purged', events: [added(0)], expectedVersion: 0 }],
    });
    expect(await states.load('n-3', summing)).toEqual({ state: { sum: 0, seen: [] }, version: 0 });

    await on.store.append('n-3', [added(100), added(200), added(300)], 0);
    expect(await states.load('n-3', summing)).toEqual({ state: { sum: 600, seen: [100, 200, 300] }, version: 3 });
  });

  it('folds a stream with each decider on its own terms', async () => {
    const states = createStreamStates(on.store);
    await on.store.append('n-4', [added(5), added(6)], 0);
    expect((await states.load('n-4', summing)).state.sum).toBe(11);
    expect(await states.load('n-4', counting)).toEqual({ state: 2, version: 2 });
    await on.store.append('n-4', [added(7)], 2);
    expect(await states.load('n-4', summing)).toEqual({ state: { sum: 18, seen: [5, 6, 7] }, version: 3 });
  });

  it('keeps the newest state when a slower load of an older version finishes last', async () => {
    await on.store.append('n-5', [added(1)], 0);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let slow = true;
    const slowFirstRead = Object.assign(Object.create(on.store) as EventStore, {
      readStream: async (streamId: string) => {
        const events = await on.store.readStream(streamId);
        if (slow) {
          slow = false;
          await held;
        }
        return events;
      },
    });
    const spy = countedReads(slowFirstRead);
    const states = createStreamStates(spy.store);
    const older = states.load('n-5', summing);
    await on.store.append('n-5', [added(2)], 1);
    expect(await states.load('n-5', summing)).toEqual({ state: { sum: 3, seen: [1, 2] }, version: 2 });
    release();
    expect(await older).toEqual({ state: { sum: 1, seen: [1] }, version: 1 });
    const before = spy.eventsRead();
    expect(await states.load('n-5', summing)).toEqual({ state: { sum: 3, seen: [1, 2] }, version: 2 });
    // Only version 2's own event: the state kept is still the newer one.
    expect(spy.eventsRead() - before).toBe(1);
  });
});
