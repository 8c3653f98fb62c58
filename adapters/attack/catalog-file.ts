/**
 * The ATT&CK catalog of this install (SVC_ATTACK_CATALOG, docs/configuration.md "ATT&CK
 * catalog"): a STIX 2.1 bundle on disk, read and parsed on first use (MITRE's enterprise
 * bundle is tens of megabytes, and the start must stay quick), then kept for the life of
 * the process. A read that fails is tried again on the next use, so a file fixed in place
 * needs no restart.
 */
import { readFile } from 'node:fs/promises';
import { type AttackCatalog, AttackCatalogError, catalogFromStix } from '../../domain/attack/catalog.ts';

/** Where technique names come from: `load` answers null when no catalog is set. */
export type AttackCatalogSource = { load(): Promise<AttackCatalog | null> };

/** The bundle at `path` as a catalog; throws `AttackCatalogError` (the reason in words) when it cannot be read or is not ATT&CK. */
async function readCatalog(path: string): Promise<AttackCatalog> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AttackCatalogError(`cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  let bundle: unknown;
  try {
    bundle = JSON.parse(text);
  } catch {
    throw new AttackCatalogError('the file is not JSON');
  }
  return catalogFromStix(bundle);
}

/** The catalog at `path`, or none when `path` is null. */
export function attackCatalogFile(path: string | null): AttackCatalogSource {
  if (path === null) return { load: async () => null };
  let loading: Promise<AttackCatalog> | null = null;
  return {
    load() {
      if (!loading) {
        const attempt = readCatalog(path);
        loading = attempt;
        attempt.catch(() => {
          if (loading === attempt) loading = null;
        });
      }
      return loading;
    },
  };
}
