/**
 * `POST /custom-actions/import/openapi` (`manage_connections` through a realm grant, as
 * custom actions are install-wide; SPEC.md "Actions and connections", "OpenAPI import
 * rules"; docs/configuration.md "OpenAPI import"): body
 * `{document, name_prefix}`, the OpenAPI 3.0 or 3.1 text (JSON or YAML) and the
 * `custom.<segment>` prefix of the generated names; answer `{title, openapi_version,
 * server_url, server_path_prefix, drafts, skipped}`. Writes nothing: no event, no row, no
 * audit entry; the analyst saves the drafts they want through `POST /custom-actions`.
 *
 * Size: a document over SVC_MAX_OPENAPI_KB KiB (UTF-8) is 413 `openapi_document_too_large`.
 * So that a document up to that cap is accepted even when it is larger than the general
 * request body limit (SVC_MAX_BODY_BYTES), this route's body has its own limit
 * (`openApiImportBodyLimit`, skipped by the general one): twice the cap (a document sent as
 * a JSON string grows by its escapes) plus 64 KiB, and never less than the general limit.
 * A body past that is 413 `payload_too_large` before it is read.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyUpTo } from './request-body.ts';
import { createMiddleware } from 'hono/factory';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import { importOpenApi, OPENAPI_IMPORT_MAX_DRAFTS, OPENAPI_NAME_PREFIX } from '../../domain/custom-actions/openapi-import.ts';
import { httpMethods } from '../../domain/custom-actions/spec.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { loadOpenApiDocument } from '../custom-actions/openapi-document.ts';
import { requirePermission } from './auth.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';
import { requireJson, validate } from './validation.ts';

/** What the import route reads of the service (adapters/http/deps.ts). */
export type CustomActionImportRouteDeps = Pick<HttpDeps, 'permissions' | 'maxBodyBytes' | 'maxOpenApiBytes'>;

/** Room in the import's body beyond twice the document cap: the name prefix, the keys, the braces. */
const BODY_FRAMING_BYTES = 64 * 1024;
const importPath = /\/custom-actions\/import\/openapi$/;

/** The request the general body limit skips: an import, held to `openApiImportBodyLimit` instead. */
export const isOpenApiImport = (c: Context) => c.req.method === 'POST' && importPath.test(c.req.path);

/** Largest body of an import, bytes: twice the document cap plus framing, at least the general limit. */
export const openApiImportBodyBytes = (deps: Pick<HttpDeps, 'maxBodyBytes' | 'maxOpenApiBytes'>) =>
  Math.max(deps.maxBodyBytes, deps.maxOpenApiBytes * 2 + BODY_FRAMING_BYTES);

/** The body limit of an import request (every other request passes through untouched). */
export function openApiImportBodyLimit(deps: Pick<HttpDeps, 'maxBodyBytes' | 'maxOpenApiBytes'>) {
  const limit = bodyUpTo(openApiImportBodyBytes(deps));
  return createMiddleware(async (c, next) => (isOpenApiImport(c) ? limit(c, next) : next()));
}

const importBody = v.object({
  document: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  name_prefix: v.pipe(v.string(), v.regex(OPENAPI_NAME_PREFIX, 'custom. and one or two lower-case segments, e.g. custom.github')),
});

const template = v.string();
/** A draft's spec as the import writes it: every field of a custom action, explicit. */
const draftSpecSchema = v.strictObject({
  name: v.string(),
  title: v.string(),
  description: v.string(),
  transport: v.literal('http'),
  enabled: v.literal(false),
  default_connection: v.null(),
  inputs: v.array(
    v.strictObject({
      name: v.string(),
      type: v.picklist(['string', 'integer', 'number', 'boolean']),
      required: v.boolean(),
      description: v.string(),
      secret: v.literal(false),
    }),
  ),
  http: v.strictObject({
    method: v.picklist(httpMethods),
    path: v.string(),
    headers: v.record(v.string(), template),
    query: v.record(v.string(), template),
    body: v.nullable(v.record(v.string(), template)),
  }),
  ssh: v.null(),
  outputs: v.array(v.strictObject({ name: v.string(), path: v.string(), type: v.picklist(['string', 'integer', 'number', 'boolean']) })),
  timeout_s: v.number(),
  max_attempts: v.literal(1),
  redact: v.array(v.string()),
  effect_type: v.literal('arbitrary'),
  risk: v.literal('arbitrary'),
  target: v.null(),
  max_targets: v.null(),
  idempotency_key: v.null(),
  compensation: v.null(),
});

/** The answer: drafts to review and save, and what was left out with why. */
const importAnswerSchema = v.strictObject({
  title: v.string(),
  openapi_version: v.string(),
  server_url: v.nullable(v.string()),
  server_path_prefix: v.string(),
  drafts: v.array(
    v.strictObject({
      spec: draftSpecSchema,
      method: v.picklist(httpMethods),
      path: v.string(),
      suggested_risk: v.picklist(['read', 'write']),
      notes: v.array(v.string()),
    }),
  ),
  skipped: v.array(v.strictObject({ location: v.string(), reason: v.string() })),
});

export function customActionImportRoutes(deps: CustomActionImportRouteDeps) {
  const manage = requirePermission('manage_connections', 'svc:connections:write', deps.permissions, null);
  const maxKb = Math.floor(deps.maxOpenApiBytes / 1024);
  return new Hono<AppEnv>().post(
    '/custom-actions/import/openapi',
    describeRoute({
      summary: `Draft custom actions from an OpenAPI 3.0 or 3.1 document (JSON or YAML, at most SVC_MAX_OPENAPI_KB KiB, ${OPENAPI_IMPORT_MAX_DRAFTS} drafts); writes nothing`,
      description:
        'Every draft is disabled, arbitrary and unbounded, with no authentication and no secret input. 413 `openapi_document_too_large` past the size cap; 422 `openapi_malformed`, `openapi_not_a_document`, `openapi_version_unsupported` (Swagger 2.0 included), `openapi_external_ref` (never fetched), `openapi_ref_cycle`, `openapi_invalid`.',
      tags: ['custom-actions'],
      responses: { 200: jsonAnswer(importAnswerSchema, 'The drafts, and each operation, parameter or body left out with its reason') },
    }),
    manage,
    requireJson,
    validate('json', importBody),
    async (c) => {
      const { document, name_prefix } = c.req.valid('json');
      const bytes = Buffer.byteLength(document, 'utf8');
      if (bytes > deps.maxOpenApiBytes) {
        throw new DomainError('openapi_document_too_large', 413, `the document is ${bytes} bytes, over the ${maxKb} KiB cap (SVC_MAX_OPENAPI_KB)`, {
          max_kb: maxKb,
          size_bytes: bytes,
        });
      }
      const loaded = await loadOpenApiDocument(document);
      return c.json(importOpenApi(loaded, { namePrefix: name_prefix }));
    },
  );
}
