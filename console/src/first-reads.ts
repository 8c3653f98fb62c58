/**
 * The reads a page needs first, started as soon as the console's script runs, before React
 * renders and before `GET /auth/me` answers, so the page's first read does not queue behind
 * them (bench/console-case-list.ts: the case list's first row came 10-16x after its bare
 * `GET /cases`). main.tsx waits a moment for them (`firstReadsSettled`) so the first render
 * already holds their answers: one render with the rows, not "Loading" and then the rows.
 *
 * A page takes its read with `takeFirstRead` (the one started for it when the key matches,
 * else a read of its own), or, when it already answered, its data at once with
 * `firstReadData`. Each started read is taken once; a read nobody takes is simply dropped.
 */
type Started = { reading: Promise<unknown>; answer?: { data: unknown } };
const started = new Map<string, Started>();

/** Starts `read` under `key`; its failure is kept for the page that takes it, never reported twice. */
export function startFirstRead(key: string, read: () => Promise<unknown>): void {
  const entry: Started = { reading: read() };
  entry.reading.then(
    (data) => {
      entry.answer = { data };
    },
    () => undefined,
  );
  started.set(key, entry);
}

/** Resolves once every started read has answered or failed, or after `capMs` (milliseconds), whichever is first; never rejects. */
export function firstReadsSettled(capMs: number): Promise<void> {
  const all = Promise.allSettled([...started.values()].map((entry) => entry.reading)).then(() => undefined);
  return Promise.race([all, new Promise<void>((resolve) => setTimeout(resolve, capMs))]);
}

/** Forgets `key` after the current task, so a render that asks twice in one pass (React's StrictMode) gets the same answer both times. */
const takeAfterThisTask = (key: string) => queueMicrotask(() => started.delete(key));

/** The data of the read started under `key` when it has already answered (and takes it), else undefined: a failure or a pending read stays for `takeFirstRead`. */
export function firstReadData<T>(key: string): T | undefined {
  const entry = started.get(key);
  if (!entry?.answer) return undefined;
  takeAfterThisTask(key);
  return entry.answer.data as T;
}

/** The read started under `key`, once, or `read()` when none was (or it was already taken). */
export function takeFirstRead<T>(key: string, read: () => Promise<T>): Promise<T> {
  const entry = started.get(key);
  if (entry === undefined) return read();
  started.delete(key);
  return entry.reading as Promise<T>;
}
