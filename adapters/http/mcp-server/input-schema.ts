/**
 * Tool input schemas and arguments (SPEC.md "Peer endpoints", `/peer/v1/mcp`). A tool's
 * `inputSchema` is its route's own input, read from the operation `/openapi.json` declares
 * for it, which hono-openapi generates from the very valibot schemas the route validates
 * with (adapters/http/validation.ts): path parameters, query parameters and the JSON
 * body's members merged into one object, plus `idempotency_key` on an effectful tool.
 * No name may appear in two parts: a tool whose route breaks that, or is missing from the
 * document, fails the catalogue (server.ts), so tools.ts cannot drift from the routes.
 *
 * Arguments go back where their names came from: path parameters into the path
 * (percent-encoded; empty and dot segments refused, so a call reaches its own route only),
 * query parameters into the query (numbers and booleans written out, since a query value
 * is text; a list repeats the parameter), the rest into the JSON body, which a route that
 * reads one always gets (`{}` when no member is given). The route then validates them
 * exactly as it validates a REST request, and answers as it would.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { unprocessable } from '../../../domain/shared/errors.ts';
import { isEffectful, type ToolRoute } from './tools.ts';

export type JsonSchema = Record<string, unknown>;
type Parameter = { in: string; name: string; required?: boolean; schema?: JsonSchema };
type Operation = { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } };
/** The part of the OpenAPI document this module reads. */
export type OpenApiDocument = { paths?: Record<string, Record<string, Operation>> };

type Part = 'path' | 'query' | 'body' | 'key';

/** A tool's input: its `inputSchema`, where each argument goes, and whether the route reads a JSON body. */
export type ToolInput = {
  schema: { type: 'object'; properties: Record<string, JsonSchema>; required: string[]; additionalProperties: false };
  parts: Record<string, Part>;
  takesBody: boolean;
};

/** The argument an effectful tool requires. */
export const IDEMPOTENCY_KEY = 'idempotency_key';

/** An `idempotency_key`: 1 to 200 characters, chosen by the caller. */
export const idempotencyKeySchema = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

/** A call's arguments sorted by where they go; `rest` is every argument but the key (what the idempotency digest covers). */
export type RoutedArguments = {
  path: Record<string, string>;
  query: [string, string][];
  body: Record<string, unknown> | null;
  key: string | null;
  rest: Record<string, unknown>;
};

/** `/cases/:id` as OpenAPI spells it, `/cases/{id}`. */
const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const withoutDialect = ({ $schema: _, ...schema }: JsonSchema): JsonSchema => schema;

/**
 * The input of `tool` from `doc` (the service's `/openapi.json`).
 * @throws Error when the document has no such operation, its body is not a JSON object, or two parts share a name.
 */
export function toolInput(tool: ToolRoute, doc: OpenApiDocument): ToolInput {
  const operation = doc.paths?.[openApiPath(tool.path)]?.[tool.method.toLowerCase()];
  if (operation === undefined) throw new Error(`MCP tool ${tool.name}: ${tool.method} ${tool.path} is not an operation of /openapi.json`);
  const input: ToolInput = { schema: { type: 'object', properties: {}, required: [], additionalProperties: false }, parts: {}, takesBody: false };
  const add = (name: string, part: Part, schema: JsonSchema, required: boolean) => {
    if (name in input.parts) throw new Error(`MCP tool ${tool.name}: argument ${name} is both ${input.parts[name]} and ${part}`);
    input.parts[name] = part;
    input.schema.properties[name] = schema;
    if (required) input.schema.required.push(name);
  };
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'path' && parameter.in !== 'query')
      throw new Error(`MCP tool ${tool.name}: ${parameter.in} parameter ${parameter.name} cannot be an argument`);
    add(parameter.name, parameter.in, parameter.schema ?? {}, parameter.in === 'path' || parameter.required === true);
  }
  const body = operation.requestBody?.content?.['application/json']?.schema;
  if (body !== undefined) {
    const members = body.properties;
    if (body.type !== 'object' || typeof members !== 'object' || members === null) throw new Error(`MCP tool ${tool.name}: the body is not a JSON object`);
    const required = Array.isArray(body.required) ? body.required : [];
    for (const [name, schema] of Object.entries(members as Record<string, JsonSchema>)) add(name, 'body', schema, required.includes(name));
    input.takesBody = true;
  }
  if (isEffectful(tool)) add(IDEMPOTENCY_KEY, 'key', withoutDialect(toJsonSchema(idempotencyKeySchema) as JsonSchema), true);
  return input;
}

const invalid = (detail: string, params: Record<string, unknown>) => unprocessable('invalid_arguments', detail, params);

/** A query value as text: a string as it is, a number or boolean written out; anything else is not a query value. */
function queryText(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalid(`argument ${name} must be text, a number or a boolean`, { argument: name });
}

/**
 * Sorts `args` for `input`.
 * @throws DomainError 422 `idempotency_key_required` or `idempotency_key_invalid` (effectful tools),
 *   then 422 `invalid_arguments` for an unknown argument, a missing, non-text, empty or
 *   dot-segment path parameter, or a query value that is not text, a number, a boolean or a list of them.
 */
export function routeArguments(input: ToolInput, args: Record<string, unknown>): RoutedArguments {
  let key: string | null = null;
  if (input.parts[IDEMPOTENCY_KEY] === 'key') {
    const given = args[IDEMPOTENCY_KEY];
    if (given === undefined) throw unprocessable('idempotency_key_required', 'an effectful tool requires an idempotency_key argument', {});
    const parsed = v.safeParse(idempotencyKeySchema, given);
    if (!parsed.success) throw unprocessable('idempotency_key_invalid', 'idempotency_key must be text of 1 to 200 characters', {});
    key = parsed.output;
  }
  const unknown = Object.keys(args).filter((name) => !(name in input.parts));
  if (unknown.length > 0) throw invalid(`unknown arguments: ${unknown.join(', ')}`, { unknown });
  const routed: RoutedArguments = { path: {}, query: [], body: input.takesBody ? {} : null, key, rest: {} };
  for (const [name, part] of Object.entries(input.parts)) {
    const value = args[name];
    if (part === 'path') {
      if (typeof value !== 'string' && typeof value !== 'number') throw invalid(`argument ${name} is required as text`, { argument: name });
      // An empty or dot segment would make the URL name another route than the tool's.
      if (value === '' || value === '.' || value === '..') throw invalid(`argument ${name} may not be empty, . or ..`, { argument: name });
      routed.path[name] = String(value);
    }
    if (value === undefined || part === 'key') continue;
    routed.rest[name] = value;
    if (part === 'query' && value !== null) {
      for (const item of Array.isArray(value) ? value : [value]) routed.query.push([name, queryText(name, item)]);
    }
    if (part === 'body' && routed.body !== null) routed.body[name] = value;
  }
  return routed;
}
