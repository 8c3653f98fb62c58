/**
 * Verification of a registry entry against its pack file (domain/integration-packs/registry.ts;
 * SPEC.md "Integration packs": checksum, publisher signature when a key is configured,
 * integrity, name and version, in that order) with real ed25519 keys: each refusal in
 * order, the tamper cases (file, integrity block, signature, index), the signature states
 * with and without a key, availability, and install states.
 */
import { keygen, sign } from '@noble/ed25519';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import * as v from 'valibot';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { withIntegrity } from '../../../domain/integration-packs/integrity.ts';
import {
  installStateOf,
  publicKeyFromBase64,
  registryEntrySchema,
  verifyPack,
  type RegistryEntry,
  type VerifyContext,
} from '../../../domain/integration-packs/registry.ts';

// Fixed seeds (docs/architecture.md "Habits" 3): real key pairs, the same in every run.
const publisher = keygen(new Uint8Array(32).fill(7));
const stranger = keygen(new Uint8Array(32).fill(9));

const packData = (over: Record<string, unknown> = {}) => ({
  format: 'integration-pack',
  format_version: 1,
  name: 'ip_reputation',
  version: '1.2.0',
  title: 'IP reputation',
  publisher: 'svc tests',
  requires: { service: '>=0.1.0' },
  connection_kinds: ['http'],
  actions: [
    {
      spec: {
        name: 'custom.ip_reputation.check',
        title: 'Check',
        transport: 'http',
        inputs: [{ name: 'ip', type: 'string', required: true }],
        http: { method: 'GET', path: '/api/v2/check', query: { ipAddress: '{{ inputs.ip }}' } },
        outputs: [{ name: 'score', path: '$.data.abuseConfidenceScore', type: 'integer' }],
        effect_type: 'enrich',
        risk: 'read',
        target: { type: 'ip', input: 'ip' },
      },
    },
  ],
  ...over,
});

