/**
 * Request validation with valibot schemas through hono-openapi's `validator`, so the
 * OpenAPI document (`/openapi.json`) is generated from the very schemas that
 * validate requests. Failures become ValidationFailed: 422 with
 * `{detail: [{loc: ['body'|'query'|'path', ...], msg, type}]}` (CONTRACTS.md section 3).
 */
import { HTTPException } from 'hono/http-exception';
import { createMiddleware } from 'hono/factory';
import { validator } from 'hono-openapi';
import type { GenericSchema } from 'valibot';
import { ValidationFailed, type ValidationIssue } from '../../domain/shared/errors.ts';

type Target = 'json' | 'query' | 'param';
const locRoot: Record<Target, string> = { json: 'body', query: 'query', param: 'path' };

type StandardIssue = { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> };

/** Maps Standard Schema issues to the 422 `detail` items. */
export function toValidationIssues(target: Target, issues: readonly StandardIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    loc: [locRoot[target], ...(issue.path ?? []).map((p) => (typeof p === 'object' ? String(p.key) : String(p)))].map((p) =>
      /^\d+$/.test(String(p)) ? Number(p) : String(p),
    ),
    msg: issue.message,
    type: 'value_error',
  }));
}

/** Validates one request part against `schema`; the typed value is `c.req.valid(target)`. */
export function validate<T extends Target, S extends GenericSchema>(target: T, schema: S) {
  return validator(target, schema, (result) => {
    if (!result.success) throw new ValidationFailed(toValidationIssues(target, result.error as StandardIssue[]));
  });
}

/**
 * Refuses a body that is not JSON (415) or not parseable JSON (400 `malformed_json`)
 * before validation runs, so every failure has the spec's error shape.
 */
export const requireJson = createMiddleware(async (c, next) => {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) {
    throw new HTTPException(415, { message: 'request body must be application/json' });
  }
  try {
    await c.req.json();
  } catch {
    throw new ValidationFailed([{ loc: ['body'], msg: 'request body is not valid JSON', type: 'json_invalid' }]);
  }
  await next();
});
