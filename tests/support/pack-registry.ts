/**
 * Builds integration packs and a registry folder for tests (docs/integration-packs.md):
 * pack YAML with its integrity block, and `index.yaml` pinning each file's sha256 and,
 * when given, a publisher signature.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { withIntegrity } from '../../domain/integration-packs/integrity.ts';

export type TestPack = { name: string; version: string; actions: Record<string, unknown>[]; connection_kinds?: string[]; requires?: Record<string, string> };

/** The pack document of `pack` with its integrity block. */
export function packText(pack: TestPack): string {
  const built = withIntegrity(
    stringify({
      format: 'integration-pack',
      format_version: 1,
      name: pack.name,
      version: pack.version,
      title: `${pack.name} test pack`,
      publisher: 'svc tests',
      ...(pack.requires ? { requires: pack.requires } : {}),
      connection_kinds: pack.connection_kinds ?? ['http'],
      actions: pack.actions,
    }),
  );
  if (!built.ok) throw new Error(built.msg);
  return built.text;
}

export type RegistryFile = { id: string; version: string; text: string | Buffer; signature?: string; sha256?: string };

/** Writes each pack file and `index.yaml` into `dir`; an entry's `sha256` defaults to its file's. */
export function writeRegistry(dir: string, files: RegistryFile[]): void {
  const packs = files.map((f) => {
    const file = `${f.id}.yaml`;
    writeFileSync(join(dir, file), f.text);
    const sha256 = f.sha256 ?? createHash('sha256').update(f.text).digest('hex');
    return { id: f.id, name: f.id, version: f.version, file, sha256, signature: f.signature ?? null, title: `${f.id} test pack`, publisher: 'svc tests' };
  });
  writeFileSync(join(dir, 'index.yaml'), stringify({ format: 'pack-registry', version: 1, packs }));
}