/** The pack file's bytes, integrity block included. */
function packBytes(over: Record<string, unknown> = {}): Uint8Array {
  const built = withIntegrity(stringify(packData(over)));
  if (!built.ok) throw new Error(built.msg);
  return new TextEncoder().encode(built.text);
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const signed = (bytes: Uint8Array, secretKey = publisher.secretKey) => base64(sign(bytes, secretKey));

/** The index entry pinning `bytes`, as `svc pack index` writes it. */
const entryFor = (bytes: Uint8Array, over: Partial<RegistryEntry> = {}): RegistryEntry =>
  v.parse(registryEntrySchema, {
    id: 'ip_reputation',
    name: 'ip_reputation',
    version: '1.2.0',
    file: 'ip_reputation.yaml',
    sha256: bytesToHex(sha256(bytes)),
    signature: null,
    title: 'IP reputation',
    publisher: 'svc tests',
    ...over,
  });

const withKey: VerifyContext = { publicKey: publisher.publicKey, serviceVersion: '0.1.0', connectionKinds: ['http', 'ssh'] };
const noKey: VerifyContext = { ...withKey, publicKey: null };

const refusal = (entry: RegistryEntry, bytes: Uint8Array | null, ctx: VerifyContext) => verifyPack(entry, bytes, ctx).refusal?.code ?? null;

/** `bytes` with the byte at `at` changed. */
function flip(bytes: Uint8Array, at: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return copy;
}

const replaceText = (bytes: Uint8Array, from: string, to: string): Uint8Array => {
  const text = new TextDecoder().decode(bytes);
  expect(text).toContain(from);
  return new TextEncoder().encode(text.replace(from, to));
};

describe('verifyPack', () => {
  it('accepts a signed pack with the publisher key, and a pack on its checksum alone without a key', () => {
    const bytes = packBytes();
    const verdict = verifyPack(entryFor(bytes, { signature: signed(bytes) }), bytes, withKey);
    expect(verdict).toMatchObject({ signature_state: 'verified', verified: true, available: true, refusal: null });
    expect(verdict.pack?.name).toBe('ip_reputation');
    expect(verifyPack(entryFor(bytes), bytes, noKey)).toMatchObject({ signature_state: 'unverified', verified: true, available: true, refusal: null });
    expect(verifyPack(entryFor(bytes, { signature: signed(bytes) }), bytes, noKey)).toMatchObject({ signature_state: 'unverified', verified: true });
  });

  it('refuses at the first failing check, in SPEC.md order', () => {
    // Everything wrong at once; each fix uncovers the next check.
    const good = packBytes();
    const badIntegrity = replaceText(good, 'title: IP reputation', 'title: IP reputation!');
    const stale = { version: '1.1.0', sha256: 'ab'.repeat(32), name: 'other', id: 'other' };
    expect(refusal(entryFor(badIntegrity, stale), null, withKey)).toBe('pack_file_missing');
    expect(refusal(entryFor(badIntegrity, stale), badIntegrity, withKey)).toBe('pack_checksum_mismatch');
    const pinned = { ...stale, sha256: bytesToHex(sha256(badIntegrity)) };
    expect(refusal(entryFor(badIntegrity, pinned), badIntegrity, withKey)).toBe('pack_signature_missing');
    expect(refusal(entryFor(badIntegrity, { ...pinned, signature: signed(badIntegrity, stranger.secretKey) }), badIntegrity, withKey)).toBe(
      'pack_signature_invalid',
    );
    const signedBad = { ...pinned, signature: signed(badIntegrity) };
    expect(refusal(entryFor(badIntegrity, signedBad), badIntegrity, withKey)).toBe('pack_integrity_mismatch');
    const signedGood = { ...stale, sha256: bytesToHex(sha256(good)), signature: signed(good) };
    expect(refusal(entryFor(good, signedGood), good, withKey)).toBe('pack_name_mismatch');
    expect(refusal(entryFor(good, { ...signedGood, id: 'ip_reputation', name: 'ip_reputation' }), good, withKey)).toBe('pack_version_mismatch');
    expect(refusal(entryFor(good, { ...signedGood, id: 'ip_reputation', name: 'ip_reputation', version: '1.2.0' }), good, withKey)).toBeNull();
  });

  it('refuses a file that is not a pack document, or has no trailing integrity block', () => {
    const notYaml = new TextEncoder().encode('name: [unclosed\n');
    expect(refusal(entryFor(notYaml), notYaml, noKey)).toBe('pack_invalid');
    const noBlock = new TextEncoder().encode(stringify(packData()));
    expect(refusal(entryFor(noBlock), noBlock, noKey)).toBe('pack_integrity_missing');
    const text = new TextDecoder().decode(packBytes());
    const blockFirst = new TextEncoder().encode(`${text.slice(text.indexOf('integrity:'))}${text.slice(0, text.indexOf('integrity:'))}`);
    expect(refusal(entryFor(blockFirst), blockFirst, noKey)).toBe('pack_integrity_missing');
  });

  describe('tampering', () => {
    const bytes = packBytes();
    const signature = signed(bytes);
    const entry = entryFor(bytes, { signature });

    it('one byte of the file changed, the index not updated: pack_checksum_mismatch', () => {
      const at = new TextDecoder().decode(bytes).indexOf('/api/v2/check') + 5;
      const tampered = flip(bytes, at);
      for (const ctx of [withKey, noKey]) expect(refusal(entry, tampered, ctx)).toBe('pack_checksum_mismatch');
      expect(verifyPack(entry, tampered, withKey)).toMatchObject({ verified: false, available: false });
    });

    it('the integrity digest changed and the checksum re-pinned: pack_integrity_mismatch without a key, pack_signature_invalid with one', () => {
      const text = new TextDecoder().decode(bytes);
      const digest = /digest: ([0-9a-f]{64})/.exec(text)?.[1] ?? '';
      const forged = replaceText(bytes, `digest: ${digest}`, `digest: ${[...digest].reverse().join('')}`);
      const repinned = entryFor(forged, { signature });
      expect(refusal(repinned, forged, noKey)).toBe('pack_integrity_mismatch');
      expect(verifyPack(repinned, forged, noKey)).toMatchObject({ signature_state: 'unverified', verified: false, available: false });
      expect(refusal(repinned, forged, withKey)).toBe('pack_signature_invalid');
      expect(verifyPack(repinned, forged, withKey).signature_state).toBe('invalid');
    });

    it('the data changed with its integrity block rebuilt and the checksum re-pinned: only the signature catches it', () => {
      const rebuilt = withIntegrity(new TextDecoder().decode(bytes).replace('/api/v2/check', '/api/v2/report'));
      if (!rebuilt.ok) throw new Error(rebuilt.msg);
      const forged = new TextEncoder().encode(rebuilt.text);
      expect(refusal(entryFor(forged, { signature }), forged, noKey)).toBeNull();
      expect(refusal(entryFor(forged, { signature }), forged, withKey)).toBe('pack_signature_invalid');
    });

    it('one byte of the signature changed: pack_signature_invalid', () => {
      const raw = Uint8Array.from(Buffer.from(signature, 'base64'));
      for (const at of [0, 31, 32, 63]) {
        expect(refusal(entryFor(bytes, { signature: base64(flip(raw, at)) }), bytes, withKey)).toBe('pack_signature_invalid');
      }
      expect(refusal(entryFor(bytes, { signature: base64(raw.slice(0, 63)) }), bytes, withKey)).toBe('pack_signature_invalid');
    });

    it('the index edited: pack_version_mismatch for its version, pack_checksum_mismatch for its checksum', () => {
      expect(refusal({ ...entry, version: '1.3.0' }, bytes, withKey)).toBe('pack_version_mismatch');
      expect(refusal({ ...entry, version: '1.3.0' }, bytes, noKey)).toBe('pack_version_mismatch');
      const otherChecksum = bytesToHex(sha256(new TextEncoder().encode('another file')));
      expect(refusal({ ...entry, sha256: otherChecksum }, bytes, withKey)).toBe('pack_checksum_mismatch');
      expect(refusal({ ...entry, sha256: otherChecksum }, bytes, noKey)).toBe('pack_checksum_mismatch');
    });
  });

  it('with a key, refuses an unsigned pack (pack_signature_missing) and one signed by another key', () => {
    const bytes = packBytes();
    expect(verifyPack(entryFor(bytes), bytes, withKey)).toMatchObject({
      signature_state: 'missing',
      verified: false,
      refusal: { code: 'pack_signature_missing' },
    });
    expect(verifyPack(entryFor(bytes, { signature: signed(bytes, stranger.secretKey) }), bytes, withKey)).toMatchObject({
      signature_state: 'invalid',
      refusal: { code: 'pack_signature_invalid' },
    });
  });

  it('a verified pack needing a connection kind the service lacks is not available: pack_unknown_connection_kind', () => {
    const bytes = packBytes({ connection_kinds: ['http', 'carrier_pigeon'] });
    expect(verifyPack(entryFor(bytes), bytes, noKey)).toMatchObject({
      verified: true,
      available: false,
      pack: null,
      refusal: { code: 'pack_unknown_connection_kind', params: { kinds: ['carrier_pigeon'] } },
    });
  });

  it('a verified pack for other service versions is not available: pack_incompatible', () => {
    const bytes = packBytes({ requires: { service: '>=2.0.0' } });
    expect(verifyPack(entryFor(bytes), bytes, noKey)).toMatchObject({
      verified: true,
      available: false,
      refusal: { code: 'pack_incompatible', params: { requires: '>=2.0.0', service: '0.1.0' } },
    });
    const any = packBytes({ requires: undefined });
    expect(verifyPack(entryFor(any), any, noKey)).toMatchObject({ available: true });
  });

  it('a verified pack breaking the pack rules is not available: pack_invalid with its problems', () => {
    const bytes = packBytes({ connection_kinds: ['ssh'] });
    expect(verifyPack(entryFor(bytes), bytes, noKey)).toMatchObject({
      verified: true,
      available: false,
      refusal: { code: 'pack_invalid', params: { problems: [expect.objectContaining({ type: 'transport_kind_undeclared' })] } },
    });
  });
});

describe("a registry entry's metadata", () => {
  it("is the document's own block once the file verified, not the unsigned index's words", () => {
    const bytes = packBytes({ description: 'Checks an IP.', requires: { service: '>=2.0.0' } });
    const entry = entryFor(bytes, { title: 'Edited in the index', description: 'not the pack' });
    expect(verifyPack(entry, bytes, noKey)).toMatchObject({
      verified: true,
      available: false,
      refusal: { code: 'pack_incompatible' },
      metadata: {
        name: 'ip_reputation',
        version: '1.2.0',
        title: 'IP reputation',
        description: 'Checks an IP.',
        publisher: 'svc tests',
        requires: { service: '>=2.0.0' },
        connection_kinds: ['http'],
      },
    });
    expect(verifyPack(entryFor(packBytes({ requires: undefined })), packBytes({ requires: undefined }), noKey).metadata.requires).toEqual({ service: '*' });
  });

  it('is what the index says, requires and connection kinds unknown, while the file does not verify or breaks the format', () => {
    const bytes = packBytes();
    const indexed = {
      name: 'ip_reputation',
      version: '1.2.0',
      title: 'IP reputation',
      description: '',
      publisher: 'svc tests',
      requires: null,
      connection_kinds: null,
    };
    expect(verifyPack(entryFor(bytes), null, noKey).metadata).toEqual(indexed);
    expect(verifyPack(entryFor(bytes), flip(bytes, 10), noKey).metadata).toEqual(indexed);
    expect(verifyPack(entryFor(bytes), bytes, withKey).metadata).toEqual(indexed);
    const formatless = packBytes({ connection_kinds: 'http' });
    expect(verifyPack(entryFor(formatless), formatless, noKey)).toMatchObject({ verified: true, refusal: { code: 'pack_invalid' }, metadata: indexed });
  });
});

describe('installStateOf', () => {
  it.each([
    ['1.2.0', null, 'not_installed'],
    ['1.2.0', '1.2.0', 'installed'],
    ['1.2.0', '1.1.9', 'upgrade_available'],
    ['1.2.0', '1.2.0-rc.1', 'upgrade_available'],
    ['1.2.0', '1.10.0', 'installed_ahead'],
  ] as const)('registry %s, installed %s: %s', (registry, installed, state) => {
    expect(installStateOf(registry, installed)).toBe(state);
  });
});

describe('publicKeyFromBase64', () => {
  it('reads a 32-byte key and names what is wrong with anything else', () => {
    expect(publicKeyFromBase64(` ${base64(publisher.publicKey)}\n`)).toEqual(publisher.publicKey);
    expect(() => publicKeyFromBase64('not base64!')).toThrow('not base64');
    expect(() => publicKeyFromBase64(base64(new Uint8Array(31)))).toThrow('32 bytes, this one is 31');
  });
});
