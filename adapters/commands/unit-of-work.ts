/**
 * A unit of work over the event store: decisions against several streams that are
 * staged, not appended, so their caller can append them in one `appendMany` together
 * with a write of its own (the run driver: a step's effects on the case beside the
 * step's end, docs/architecture.md "Run path", crash recovery).
 *
 * Each stream is loaded once, on first touch (stream-states.ts reads only what was
 * appended since this process last folded it); later decisions on it see the state as
 * loaded plus what this unit staged, and its write carries the version loaded as
 * expected version. A `StreamVersionConflict` on append therefore means the stream moved after
 * it was read: nothing was written, and the caller decides again with a fresh unit.
 */
import type { Decider, Event, EventMetadata } from '../../domain/shared/messages.ts';
import type { EventStore, NewEvent, StreamWrite } from '../event-store/port.ts';
import { streamStatesOf, type Folding, type StreamState } from './stream-states.ts';

/** What a unit holds of one stream: the version read, the state after staged events, the staged events. */
type Staged = { version: number; state: unknown; events: NewEvent[] };

/** A restore point of a unit (see `UnitOfWork.mark`). */
export type UnitMark = { readonly staged: ReadonlyMap<string, Staged> };

export type UnitOfWork = {
  /**
   * Decides `command(state)` against `streamId` (one decider per stream within a unit),
   * stages the events with `metadata` and returns them. Throws what the decider throws,
   * staging nothing.
   */
  decide: <C, E extends Event, S>(streamId: string, decider: Decider<C, E, S>, command: (state: S) => C, metadata: EventMetadata) => Promise<E[]>;
  /**
   * The state of `streamId` as this unit sees it (as loaded, plus what it staged), loading
   * the stream on first touch: its write will carry the version loaded then.
   */
  state: <E extends Event, S>(streamId: string, folding: Folding<E, S>) => Promise<S>;
  /** Stages the first events of a stream that must not exist yet (expected version 0). */
  create: (streamId: string, events: Event[], metadata: EventMetadata) => void;
  /** A restore point: `restore(mark)` drops whatever was staged after it. */
  mark: () => UnitMark;
  restore: (mark: UnitMark) => void;
  /** The staged writes, one per stream that has events, each with its expected version. */
  writes: () => StreamWrite[];
};

/** A fresh, empty unit reading from `store`. */
export function createUnitOfWork(store: Pick<EventStore, 'readStream' | 'readStreamFrom'>): UnitOfWork {
  const reads = new Map<string, Promise<StreamState<unknown>>>();
  let staged = new Map<string, Staged>();
  const read = <E extends Event, S>(streamId: string, decider: Folding<E, S>) => {
    let loaded = reads.get(streamId);
    if (!loaded) {
      loaded = streamStatesOf(store).load(streamId, decider);
      reads.set(streamId, loaded);
    }
    return loaded as Promise<StreamState<S>>;
  };
  return {
    decide: async (streamId, decider, command, metadata) => {
      const loaded = await read(streamId, decider);
      // Taken after the read, with no await until it is replaced: decisions on one stream chain.
      const entry = staged.get(streamId) ?? { version: loaded.version, state: loaded.state, events: [] };
      const state = entry.state as Parameters<typeof decider.decide>[1];
      const events = decider.decide(command(state), state);
      staged.set(streamId, {
        version: entry.version,
        state: events.reduce(decider.evolve, state),
        events: [...entry.events, ...events.map((e) => ({ ...e, metadata }))],
      });
      return events;
    },
    state: async <E extends Event, S>(streamId: string, folding: Folding<E, S>): Promise<S> => {
      const loaded = await read(streamId, folding);
      const entry = staged.get(streamId);
      return entry ? (entry.state as S) : loaded.state;
    },
    create: (streamId, events, metadata) => {
      if (staged.has(streamId)) throw new Error(`stream ${streamId} is already staged in this unit`);
      staged.set(streamId, { version: 0, state: null, events: events.map((e) => ({ ...e, metadata })) });
    },
    mark: () => ({ staged: new Map(staged) }),
    restore: (mark) => {
      staged = new Map(mark.staged);
    },
    writes: () => [...staged].filter(([, s]) => s.events.length > 0).map(([streamId, s]) => ({ streamId, events: s.events, expectedVersion: s.version })),
  };
}
