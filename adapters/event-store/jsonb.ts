/**
 * What a value looks like after a round trip through the event store's `jsonb`
 * columns, computed without the round trip: JSON-serialised (undefined members
 * dropped, Dates as ISO strings) and every object's keys in jsonb's order (shorter
 * UTF-8 key first, then bytewise). A writer that keeps its own events in memory uses
 * it so that what it renders from them (e.g. `{{ steps.x.output }}`) is exactly what a
 * reader rebuilding the same state from the store renders.
 */
export function asJsonb(value: unknown): unknown {
  const serialised = JSON.stringify(value);
  return serialised === undefined ? null : parseAsJsonb(serialised);
}

/** The JSON text `text` (as JSON.stringify wrote it) parsed as a `jsonb` column gives it back: jsonb's key order. */
export function parseAsJsonb(text: string): unknown {
  return reorder(JSON.parse(text) as unknown);
}

const utf8 = new TextEncoder();

function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort(keys.every(printableAscii) ? compareAsciiKeys : compareKeyBytes);
  const ordered: Record<string, unknown> = {};
  for (const key of keys) {
    // A `__proto__` key stays a plain own key, as JSON.parse makes it; assigned, it would set the prototype.
    if (key === '__proto__') Object.defineProperty(ordered, key, { value: reorder(record[key]), enumerable: true, writable: true, configurable: true });
    else ordered[key] = reorder(record[key]);
  }
  return ordered;
}

/** Printable ASCII: one byte a character, so UTF-8 byte order is code-unit order. */
function printableAscii(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

/** jsonb's key order for printable ASCII keys: shorter first, then by code unit. */
function compareAsciiKeys(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** jsonb's key order: shorter UTF-8 first, then bytewise. */
function compareKeyBytes(a: string, b: string): number {
  return compareBytes(utf8.encode(a), utf8.encode(b));
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  }
  return 0;
}
