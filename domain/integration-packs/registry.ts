/**
 * The pack registry (SPEC.md "Integration packs", "Integration pack" registry entry
 * fields): the index format `pack-registry` version 1, the verification of each listed
 * pack in SPEC.md's order, the entry's metadata (the document's own once it verified, else
 * the index's), and a pack's install state. docs/integration-packs.md restates the index
 * fields, the metadata and the refusal codes.
 *
 * Verification order (the first failure is the entry's `refusal`):
 * 1. `pack_file_missing`: the file the index names cannot be read;
 * 2. `pack_checksum_mismatch`: the file's SHA-256 differs from the index's `sha256`;
 * 3. with a publisher key: `pack_signature_missing` (no `signature`) or
 *    `pack_signature_invalid` (the ed25519 signature over the file's bytes does not verify);
 * 4. `pack_invalid` (not a pack document), `pack_integrity_missing` (no trailing
 *    integrity block), `pack_integrity_mismatch` (the digest is not the canonical one);
 * 5. `pack_name_mismatch`, `pack_version_mismatch`: the document is not what the index says.
 * A pack passing all five is `verified`. It is `available` (installable) when it also
 * follows the pack rules (`pack_invalid` with the problems), runs on this service
 * version (`pack_incompatible`) and needs only connection kinds this service has
 * (`pack_unknown_connection_kind`).
 */
import { verify as ed25519Verify, hashes } from '@noble/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import semver from 'semver';
import * as v from 'valibot';
import { INTEGRITY_KEY, packDigest, readPackText } from './integrity.ts';
import { integrationPackSchema, PACK_NAME, packProblems, semanticVersion, type IntegrationPack } from './pack.ts';

hashes.sha512 = sha512;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export const registryEntrySchema = v.strictObject({
  /** The pack's id in the registry and its routes; equal to the pack's name. */
  id: v.pipe(v.string(), v.regex(PACK_NAME, 'lower-case letters, digits and _, starting with a letter')),
  name: v.pipe(v.string(), v.regex(PACK_NAME, 'lower-case letters, digits and _, starting with a letter')),
  version: semanticVersion,
  /** The pack file, beside the index: a bare file name. */
  file: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,120}\.ya?ml$/, 'a file name in the index folder ending .yaml or .yml')),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, '64 lower-case hex digits')),
  /** Base64 ed25519 signature of the publisher over the file's bytes; null when unsigned. */
  signature: v.optional(v.nullable(v.pipe(v.string(), v.regex(BASE64, 'base64'))), null),
  title: v.pipe(v.string(), v.maxLength(200)),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000)), ''),
  publisher: v.pipe(v.string(), v.maxLength(200)),
});

export const packRegistrySchema = v.pipe(
  v.strictObject({
    format: v.literal('pack-registry'),
    version: v.literal(1),
    packs: v.pipe(v.array(registryEntrySchema), v.maxLength(500)),
  }),
  v.check((r) => new Set(r.packs.map((p) => p.id)).size === r.packs.length, 'each pack id is listed once'),
);

export type RegistryEntry = v.InferOutput<typeof registryEntrySchema>;
export type PackRegistry = v.InferOutput<typeof packRegistrySchema>;

/** `verified`: the key verified the signature; `unverified`: no key is configured; `missing`, `invalid`: a key is and the pack is unsigned or the signature fails. */
export type SignatureState = 'verified' | 'unverified' | 'missing' | 'invalid';
export type PackRefusal = { code: string; message: string; params?: Record<string, unknown> };

/**
 * A registry entry's `metadata` (SPEC.md "Integration pack": the registry entry's metadata;
 * docs/integration-packs.md "GET /integration-packs/registry"). Once the file verified and
 * follows the pack format it is the document's own metadata block, which the checksum and
 * a signature cover (the index is not signed). Before that it is what the index says, with
 * `requires` and `connection_kinds` null: nothing of a file that did not verify is read.
 */
export type PackMetadata = {
  name: string;
  version: string;
  title: string;
  description: string;
  publisher: string;
  /** The service versions the pack runs on (`{service: "*"}` when the pack names none). */
  requires: { service: string } | null;
  connection_kinds: string[] | null;
};

export type PackVerdict = {
  signature_state: SignatureState;
  verified: boolean;
  available: boolean;
  refusal: PackRefusal | null;
  metadata: PackMetadata;
  /** The pack document once it verified and follows the pack rules; null otherwise. */
  pack: IntegrationPack | null;
};

/** What verification needs of the service: the publisher key, its version and the connection kinds it has. */
export type VerifyContext = { publicKey: Uint8Array | null; serviceVersion: string; connectionKinds: readonly string[] };

