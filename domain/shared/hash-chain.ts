/**
 * The hash chain of the action log and the audit log (SPEC.md "Run and action log",
 * "Audit entry"; docs/architecture.md "Event sourcing", hash chains): every
 * row carries
 * `hash = sha256(prev_hash || canonical_json(row))`, canonical JSON per RFC 8785, and
 * `prev_hash` is the previous row's `hash` (GENESIS_HASH for the first row).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import * as v from 'valibot';
import { canonicalJson } from './canonical-json.ts';

/** `prev_hash` of the first row of a chain: 64 hex zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** One stored chain row: its payload and the two hashes stored beside it. */
export type ChainedRow = { prev_hash: string; hash: string; row: Record<string, unknown> };

/**
 * One stored chain row as the bytes that were hashed: `text` is the canonical JSON of its
 * row as stored, hashed as it is (a table keeps the text it chained, so verifying it needs
 * no parse and no canonicalization; any other text for the same row breaks the hash).
 */
export type ChainedText = { prev_hash: string; hash: string; text: string };

/** Outcome of a verification (`GET /audit/verify`, `GET /runs/chain/verify`): `first_broken_index` is 0-based, null when valid. */
export const chainVerdictSchema = v.strictObject({ valid: v.boolean(), checked: v.number(), first_broken_index: v.nullable(v.number()) });
export type ChainVerdict = v.InferOutput<typeof chainVerdictSchema>;

/** Verifies a chain fed one row at a time, so a caller can page rows out of a database. */
export type ChainVerifier = {
  /** Checks the next row; returns false once the chain is broken (later rows are not examined). */
  push: (row: ChainedRow | ChainedText) => boolean;
  result: () => ChainVerdict;
};

/** Lower-case hex SHA-256 of the UTF-8 bytes of a text. */
export type Sha256Hex = (text: string) => string;

/** The portable SHA-256 (@noble/hashes); an adapter may pass a native one with the same output. */
export const sha256Hex: Sha256Hex = (text) => bytesToHex(sha256(utf8ToBytes(text)));

/**
 * Lower-case hex SHA-256 of the UTF-8 bytes of `prevHash` followed by the RFC 8785
 * canonical JSON of `row`. Throws on values JSON cannot carry (NaN, Infinity, BigInt).
 */
export function chainHash(prevHash: string, row: Record<string, unknown>, hash: Sha256Hex = sha256Hex): string {
  return chainHashOfText(prevHash, canonicalJson(row), hash);
}

/** The chain hash of a row given as its canonical JSON text (a stored row, or one already canonicalized to be stored). */
export function chainHashOfText(prevHash: string, text: string, hash: Sha256Hex = sha256Hex): string {
  return hash(prevHash + text);
}

/**
 * Incremental verifier. `anchor` is the hash the first pushed row must point at:
 * GENESIS_HASH for a whole chain, or a trusted stored hash to verify only a tail;
 * `hash` the SHA-256 to use (the portable one by default).
 * `checked` counts the rows examined, including the first broken one.
 */
export function createChainVerifier(anchor: string = GENESIS_HASH, hash: Sha256Hex = sha256Hex): ChainVerifier {
  let expectedPrev = anchor;
  let checked = 0;
  let brokenAt: number | null = null;
  return {
    push(entry) {
      if (brokenAt !== null) return false;
      const index = checked;
      checked += 1;
      const text = 'text' in entry ? entry.text : canonicalJson(entry.row);
      if (entry.prev_hash !== expectedPrev || entry.hash !== chainHashOfText(entry.prev_hash, text, hash)) {
        brokenAt = index;
        return false;
      }
      expectedPrev = entry.hash;
      return true;
    },
    result: () => ({ valid: brokenAt === null, checked, first_broken_index: brokenAt }),
  };
}

/** Verifies a whole chain from GENESIS_HASH; an empty chain is valid with `checked` 0. */
export function verifyChain(rows: Iterable<ChainedRow>): ChainVerdict {
  const verifier = createChainVerifier();
  for (const row of rows) {
    if (!verifier.push(row)) break;
  }
  return verifier.result();
}
