/**
 * Request validation with valibot schemas through hono-openapi's `validator`, so the
 * OpenAPI document (`/openapi.json`) is generated from the very schemas that
 * validate requests. Failures become ValidationFailed: 422 with
 * `{detail: [{loc: ['body'|'query'|'path', ...], msg, type}]}` (CONTRACTS.md section 3).
 */
import { HTTPException } from 'hono/http-exception';
import { createMiddleware } from 'hono/factory';
import { validator } from 'hono-openapi';
import { safeParse, type GenericSchema, type InferOutput } from 'valibot';
import { ValidationFailed, type ValidationIssue } from '../../domain/shared/errors.ts';
import { firstJsonProblem, hasBadText, repairJsonText, type JsonPath } from '../../domain/shared/json-text.ts';

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

/**
 * Validates one request part against `schema`; the typed value is `c.req.valid(target)`.
 * An array where `schema` describes an object is refused, 422 `type_error` at the part.
 */
export function validate<T extends Target, S extends GenericSchema>(target: T, schema: S) {
  return validator(target, schema, (result) => {
    if (arrayForObject(schema, result.data)) throw arrayRefused(target);
    if (!result.success) throw validationFailure(target, schema, result.data, result.error as readonly StandardIssue[]);
  });
}

/**
 * Validates a JSON body whose schema depends on the request (a webhook source's type)
 * exactly as `validate('json', schema)` would; throws the same ValidationFailed.
 */
export function parseBody<S extends GenericSchema>(schema: S, data: unknown): InferOutput<S> {
  if (arrayForObject(schema, data)) throw arrayRefused('json');
  const result = safeParse(schema, data);
  if (!result.success)
    throw validationFailure(
      'json',
      schema,
      data,
      result.issues.map((i) => ({ message: i.message, path: i.path?.map((p) => ({ key: p.key as PropertyKey })) })),
    );
  return result.output;
}

function validationFailure(target: Target, schema: GenericSchema, data: unknown, issues: readonly StandardIssue[]): ValidationFailed {
  const option = unionOptionFor(schema, data);
  const detailed =
    option === null
      ? issues
      : (safeParse(option, data).issues?.map((i) => ({ message: i.message, path: i.path?.map((p) => ({ key: p.key as PropertyKey })) })) ?? issues);
  return new ValidationFailed(toValidationIssues(target, detailed));
}

const objectTypes = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest']);

/**
 * Whether `data` is an array where `schema` describes a JSON object. valibot reads an
 * array as an object with keys "0", "1"..., so an object schema whose fields are all
 * optional (or a record) takes `[]` as `{}`, and a failing one names fields the sender
 * never meant: both are refused as what is really wrong.
 */
function arrayForObject(schema: GenericSchema, data: unknown): boolean {
  return Array.isArray(data) && describesObject(schema);
}

/** An object, record or variant schema, through optional and nullable wrappers, or a union or intersection of only such. */
function describesObject(schema: GenericSchema): boolean {
  const { type, wrapped, options } = schema as GenericSchema & { wrapped?: GenericSchema; options?: readonly GenericSchema[] };
  if (objectTypes.has(type) || type === 'record' || type === 'variant') return true;
  if (wrapped !== undefined) return describesObject(wrapped);
  if ((type === 'union' || type === 'intersect') && options !== undefined) return options.every(describesObject);
  return false;
}

const arrayRefused = (target: Target): ValidationFailed =>
  new ValidationFailed([{ loc: [locRoot[target]], msg: `${locRoot[target]} must be a JSON object, not an array`, type: 'type_error' }]);

/**
 * The one option of a union of an array and an object schema (as one-or-many bodies
 * are) that fits the value's JSON kind, or null. A failing union only says "expected
 * Object | Array"; the fitting option's issues locate the offending field.
 */
function unionOptionFor(schema: GenericSchema, value: unknown): GenericSchema | null {
  if (schema.type !== 'union') return null;
  const { options } = schema as unknown as { options: GenericSchema[] };
  const isArray = Array.isArray(value);
  const isObject = typeof value === 'object' && value !== null && !isArray;
  const fitting = options.filter((o) => (isArray && o.type === 'array') || (isObject && objectTypes.has(o.type)));
  return fitting.length === 1 ? (fitting[0] ?? null) : null;
}