/** Verifies one index entry against its file's bytes (null when unreadable), in SPEC.md's order. */
export function verifyPack(entry: RegistryEntry, file: Uint8Array | null, ctx: VerifyContext): PackVerdict {
  const signature_state = signatureState(entry, file, ctx.publicKey);
  const indexed: PackMetadata = {
    name: entry.name,
    version: entry.version,
    title: entry.title,
    description: entry.description,
    publisher: entry.publisher,
    requires: null,
    connection_kinds: null,
  };
  const refuse = (code: string, message: string, params?: Record<string, unknown>): PackVerdict => ({
    signature_state,
    verified: false,
    available: false,
    refusal: params ? { code, message, params } : { code, message },
    metadata: indexed,
    pack: null,
  });
  if (file === null) return refuse('pack_file_missing', `${entry.file} cannot be read`, { file: entry.file });
  const actual = bytesToHex(sha256(file));
  if (actual !== entry.sha256)
    return refuse('pack_checksum_mismatch', `the sha256 of ${entry.file} is not the one the index pins`, { expected: entry.sha256, actual });
  if (signature_state === 'missing') return refuse('pack_signature_missing', 'a publisher key is configured and the pack is unsigned');
  if (signature_state === 'invalid') return refuse('pack_signature_invalid', 'the publisher signature does not verify');
  const read = readPackText(new TextDecoder('utf-8', { fatal: false }).decode(file));
  if (!read.ok) return refuse('pack_invalid', read.msg);
  const block = read.integrity as { digest?: unknown } | undefined;
  if (block === undefined || !read.trailing) return refuse('pack_integrity_missing', `the pack has no trailing ${INTEGRITY_KEY} block`);
  const digest = packDigest(read.data);
  if (typeof block !== 'object' || block === null || block.digest !== digest) {
    return refuse('pack_integrity_mismatch', 'the integrity digest is not the SHA-256 of the canonical YAML', { computed: digest });
  }
  if (read.data.name !== entry.name || entry.id !== entry.name)
    return refuse('pack_name_mismatch', 'the pack is not the one the index names', { index: entry.name, pack: read.data.name });
  if (read.data.version !== entry.version)
    return refuse('pack_version_mismatch', 'the pack version is not the one the index lists', { index: entry.version, pack: read.data.version });
  const verified = { signature_state, verified: true, available: false, metadata: indexed, pack: null };
  const parsed = v.safeParse(integrationPackSchema, read.data);
  if (!parsed.success) {
    const problems = parsed.issues.map((i) => ({ loc: (i.path ?? []).map((p) => p.key as string | number), msg: i.message, type: i.type }));
    return { ...verified, refusal: { code: 'pack_invalid', message: 'the pack breaks its format', params: { problems } } };
  }
  const pack = parsed.output;
  const readable = { ...verified, metadata: metadataOf(pack) };
  const problems = packProblems(pack);
  if (problems.length > 0) return { ...readable, refusal: { code: 'pack_invalid', message: 'the pack breaks its rules', params: { problems } } };
  if (!semver.satisfies(ctx.serviceVersion, pack.requires.service, { includePrerelease: true })) {
    return {
      ...readable,
      refusal: {
        code: 'pack_incompatible',
        message: `the pack needs service ${pack.requires.service}`,
        params: { requires: pack.requires.service, service: ctx.serviceVersion },
      },
    };
  }
  const unknown = pack.connection_kinds.filter((k) => !ctx.connectionKinds.includes(k));
  if (unknown.length > 0)
    return {
      ...readable,
      refusal: { code: 'pack_unknown_connection_kind', message: `unknown connection kinds: ${unknown.join(', ')}`, params: { kinds: unknown } },
    };
  return { ...readable, available: true, refusal: null, pack };
}

/** The metadata block of a pack document that verified and follows the pack format. */
function metadataOf(pack: IntegrationPack): PackMetadata {
  return {
    name: pack.name,
    version: pack.version,
    title: pack.title,
    description: pack.description,
    publisher: pack.publisher,
    requires: { service: pack.requires.service },
    connection_kinds: [...pack.connection_kinds],
  };
}

function signatureState(entry: RegistryEntry, file: Uint8Array | null, publicKey: Uint8Array | null): SignatureState {
  if (publicKey === null) return 'unverified';
  if (!entry.signature) return 'missing';
  if (file === null) return 'invalid';
  try {
    return ed25519Verify(fromBase64(entry.signature), file, publicKey) ? 'verified' : 'invalid';
  } catch {
    return 'invalid';
  }
}

export type InstallState = 'not_installed' | 'installed' | 'upgrade_available' | 'installed_ahead';

/** How the installed version (null when none) stands to the registry's. */
export function installStateOf(registryVersion: string, installedVersion: string | null): InstallState {
  if (installedVersion === null) return 'not_installed';
  const order = semver.compare(registryVersion, installedVersion);
  return order === 0 ? 'installed' : order > 0 ? 'upgrade_available' : 'installed_ahead';
}

/** A base64 ed25519 public key (SVC_PACK_PUBLIC_KEY) as its 32 bytes; throws an Error naming what is wrong. */
export function publicKeyFromBase64(text: string): Uint8Array {
  const trimmed = text.trim();
  if (!BASE64.test(trimmed)) throw new Error('the pack public key is not base64');
  const bytes = fromBase64(trimmed);
  if (bytes.length !== 32) throw new Error(`an ed25519 public key is 32 bytes, this one is ${bytes.length}`);
  return bytes;
}

/** Base64 text as bytes through the web platform's `atob` (no Node API in domain/); throws on text that is not base64. */
function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
