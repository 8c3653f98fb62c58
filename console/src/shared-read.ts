/**
 * Identical reads in flight at the same time share one request: the second asker gets the
 * first one's promise, and the next read after it settles asks the API again. Nothing is
 * kept once a read settles, so no answer is ever older than the request that fetched it.
 */
const inFlight = new Map<string, Promise<unknown>>();

/** `read()` under `key`, or the read of that key already in flight. */
export function sharedRead<T>(key: string, read: () => Promise<T>): Promise<T> {
  const pending = inFlight.get(key);
  if (pending) return pending as Promise<T>;
  const reading = read().finally(() => inFlight.delete(key));
  inFlight.set(key, reading);
  return reading;
}
