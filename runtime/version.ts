/**
 * This service's version, from its package.json. The file sits one folder above this module
 * in the source tree (runtime/) and in the compiled build (dist/) alike, so both read the same
 * file; it is read once, on first use.
 */
import { readFileSync } from 'node:fs';

let version: string | null = null;

/** The `version` of the service's package.json (semver text such as `0.1.0`). */
export function serviceVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
