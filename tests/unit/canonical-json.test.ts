/**
 * The canonical JSON the hash chains hash (domain/shared/canonical-json.ts) equals the
 * `canonicalize` reference implementation of RFC 8785 on JSON data, so switching to it
 * changed no digest of a chain already stored; and it refuses what JSON cannot carry.
 */
import { randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';

/** RFC 8785 appendix examples and the corners: key order by UTF-16 units, numbers, escapes. */
const samples: unknown[] = [
  // biome-ignore lint/correctness/noPrecisionLoss: RFC 8785's own sample; serializing it is the test.
  { numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001, -0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER + 2] },
  { string: '\u20ac$\u000f\u000aA\'\u0042\u0022\u005c\\"/', literals: [null, true, false] },
  {
    '\u20ac': 'Euro Sign',
    '\r': 'Carriage Return',
    '\ufb33': 'Hebrew Letter Dalet With Dagesh',
    '1': 'One',
    '\ud83d\ude00': 'Emoji: Grinning Face',
    '\u0080': 'Control',
    '\u00f6': 'Latin Small Letter O With Diaeresis',
  },
  { nested: { b: [1, { d: 2, c: [] }], a: {} }, lone: '\ud800', sep: 'a\u2028b\u2029c', ctrl: '\u0000\u0007\u001f' },
  [],
  { run_id: 'e0c6', log: { input: { url: 'https://x.example/?q=1&r=2', body: { n: 3.5 } }, output: null, started_at: '2026-11-23T10:00:00.000Z' } },
];

/** Random JSON: objects with random keys (any UTF-16 unit), arrays, strings, numbers. */
function randomJson(depth: number): unknown {
  const pick = randomBytes(1)[0]! % (depth > 3 ? 4 : 6);
  const text = () => String.fromCharCode(...[...randomBytes(6)].map((b, i) => (i % 2 ? b : b * 257) % 0xffff));
  if (pick === 0) return text();
  if (pick === 1) return randomBytes(4).readInt32LE() / (randomBytes(1)[0]! || 1);
  if (pick === 2) return [true, false, null][randomBytes(1)[0]! % 3];
  if (pick === 3) return randomBytes(6).readUIntLE(0, 6) * 1e10;
  if (pick === 4) return Array.from({ length: randomBytes(1)[0]! % 4 }, () => randomJson(depth + 1));
  return Object.fromEntries(Array.from({ length: randomBytes(1)[0]! % 5 }, () => [text(), randomJson(depth + 1)]));
}

describe('canonicalJson', () => {
  it('equals the RFC 8785 reference implementation on the spec examples and corners', () => {
    for (const value of samples) expect(canonicalJson(value)).toBe(canonicalize(value));
  });

  it('equals it on 2000 random JSON values', () => {
    for (let i = 0; i < 2000; i++) {
      const value = { v: randomJson(0) };
      expect(canonicalJson(value)).toBe(canonicalize(value));
    }
  });

  it('refuses values JSON cannot carry', () => {
    for (const value of [{ a: Number.NaN }, { a: Infinity }, { a: 1n }, { a: () => 1 }]) expect(() => canonicalJson(value)).toThrow();
  });
});
