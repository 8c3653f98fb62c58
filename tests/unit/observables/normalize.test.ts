import { describe, expect, it } from 'vitest';
import { normalizeObservable } from '../../../adapters/observables/normalize.ts';

const ok = (value: string) => ({ ok: true, value });

describe('normalizeObservable', () => {
  it('prints IPv6 in RFC 5952 form and an IPv4-mapped address as IPv4', () => {
    expect(normalizeObservable('ip', ' 2001:0DB8:0000:0000:0000:0000:0000:0001 ')).toEqual(ok('2001:db8::1'));
    expect(normalizeObservable('ip', '::ffff:198.51.100.7')).toEqual(ok('198.51.100.7'));
    expect(normalizeObservable('ip', '203.0.113.9')).toEqual(ok('203.0.113.9'));
  });

  it('refuses ambiguous or malformed IPv4 forms', () => {
    for (const bad of ['127.1', '0x7f.0.0.1', '256.1.1.1', '1.2.3', 'example.com']) {
      expect(normalizeObservable('ip', bad).ok, bad).toBe(false);
    }
  });

  it('lower-cases names, drops a trailing dot and converts IDNs to punycode', () => {
    expect(normalizeObservable('domain', 'Example.COM.')).toEqual(ok('example.com'));
    expect(normalizeObservable('domain', 'bücher.example')).toEqual(ok('xn--bcher-kva.example'));
    expect(normalizeObservable('domain', 'no spaces.example').ok).toBe(false);
    expect(normalizeObservable('hostname', 'WS-042')).toEqual(ok('ws-042'));
    expect(normalizeObservable('hostname', 'WS-042.Corp.Example')).toEqual(ok('ws-042.corp.example'));
  });

  it('normalizes URLs, emails and digests', () => {
    expect(normalizeObservable('url', 'HTTP://Evil.Example:80/a/../b?q=1')).toEqual(ok('http://evil.example/b?q=1'));
    expect(normalizeObservable('url', 'not a url').ok).toBe(false);
    expect(normalizeObservable('email', 'Ana@Example.COM')).toEqual(ok('ana@example.com'));
    expect(normalizeObservable('email', '@example.com').ok).toBe(false);
    expect(normalizeObservable('sha256', 'A'.repeat(64))).toEqual(ok('a'.repeat(64)));
    expect(normalizeObservable('md5', 'a'.repeat(31)).ok).toBe(false);
    expect(normalizeObservable('sha1', 'g'.repeat(40)).ok).toBe(false);
  });

  it('refuses an empty value and keeps `other` as given, trimmed', () => {
    expect(normalizeObservable('other', '   ').ok).toBe(false);
    expect(normalizeObservable('other', ' Mixed Case ')).toEqual(ok('Mixed Case'));
  });
});

describe('the normalized size cap', () => {
  it('refuses a value whose normalized form is over 2048 UTF-8 bytes, however few characters', () => {
    expect(normalizeObservable('other', 'a'.repeat(2048)).ok).toBe(true);
    expect(normalizeObservable('other', 'a'.repeat(2049))).toEqual({ ok: false, error: 'is longer than 2048 bytes once normalized' });
    // 700 four-byte characters are 2800 bytes: too wide for a PostgreSQL index row.
    expect(normalizeObservable('user', '𝔘'.repeat(700)).ok).toBe(false);
  });
});