/**
 * Whether a Content-Type header names JSON: `application/json` or `application/<x>+json`,
 * parameters aside. This is the very test Hono's json validator makes: it validates `{}`
 * in place of a body it does not read, so a looser test here would hand an
 * `application/json-seq` body's route a stand-in the schema passes.
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return /^application\/([\w.-]+\+)?json$/i.test((contentType ?? '').split(';')[0]?.trim() ?? '');
}

/**
 * Refuses a body that is not JSON (415) or not parseable JSON (422 `json_invalid` at `body`)
 * before validation runs, so every failure has the spec's error shape.
 */
export const requireJson = createMiddleware(async (c, next) => {
  if (!isJsonMediaType(c.req.header('content-type'))) {
    throw new HTTPException(415, { message: 'request body must be application/json' });
  }
  try {
    await c.req.json();
  } catch {
    throw new ValidationFailed([{ loc: ['body'], msg: 'request body is not valid JSON', type: 'json_invalid' }]);
  }
  await next();
});

/** What the intake JSON guard replaced in a body, by path: kept on the request for the answer and the alerts. */
export type TextRepairs = { textRepairs: JsonPath[] };

/**
 * Guards every JSON request body before any route reads it (issue 19): a body nested
 * deeper than `maxDepth` is 422 `json_too_deep` at the offending path (recursive readers
 * would overflow the stack), and a key or string holding a NUL or an unpaired surrogate
 * (which PostgreSQL cannot store) is 422 `text_invalid` in `refuse` mode (API routes).
 * In `repair` mode (intake) such characters become U+FFFD instead, the repaired body
 * replaces the one the routes read, and the paths are kept as `textRepairs`, so no
 * alert is ever lost to a character. Bodies that are not JSON, or not parseable, pass
 * untouched: `requireJson` answers for them.
 */
export function jsonGuard(mode: 'refuse' | 'repair', maxDepth: number) {
  return createMiddleware<{ Variables: TextRepairs }>(async (c, next) => {
    if (!isJsonMediaType(c.req.header('content-type')) || c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return next();
    }
    const problem = firstJsonProblem(body, maxDepth);
    if (problem?.kind === 'too_deep') {
      throw new ValidationFailed([{ loc: ['body', ...problem.path], msg: `JSON nested deeper than ${maxDepth} levels`, type: 'json_too_deep' }]);
    }
    if (problem?.kind === 'bad_text') {
      if (mode === 'refuse') {
        throw new ValidationFailed([textInvalid(['body', ...problem.path])]);
      }
      const { value, repaired } = repairJsonText(body);
      // Hono keeps the pending body text in this cache (typed as the text itself); every later json() reads it.
      (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(JSON.stringify(value));
      c.set('textRepairs', repaired);
    }
    await next();
  });
}

/**
 * Refuses a path or a query parameter (name or value) holding a NUL or an unpaired
 * surrogate with 422 `text_invalid` at `["path"]` or `["query", name]`, before any route
 * hands it to the database.
 */
export const urlTextGuard = createMiddleware(async (c, next) => {
  if (pathHasBadText(new URL(c.req.url).pathname)) {
    throw new ValidationFailed([textInvalid(['path'])]);
  }
  for (const [name, values] of Object.entries(c.req.queries())) {
    if ([name, ...values].some(hasBadText)) {
      throw new ValidationFailed([textInvalid(['query', name])]);
    }
  }
  await next();
});

/** Whether the raw (still percent-encoded) path decodes to bad text; a malformed escape (invalid UTF-8) counts as bad. */
function pathHasBadText(path: string): boolean {
  try {
    return hasBadText(decodeURIComponent(path));
  } catch {
    return true;
  }
}

/** The 422 issue of a NUL character or an unpaired surrogate at `loc`. */
const textInvalid = (loc: (string | number)[]): ValidationIssue => ({
  loc,
  msg: 'text must not contain NUL characters or unpaired UTF-16 surrogates',
  type: 'text_invalid',
});
