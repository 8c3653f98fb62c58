/**
 * Reads an OpenAPI document for the import (domain/custom-actions/openapi-import.ts):
 * the text checked by `readOpenApiText`, then every `$ref` replaced by what it points to
 * with @readme/openapi-parser (the maintained fork of swagger-parser: OpenAPI 3.0 and
 * 3.1, JSON pointer escapes, `$ref`s anywhere, cycle detection).
 *
 * No I/O: the library is handed the parsed object, never a path or URL, with external
 * resolution and file access off, and `readOpenApiText` has already refused any `$ref`
 * that is not a local `#/...` pointer, so nothing is ever fetched or read. A `$ref` cycle
 * is refused (422 `openapi_ref_cycle`, naming where): drafts are built from plain trees.
 * A pointer to nothing, or any other failure of the library, is 422 `openapi_invalid`.
 */
import type { dereference as Dereference } from '@readme/openapi-parser';
import { readOpenApiText } from '../../domain/custom-actions/openapi-import.ts';
import { unprocessable } from '../../domain/shared/errors.ts';

/** Longest one dereference may take before the document is refused. */
const DEREFERENCE_TIMEOUT_MS = 20_000;

/** The OpenAPI document in `source` (JSON or YAML), dereferenced; throws 422 DomainErrors. */
export async function loadOpenApiDocument(source: string): Promise<Record<string, unknown>> {
  const document = readOpenApiText(source);
  const cycles: string[] = [];
  let dereferenced: unknown;
  // Loaded on first use, not at every start of the service (docs/operations.md "The compiled build").
  const { dereference } = await import('@readme/openapi-parser');
  try {
    dereferenced = await dereference(document as Parameters<typeof Dereference>[0], {
      resolve: { external: false, file: false },
      dereference: { circular: 'ignore', onCircular: (path) => cycles.push(localPointer(path)) },
      timeoutMs: DEREFERENCE_TIMEOUT_MS,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw unprocessable('openapi_invalid', clip(`the document's $refs do not resolve: ${withoutBase(message)}`, 500));
  }
  if (cycles.length > 0) {
    const where = [...new Set(cycles)];
    throw unprocessable(
      'openapi_ref_cycle',
      `the document's $refs form a cycle at ${clip(where.slice(0, 3).join(', '), 300)}: recursive schemas are not imported`,
      { cycles: where.slice(0, 10).map((p) => clip(p, 200)), count: where.length },
    );
  }
  if (typeof dereferenced !== 'object' || dereferenced === null || Array.isArray(dereferenced)) {
    throw unprocessable('openapi_invalid', 'the dereferenced document is not an object');
  }
  return dereferenced as Record<string, unknown>;
}

/**
 * The library reports places as `<base>#/pointer`, the base being the process's working
 * directory for a document handed over as an object: only the pointer is the document's.
 */
function localPointer(path: string): string {
  const hash = path.indexOf('#');
  return hash === -1 ? path : path.slice(hash);
}

function withoutBase(message: string): string {
  return message.replace(/(?:file:\/\/)?\/[^\s"']*?(#[^\s"']*)/g, '$1');
}

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
