/**
 * Reads the pack registry from its folder (SVC_PACKS_DIR, default `./packs`; SPEC.md
 * "Integration packs": the shipped index, format `pack-registry` version 1): `index.yaml`
 * and each pack file it names, then verifies every entry (domain/integration-packs/registry.ts).
 * Read on every request, so a registry edited since a preview is seen by the install
 * that follows it. A folder without `index.yaml` is an empty registry; an index that is
 * not `pack-registry` version 1 is 503 `pack_registry_invalid`, naming its problems.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import { readPackText } from '../../domain/integration-packs/integrity.ts';
import {
  packRegistrySchema,
  verifyPack,
  type PackRegistry,
  type PackVerdict,
  type RegistryEntry,
  type VerifyContext,
} from '../../domain/integration-packs/registry.ts';
import { DomainError } from '../../domain/shared/errors.ts';

export const INDEX_FILE = 'index.yaml';
/** Largest pack file read, bytes: a pack of 100 actions with fixtures stays far below it. */
export const MAX_PACK_BYTES = 2 * 1024 * 1024;

export type RegistryItem = { entry: RegistryEntry; verdict: PackVerdict; bytes: Uint8Array | null };

/** The index of `dir` as data; throws DomainError 503 `pack_registry_invalid`. */
export async function readRegistryIndex(dir: string): Promise<PackRegistry> {
  const text = await readCapped(join(dir, INDEX_FILE));
  if (text === null) return { format: 'pack-registry', version: 1, packs: [] };
  const read = readPackText(new TextDecoder().decode(text));
  if (!read.ok) throw invalid([{ loc: [], msg: read.msg }]);
  const parsed = v.safeParse(packRegistrySchema, read.data);
  if (!parsed.success) throw invalid(parsed.issues.map((i) => ({ loc: (i.path ?? []).map((p) => p.key as string | number), msg: i.message })));
  return parsed.output;
}

/** Every entry of the registry in `dir` with its verdict and the file's bytes (null when unreadable). */
export async function readRegistry(dir: string, ctx: VerifyContext): Promise<RegistryItem[]> {
  const index = await readRegistryIndex(dir);
  return Promise.all(
    index.packs.map(async (entry) => {
      const bytes = await readCapped(join(dir, entry.file));
      return { entry, verdict: verifyPack(entry, bytes, ctx), bytes };
    }),
  );
}

/** One entry by id; 404 `pack_not_found` when the index does not list it. */
export async function readRegistryItem(dir: string, packId: string, ctx: VerifyContext): Promise<RegistryItem> {
  const found = (await readRegistry(dir, ctx)).find((i) => i.entry.id === packId);
  if (!found) throw new DomainError('pack_not_found', 404, `the registry lists no pack ${packId}`, { pack_id: packId });
  return found;
}

/** A file's bytes, or null when it is absent, unreadable or larger than MAX_PACK_BYTES. */
async function readCapped(path: string): Promise<Uint8Array | null> {
  try {
    const bytes = await readFile(path);
    return bytes.length > MAX_PACK_BYTES ? null : new Uint8Array(bytes);
  } catch {
    return null;
  }
}

function invalid(problems: { loc: (string | number)[]; msg: string }[]): DomainError {
  return new DomainError('pack_registry_invalid', 503, `${INDEX_FILE} is not a pack-registry version 1 index`, { problems });
}
