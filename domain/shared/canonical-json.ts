/**
 * RFC 8785 canonical JSON of JSON data: object keys sorted by UTF-16 code units,
 * ECMAScript number and string serialization, no whitespace. The hash chains hash it
 * (hash-chain.ts), so its output must never change for a value already chained.
 *
 * Produced by safe-stable-stringify, whose deterministic mode sorts keys the same way
 * and serializes numbers and strings as JSON.stringify does, which is what RFC 8785
 * prescribes; it is about three times faster than the `canonicalize` reference
 * implementation, and tests/unit/canonical-json.test.ts holds the two equal.
 * Throws an Error on values JSON cannot carry (NaN, Infinity, BigInt, functions).
 */
import { configure } from 'safe-stable-stringify';

const stringify = configure({ deterministic: true, bigint: false, circularValue: Error, strict: true });

/** The canonical JSON text of `value` (a JSON value). */
export function canonicalJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value is not JSON');
  return text;
}
