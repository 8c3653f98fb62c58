/**
 * Paths to the shared vendor fixtures (`../shared/fixtures` beside the repo).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const fixturesRoot = resolve(repoRoot, '../shared/fixtures');

/** Absolute path of a file under shared/fixtures. */
export function fixturePath(...parts: string[]): string {
  return resolve(fixturesRoot, ...parts);
}

/** Parsed JSON of a file under shared/fixtures. */
export function readFixtureJson<T = unknown>(...parts: string[]): T {
  return JSON.parse(readFileSync(fixturePath(...parts), 'utf8')) as T;
}
