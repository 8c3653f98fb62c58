/**
 * The OpenAPI 3.1 document of `/openapi.json` (issue 19): the operations hono-openapi
 * generates from the validating valibot schemas, each also declaring the error answers
 * every route can give, from the schemas of those bodies below: `4XX` and `500` the
 * `{detail, code, params}` body (SPEC.md "Errors" 1, 2), and `422` the framework
 * validation body `{detail: [{loc, msg, type}]}` (CONTRACTS.md section 3) on every
 * operation that takes a path, query or body. A response an operation declares itself
 * is kept.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { resolver } from 'hono-openapi';
import * as v from 'valibot';

/** `{detail, code, params}`: `detail` is English text, or a structured object a route already returned. */
export const errorBodySchema = v.object({
  detail: v.union([v.string(), v.record(v.string(), v.unknown())]),
  code: v.string(),
  params: v.record(v.string(), v.unknown()),
});

/** The 422 body of a request that failed validation: where (`loc`), what (`msg`) and which kind (`type`). */
export const validationErrorSchema = v.object({
  detail: v.array(v.object({ loc: v.array(v.union([v.string(), v.number()])), msg: v.string(), type: v.string() })),
});

/**
 * A JSON answer of `schema` for describeRoute's `responses`, e.g.
 * `describeRoute({ summary, responses: { 200: jsonAnswer(caseSchema, 'The case') } })`.
 * Tests check every answer a route gives against what its operation declares
 * (tests/support/openapi-check.ts), so the document cannot drift from the code.
 */
export function jsonAnswer(schema: v.GenericSchema, description: string) {
  return { description, content: { 'application/json': { schema: resolver(schema) } } };
}

type Operation = { parameters?: unknown[]; requestBody?: unknown; responses?: Record<string, unknown> };
type Document = { paths?: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>> };

const ref = (name: string, description: string) => ({ description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } });

/** A 422 is either the framework's validation body or a domain rule's refusal (SPEC.md "Errors": acknowledging a closed case). */
const unprocessable = {
  description: 'The request failed validation, or a rule refused it',
  content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/ErrorBody' }] } } },
};

/** `doc` with the error schemas in `components` and the error responses on every operation (a new object). */
export function withErrorResponses<D extends Document>(doc: D): D {
  const paths = Object.fromEntries(
    Object.entries(doc.paths ?? {}).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, op]) => {
          const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
          const errors = {
            ...(takesInput ? { '422': unprocessable } : {}),
            '4XX': ref('ErrorBody', 'Refused: `{detail, code, params}`'),
            '500': ref('ErrorBody', 'Unhandled failure, code `internal_error`'),
          };
          return [method, { ...op, responses: { ...errors, ...(op.responses ?? {}) } }];
        }),
      ),
    ]),
  );
  const schemas = {
    ...(doc.components?.schemas ?? {}),
    ErrorBody: toJsonSchema(errorBodySchema, { errorMode: 'ignore' }),
    ValidationError: toJsonSchema(validationErrorSchema, { errorMode: 'ignore' }),
  };
  return { ...doc, paths, components: { ...(doc.components ?? {}), schemas } };
}
