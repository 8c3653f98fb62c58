/**
 * An event store that counts what its stream reads cost: how many reads (round trips) and
 * how many events they gave back. Appends and everything else go to `store` unchanged.
 */
import type { EventStore } from '../../adapters/event-store/port.ts';

export function countedReads(store: EventStore): { store: EventStore; reads: () => number; eventsRead: () => number } {
  let reads = 0;
  let events = 0;
  const counting = async <T extends unknown[]>(read: Promise<T>): Promise<T> => {
    reads++;
    const got = await read;
    events += got.length;
    return got;
  };
  return {
    store: Object.assign(Object.create(store) as EventStore, {
      readStream: (streamId: string) => counting(store.readStream(streamId)),
      readStreamFrom: (streamId: string, fromVersion: number) => counting(store.readStreamFrom(streamId, fromVersion)),
    }),
    reads: () => reads,
    eventsRead: () => events,
  };
}
