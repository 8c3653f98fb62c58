/**
 * The reads a page needs first, started as soon as the console's script runs, before React
 * renders and before `GET /auth/me` answers, so the page's first read does not queue behind
 * them (bench/console-case-list.ts: the case list's first row came 10-16x after its bare
 * `GET /cases`). A page takes its read with `takeFirstRead`: the one started for it when
 * the key matches, else a read of its own. Each started read is taken once; a read nobody
 * takes is simply dropped.
 */
const started = new Map<string, Promise<unknown>>();

/** Starts `read` under `key`; its failure is kept for the page that takes it, never reported twice. */
export function startFirstRead(key: string, read: () => Promise<unknown>): void {
  const reading = read();
  reading.catch(() => undefined);
  started.set(key, reading);
}

/** The read started under `key`, once, or `read()` when none was (or it was already taken). */
export function takeFirstRead<T>(key: string, read: () => Promise<T>): Promise<T> {
  const reading = started.get(key);
  if (reading === undefined) return read();
  started.delete(key);
  return reading as Promise<T>;
}
