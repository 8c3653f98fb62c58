/**
 * The action-log hash chain: known answers computed independently with node:crypto and a
 * hand-written RFC 8785 form, key ordering, unicode, tamper detection, incremental use.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';
import { chainHash, createChainVerifier, GENESIS_HASH, verifyChain, type ChainedRow } from '../../domain/shared/hash-chain.ts';

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function buildChain(rows: Record<string, unknown>[]): ChainedRow[] {
  const chain: ChainedRow[] = [];
  let prev = GENESIS_HASH;
  for (const row of rows) {
    const hash = chainHash(prev, row);
    chain.push({ prev_hash: prev, hash, row });
    prev = hash;
  }
  return chain;
}

const rows = [
  { step_id: 'block', action: 'response.ip_block', status: 'succeeded', attempt: 1 },
  { step_id: 'notify', action: 'notify.webhook', status: 'failed', attempt: 1, error: 'HTTP 503' },
  { step_id: 'notify', action: 'notify.webhook', status: 'succeeded', attempt: 2 },
  { step_id: 'close', action: 'case.update', status: 'dry_run', attempt: 1 },
];

describe('chainHash', () => {
  it('is sha256 of prev_hash followed by the canonical JSON of the row', () => {
    const row = { status: 'ok', n: 1.5e-7, big: 1e21, list: [3, 'x', null, true], nested: { z: 1, a: 2.0 } };
    const canonical = '{"big":1e+21,"list":[3,"x",null,true],"n":1.5e-7,"nested":{"a":2,"z":1},"status":"ok"}';
    expect(GENESIS_HASH).toBe('0000000000000000000000000000000000000000000000000000000000000000');
    expect(chainHash(GENESIS_HASH, row)).toBe(sha256Hex(GENESIS_HASH + canonical));
    const prev = sha256Hex('anything');
    expect(chainHash(prev, row)).toBe(sha256Hex(prev + canonical));
    expect(chainHash(prev, row)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on the order of keys', () => {
    const a = chainHash(GENESIS_HASH, { a: 1, b: { c: 2, d: [1, { f: 1, e: 2 }] } });
    const b = chainHash(GENESIS_HASH, { b: { d: [1, { e: 2, f: 1 }], c: 2 }, a: 1 });
    expect(a).toBe(b);
    expect(chainHash(GENESIS_HASH, { a: [1, 2] })).not.toBe(chainHash(GENESIS_HASH, { a: [2, 1] }));
  });

  it('hashes unicode as UTF-8 and sorts keys by UTF-16 code units (RFC 8785 section 3.2.3)', () => {
    // U+1F600 sorts before U+FB00 by UTF-16 code units (0xD83D < 0xFB00), not by code point.
    const row = { ﬀ: 4, '😀': 3, '€': 1, a: 'café\u2028"\\\n', b: '\u0007' };
    const canonical = '{"a":"café\u2028\\"\\\\\\n","b":"\\u0007","€":1,"😀":3,"ﬀ":4}';
    expect(chainHash(GENESIS_HASH, row)).toBe(sha256Hex(GENESIS_HASH + canonical));
  });

  it('refuses numbers JSON cannot carry', () => {
    expect(() => chainHash(GENESIS_HASH, { n: Number.NaN })).toThrow();
  });
});

describe('verifyChain', () => {
  it('accepts an intact chain and an empty one', () => {
    expect(verifyChain(buildChain(rows))).toEqual({ valid: true, checked: 4, first_broken_index: null });
    expect(verifyChain([])).toEqual({ valid: true, checked: 0, first_broken_index: null });
  });

  it('finds a tampered row', () => {
    const chain = buildChain(rows);
    chain[2] = { ...chain[2]!, row: { ...chain[2]!.row, status: 'failed' } };
    expect(verifyChain(chain)).toEqual({ valid: false, checked: 3, first_broken_index: 2 });
  });

  it('finds a row whose stored hash was recomputed after tampering by the next prev_hash', () => {
    const chain = buildChain(rows);
    const row = { ...chain[1]!.row, error: 'none' };
    chain[1] = { prev_hash: chain[1]!.prev_hash, row, hash: chainHash(chain[1]!.prev_hash, row) };
    expect(verifyChain(chain)).toEqual({ valid: false, checked: 3, first_broken_index: 2 });
  });

  it('finds a broken prev_hash, a deleted row and a bad genesis', () => {
    const chain = buildChain(rows);
    expect(verifyChain(chain.map((r, i) => (i === 3 ? { ...r, prev_hash: GENESIS_HASH } : r))).first_broken_index).toBe(3);
    expect(verifyChain([chain[0]!, chain[2]!, chain[3]!]).first_broken_index).toBe(1);
    expect(verifyChain(chain.slice(1))).toEqual({ valid: false, checked: 1, first_broken_index: 0 });
  });

  it('gives the same verdict incrementally, page by page, as in one batch', () => {
    const many = buildChain(Array.from({ length: 25 }, (_, n) => ({ n, text: `row ${n}` })));
    const tampered = many.map((r, i) => (i === 17 ? { ...r, row: { n: 17, text: 'edited' } } : r));
    for (const chain of [many, tampered]) {
      const verifier = createChainVerifier();
      for (let page = 0; page < chain.length; page += 10) {
        for (const row of chain.slice(page, page + 10)) verifier.push(row);
      }
      expect(verifier.result()).toEqual(verifyChain(chain));
    }
    expect(verifyChain(tampered)).toEqual({ valid: false, checked: 18, first_broken_index: 17 });
  });

  it('verifies a tail from a trusted anchor hash', () => {
    const chain = buildChain(rows);
    const verifier = createChainVerifier(chain[1]!.hash);
    for (const row of chain.slice(2)) verifier.push(row);
    expect(verifier.result()).toEqual({ valid: true, checked: 2, first_broken_index: null });
  });

  it('verifies stored text as it is: the canonical text holds, the same row in any other text breaks', () => {
    const chain = buildChain(rows);
    const asText = chain.map((r) => ({ prev_hash: r.prev_hash, hash: r.hash, text: canonicalJson(r.row) }));
    const verifier = createChainVerifier();
    for (const row of asText) verifier.push(row);
    expect(verifier.result()).toEqual({ valid: true, checked: 4, first_broken_index: null });

    // The same values, as JSON.stringify writes them (insertion order, not RFC 8785): not the bytes hashed.
    const respaced = asText.map((r, i) => (i === 2 ? { ...r, text: JSON.stringify(rows[2]) } : r));
    expect(JSON.parse(respaced[2]!.text)).toEqual(JSON.parse(asText[2]!.text));
    const strict = createChainVerifier();
    for (const row of respaced) if (!strict.push(row)) break;
    expect(strict.result()).toEqual({ valid: false, checked: 3, first_broken_index: 2 });
  });
});
