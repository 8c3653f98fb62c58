/** adapters/event-store/jsonb.ts without a database: jsonb's key order, and keys JSON.parse keeps as plain keys. */
import { describe, expect, it } from 'vitest';
import { asJsonb, parseAsJsonb } from '../../adapters/event-store/jsonb.ts';

describe('parseAsJsonb', () => {
  it('orders keys shorter first, then bytewise, at every depth and inside arrays', () => {
    const value = parseAsJsonb('{"zeta":1,"b":[{"dd":1,"c":2}],"aa":{"y":1,"x":2}}');
    expect(JSON.stringify(value)).toBe('{"b":[{"c":2,"dd":1}],"aa":{"x":2,"y":1},"zeta":1}');
  });

  it('orders a mix of ASCII and other keys by their UTF-8 bytes', () => {
    // 'é' is two bytes, so it follows every one-byte key; 'B' (0x42) precedes 'a' (0x61).
    expect(Object.keys(parseAsJsonb('{"é":1,"a":2,"B":3,"ab":4}') as object)).toEqual(['B', 'a', 'ab', 'é']);
  });

  it('keeps a `__proto__` key as a plain own key, as JSON.parse does', () => {
    const value = parseAsJsonb('{"__proto__":{"b":1,"a":2},"x":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['x', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ a: 2, b: 1 });
  });

  it('drops undefined members and writes dates as text (asJsonb)', () => {
    expect(asJsonb({ b: undefined, a: new Date('2026-11-28T00:00:00.000Z') })).toEqual({ a: '2026-11-28T00:00:00.000Z' });
  });
});
