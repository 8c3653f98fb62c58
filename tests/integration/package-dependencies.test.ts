/**
 * package.json's `dependencies` are what the image installs (`npm ci --omit=dev` in the
 * Dockerfile), so each one must earn its place: the service's own code (domain/,
 * projections/, adapters/, runtime/, bin/) imports it, or a runtime dependency names it as
 * a peer (zod for the AI SDK and the MCP SDK). A package only the tests, benches or the
 * console's build use is a devDependency; what the service imports is never one
 * (dependency-cruiser's `service-imports-no-dev-dependency` holds that side). Issue 48.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.ts';

type PackageJson = { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
const readPackage = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;

const shippedFolders = ['domain', 'projections', 'adapters', 'runtime', 'bin'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The package a bare import specifier names (`@scope/name/sub` is `@scope/name`), or null for a relative or built-in one. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? null);
}

/** Every package the service's own code imports, statically or with `import()`. */
function importedPackages(): Set<string> {
  const found = new Set<string>();
  const importPattern = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;
  for (const folder of shippedFolders) {
    for (const file of sourceFiles(join(repoRoot, folder))) {
      for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
        const name = packageOf(match[1] ?? '');
        if (name !== null) found.add(name);
      }
    }
  }
  return found;
}

describe('package.json dependencies', () => {
  const manifest = readPackage(repoRoot);
  const runtime = Object.keys(manifest.dependencies ?? {});

  it('lists only packages the service imports or a runtime dependency needs as its peer', () => {
    const imported = importedPackages();
    const peers = new Set(runtime.flatMap((name) => Object.keys(readPackage(join(repoRoot, 'node_modules', name)).peerDependencies ?? {})));
    const unused = runtime.filter((name) => !imported.has(name) && !peers.has(name));
    expect(unused, 'runtime dependencies nothing in the service uses: move them to devDependencies or drop them').toEqual([]);
  });
});
