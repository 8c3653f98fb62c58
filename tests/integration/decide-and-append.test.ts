/**
 * Load-decide-append against a state the caller already holds (adapters/commands/
 * aggregate.ts `known`), on the real event store of every engine: a command sequence on
 * one stream reads it once, and a known state the stream has moved past is a conflict
 * decided again against the fresh stream, so no event is lost. A batch over many streams
 * (`decideAndAppendBatch`, the bulk routes) appends them together, fails a refused
 * decision alone, and decides the whole batch again when any stream moved.
 */
import { describe, expect, it } from 'vitest';
import { decideAndAppend, decideAndAppendBatch } from '../../adapters/commands/aggregate.ts';
import type { EventStore } from '../../adapters/event-store/port.ts';
import { unprocessable } from '../../domain/shared/errors.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import type { Decider } from '../../domain/shared/messages.ts';
import { countedReads } from '../support/counted-store.ts';
import { engines, type TestEngine } from '../support/engines.ts';
import { eventStoreOn } from '../support/event-store-on.ts';

type Added = { type: 'number.added'; data: { n: number } };
type Sum = { sum: number; seen: number[] };

/** Adds a number unless the sum has passed `limit`: a decision that depends on the state. */
const summing: Decider<{ n: number; limit: number }, Added, Sum> = {
  initialState: () => ({ sum: 0, seen: [] }),
  evolve: (state, event) => ({ sum: state.sum + event.data.n, seen: [...state.seen, event.data.n] }),
  decide: (command, state) => {
    if (command.n < 0) throw unprocessable('negative', 'only positive numbers add up here', { n: command.n });
    return state.sum > command.limit ? [] : [{ type: 'number.added', data: { n: command.n } }];
  },
};
const system = { actor: { id: null, email: null, kind: 'system' as const } };

describe.each(engines)('decide and append on $name', (engine: TestEngine) => {
  const on = eventStoreOn(engine);

  it('decides a sequence of commands against the state the previous one left, reading the stream once', async () => {
    const spy = countedReads(on.store);
    const first = await decideAndAppend(spy.store, 'sum-1', summing, () => ({ n: 1, limit: 100 }), system);
    expect(first).toMatchObject({ state: { sum: 1 }, version: 1 });
    const second = await decideAndAppend(spy.store, 'sum-1', summing, () => ({ n: 2, limit: 100 }), system, undefined, first);
    const third = await decideAndAppend(spy.store, 'sum-1', summing, () => ({ n: 3, limit: 100 }), system, undefined, second);
    expect(third).toMatchObject({ state: { sum: 6, seen: [1, 2, 3] }, version: 3 });
    expect(spy.reads()).toBe(1);
    expect((await on.store.readStream('sum-1')).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('decides again against the fresh stream when it moved past the known state', async () => {
    const known = await decideAndAppend(on.store, 'sum-2', summing, () => ({ n: 5, limit: 100 }), system);
    const otherProcess = new PostgresEventStore(on.db);
    await otherProcess.append('sum-2', [{ type: 'number.added', data: { n: 10 } }], 1);

    const spy = countedReads(on.store);
    const r = await decideAndAppend(spy.store, 'sum-2', summing, () => ({ n: 7, limit: 100 }), system, undefined, known);
    expect(r).toMatchObject({ state: { sum: 22, seen: [5, 10, 7] }, version: 3 });
    expect(spy.reads()).toBe(1);
    // Against the fresh state the limit is passed: nothing is decided, and the stale state's decision is not appended.
    const stale = { state: { sum: 0, seen: [] }, version: 0 };
    const none = await decideAndAppend(on.store, 'sum-2', summing, () => ({ n: 1, limit: 20 }), system, undefined, stale);
    expect(none).toMatchObject({ events: [], position: null, state: { sum: 22 }, version: 3 });
    expect((await on.store.readStream('sum-2')).map((e) => e.data)).toEqual([{ n: 5 }, { n: 10 }, { n: 7 }]);
  });

  it('appends a batch over several streams together, a refused decision failing alone', async () => {
    const batch = await decideAndAppendBatch(
      on.store,
      summing,
      [
        { streamId: 'sum-b1', command: () => ({ n: 1, limit: 100 }) },
        { streamId: 'sum-b2', command: () => ({ n: -1, limit: 100 }) },
        { streamId: 'sum-b3', command: () => ({ n: 3, limit: 100 }) },
      ],
      system,
    );
    expect(batch.outcomes.map((o) => (o.ok ? o.state : o.error.code))).toEqual([{ sum: 1, seen: [1] }, 'negative', { sum: 3, seen: [3] }]);
    const [b1, b3] = [(await on.store.readStream('sum-b1'))[0], (await on.store.readStream('sum-b3'))[0]];
    expect(b3?.globalPosition).toBe(batch.position);
    expect((b3?.globalPosition ?? 0) - (b1?.globalPosition ?? 0)).toBe(1);
    expect(await on.store.readStream('sum-b2')).toEqual([]);
    await expect(
      decideAndAppendBatch(
        on.store,
        summing,
        [
          { streamId: 'x', command: () => ({ n: 1, limit: 1 }) },
          { streamId: 'x', command: () => ({ n: 2, limit: 1 }) },
        ],
        system,
      ),
    ).rejects.toThrow('names one stream twice');
  });

  it('decides the whole batch again when another writer moved one of its streams', async () => {
    const otherProcess = new PostgresEventStore(on.db);
    let raced = false;
    const store = on.store;
    const racing: EventStore = {
      append: (...args) => store.append(...args),
      appendMany: async (writes) => {
        if (!raced) {
          raced = true;
          await otherProcess.append('sum-b5', [{ type: 'number.added', data: { n: 50 } }], 0);
        }
        return store.appendMany(writes);
      },
      readStream: (id) => store.readStream(id),
      readStreamFrom: (id, from) => store.readStreamFrom(id, from),
      readAll: (after, limit) => store.readAll(after, limit),
      headPosition: () => store.headPosition(),
      purge: (purge) => store.purge(purge),
      onAppended: (listener) => store.onAppended(listener),
    };
    const batch = await decideAndAppendBatch(
      racing,
      summing,
      [
        { streamId: 'sum-b4', command: () => ({ n: 4, limit: 10 }) },
        { streamId: 'sum-b5', command: () => ({ n: 5, limit: 10 }) },
      ],
      system,
    );
    expect(raced).toBe(true);
    expect(batch.outcomes.map((o) => o.ok && o.events.length)).toEqual([1, 0]);
    expect((await on.store.readStream('sum-b4')).map((e) => e.data)).toEqual([{ n: 4 }]);
    expect((await on.store.readStream('sum-b5')).map((e) => e.data)).toEqual([{ n: 50 }]);
  });
});
