/**
 * Rendering a custom action's request from its spec and a step's inputs, and reading its
 * declared outputs back, with no I/O (docs/configuration.md "Custom actions"): the one
 * implementation behind the runnable action (adapters/actions/custom-action.ts) and the
 * integration pack test (domain/integration-packs/pack-test.ts), so a fixture is checked
 * with exactly what a run does.
 *
 * The spec was validated when it was saved (spec.ts, templates.ts), so rendering is plain
 * substitution of `{{ inputs.<name> }}` placeholders by declared input values. A field
 * whose placeholders all name inputs the step left out is not sent. Failures are
 * RenderFailures, final by nature: the same inputs render the same way every time.
 */
import { bodyFieldPath, closeBodyHoles, placeBodyValue } from './body-path.ts';
import { OUTPUT_PATH_PARTS } from './output-path.ts';
import * as v from 'valibot';
import type { StoredCustomActionSpec } from './spec.ts';
import { placeholderInputs } from './templates.ts';
import { isXmlContentType, readXmlAnswer } from './xml-answer.ts';

export type Scalar = string | number | boolean;
/** A step's inputs; an optional one may be absent or null (a template that rendered to nothing), both meaning absent. */
export type CustomInputs = Record<string, Scalar | null | undefined>;
type ValueType = StoredCustomActionSpec['inputs'][number]['type'];

/**
 * Inputs that cannot make a request: `path_segment_empty`, `header_invalid` (CR, LF or
 * other characters a header cannot carry) or `header_refused` (a declared header that is
 * the connection's auth header).
 */
export class RenderFailure extends Error {
  constructor(
    readonly type: 'path_segment_empty' | 'header_invalid' | 'header_refused',
    message: string,
  ) {
    super(message);
    this.name = 'RenderFailure';
  }
}

const PLACEHOLDER = /\{\{[\s\S]*?\}\}/g;
/** A template that is exactly one placeholder. */
const WHOLE_PLACEHOLDER = /^\{\{[^{}]*\}\}$/;
// Field value characters fetch can send (RFC 9110 section 5.5): no CR, LF, NUL, nothing beyond Latin-1.
const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;

const scalarSchema = (type: ValueType): v.GenericSchema<unknown, Scalar> => {
  switch (type) {
    case 'string':
      return v.string();
    case 'integer':
      return v.pipe(v.number(), v.integer());
    case 'number':
      return v.pipe(v.number(), v.finite());
    case 'boolean':
      return v.boolean();
  }
};

/** The step's `with` (connection aside): a strict object of the declared inputs. */
export function customInputSchema(spec: StoredCustomActionSpec): v.GenericSchema<unknown, CustomInputs> {
  const entries = Object.fromEntries(spec.inputs.map((i) => [i.name, i.required ? scalarSchema(i.type) : v.nullish(scalarSchema(i.type))]));
  return v.strictObject(entries) as unknown as v.GenericSchema<unknown, CustomInputs>;
}

/** The action's output: each declared output as its type or null, and `exit_code` for ssh. */
export function customOutputSchema(spec: StoredCustomActionSpec): v.GenericSchema {
  const entries: Record<string, v.GenericSchema> = Object.fromEntries(spec.outputs.map((o) => [o.name, v.nullable(scalarSchema(o.type))]));
  if (spec.transport === 'ssh') entries.exit_code = v.pipe(v.number(), v.integer());
  return v.object(entries);
}

/** `template` with each placeholder replaced by its input's text ('' for an absent one). */
export function renderTemplate(template: string, inputs: CustomInputs): string {
  return template.replace(PLACEHOLDER, (placeholder) => {
    const name = placeholderInputs(placeholder)[0];
    const value = name === undefined ? undefined : inputs[name];
    return value == null ? '' : String(value);
  });
}

/** Whether the template reads inputs and every one of them is absent: such a field is left out. */
const allAbsent = (template: string, inputs: CustomInputs): boolean => {
  const names = placeholderInputs(template);
  return names.length > 0 && names.every((n) => inputs[n] == null);
};

function renderFields(fields: Record<string, string>, inputs: CustomInputs): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).flatMap(([k, t]) => (allAbsent(t, inputs) ? [] : [[k, renderTemplate(t, inputs)]])));
}

/** The path with each placeholder segment replaced by its value encoded as one segment; throws RenderFailure `path_segment_empty` for an empty value. */
export function renderPath(action: string, path: string, inputs: CustomInputs): string {
  return path
    .split('/')
    .map((segment) => {
      if (!segment.includes('{{')) return segment;
      const name = placeholderInputs(segment)[0];
      const value = name === undefined ? undefined : inputs[name];
      const text = value == null ? '' : String(value);
      if (text === '') throw new RenderFailure('path_segment_empty', `${action}: path input ${name ?? '?'} is empty, a path segment needs a value`);
      return encodeURIComponent(text);
    })
    .join('/');
}

/**
 * The JSON body: rendered strings, or the typed value where a field is exactly one
 * placeholder of a non-string input. A field name is a path (body-path.ts): dots go into
 * nested objects and `[n]` into arrays (`append[0].value` sends `{"append": [{"value":
 * ...}]}`), for vendors whose bodies nest or take lists; templates.ts refuses a name
 * whose place another name gives another shape. An array element whose every field is
 * absent is left out, the rest closing up.
 */
export function renderBody(spec: StoredCustomActionSpec, fields: Record<string, string>, inputs: CustomInputs): Record<string, unknown> {
  const types = new Map(spec.inputs.map((i) => [i.name, i.type]));
  const body: Record<string, unknown> = {};
  for (const [key, template] of Object.entries(fields)) {
    if (allAbsent(template, inputs)) continue;
    const only = WHOLE_PLACEHOLDER.test(template) ? placeholderInputs(template)[0] : undefined;
    const value = only !== undefined && types.get(only) !== 'string' ? inputs[only] : renderTemplate(template, inputs);
    placeBodyValue(body, bodyFieldPath(key) ?? [{ key }], value);
  }
  return closeBodyHoles(body) as Record<string, unknown>;
}

/**
 * An HTTP action's request as rendered from inputs. `headers` are the declared ones, names
 * in lower case; `idempotencyKey` is the rendered `idempotency_key` ('' sends none), null
 * when the spec declares none (the caller derives one); `body` is null when none is sent.
 */
export type RenderedHttp = {
  method: NonNullable<StoredCustomActionSpec['http']>['method'];
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  idempotencyKey: string | null;
  body: Record<string, unknown> | null;
};

/**
 * Renders the http part of `spec` in the order a run does: headers, idempotency key, body,
 * query, path. `authHeader` is the connection's auth header, which the action may not set
 * (null: not known yet). Throws RenderFailure; the spec must be an http one.
 */
export function renderHttp(spec: StoredCustomActionSpec, inputs: CustomInputs, authHeader: string | null): RenderedHttp {
  const http = spec.http;
  if (!http) throw new Error(`${spec.name}: the spec has no http part`);
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries(renderFields(http.headers, inputs))) {
    if (authHeader !== null && header.toLowerCase() === authHeader.toLowerCase())
      throw new RenderFailure('header_refused', `${spec.name}: the ${header} header is the connection's auth header`);
    if (!HEADER_VALUE.test(value))
      throw new RenderFailure('header_invalid', `${spec.name}: header ${header} renders to characters a header cannot carry (CR, LF)`);
    headers[header.toLowerCase()] = value;
  }
  const idempotencyKey = spec.idempotency_key === null ? null : renderTemplate(spec.idempotency_key, inputs);
  if (idempotencyKey !== null && !HEADER_VALUE.test(idempotencyKey))
    throw new RenderFailure('header_invalid', `${spec.name}: the idempotency key renders to characters a header cannot carry`);
  const body = http.body === null ? null : renderBody(spec, http.body, inputs);
  const query = renderFields(http.query, inputs);
  return { method: http.method, path: renderPath(spec.name, http.path, inputs), query, headers, idempotencyKey, body };
}

/** An ssh action's rendered arguments, unquoted, those whose inputs are all absent left out; the spec must be an ssh one. */
export function renderSshArgs(spec: StoredCustomActionSpec, inputs: CustomInputs): string[] {
  if (!spec.ssh) throw new Error(`${spec.name}: the spec has no ssh part`);
  return spec.ssh.args.filter((a) => !allAbsent(a, inputs)).map((a) => renderTemplate(a, inputs));
}

/**
 * The value at a `$.a.b[0]` path of `root`, or undefined. A filter part selects the first
 * element of an array whose field (or itself) is a scalar whose text equals the filter's
 * text, rendered with `inputs`: an exact lookup of one entry in a vendor's list
 * (`$.rows[?@.ip=="{{ inputs.ip }}"].ip`), never a text search.
 */
export function readJsonPath(root: unknown, path: string, inputs: CustomInputs = {}): unknown {
  let value: unknown = root;
  for (const [, key, index, field, wanted] of path.slice(1).matchAll(OUTPUT_PATH_PARTS)) {
    if (value === null || typeof value !== 'object') return undefined;
    if (wanted !== undefined) {
      if (!Array.isArray(value)) return undefined;
      const text = renderTemplate(wanted, inputs);
      value = value.find((element) => {
        const candidate =
          field === undefined
            ? element
            : element !== null && typeof element === 'object' && !Array.isArray(element)
              ? (element as Record<string, unknown>)[field]
              : undefined;
        return (typeof candidate === 'string' || typeof candidate === 'number' || typeof candidate === 'boolean') && String(candidate) === text;
      });
    } else if (index !== undefined) {
      if (!Array.isArray(value)) return undefined;
      value = value[Number(index)];
    } else {
      if (Array.isArray(value) || !Object.hasOwn(value, key ?? '')) return undefined;
      value = (value as Record<string, unknown>)[key ?? ''];
    }
  }
  return value;
}

/** A value as the declared output type (a number or boolean read as a string is its text), or null when it is missing or is not one. */
export function typedOutput(value: unknown, type: ValueType): Scalar | null {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
  }
}

/** The declared outputs extracted from a parsed JSON document (undefined: none could be read); path filters are rendered with `inputs`. */
export function extractOutputs(spec: StoredCustomActionSpec, document: unknown, inputs: CustomInputs): Record<string, Scalar | null> {
  return Object.fromEntries(spec.outputs.map((o) => [o.name, typedOutput(readJsonPath(document, o.path, inputs), o.type)]));
}

/**
 * The document an HTTP answer's outputs are read from: with an XML content type
 * (`isXmlContentType`) the text read by `readXmlAnswer`, or the text itself when it stays
 * text, `unread` then saying why; otherwise the text parsed as JSON (undefined when it is
 * not JSON). An empty body is undefined whatever its type.
 */
export function readAnswer(text: string, contentType: string | null): { document: unknown; unread: string | null } {
  if (text === '') return { document: undefined, unread: null };
  if (!isXmlContentType(contentType)) return { document: parseJsonText(text), unread: null };
  const xml = readXmlAnswer(text);
  return xml.read ? { document: xml.document, unread: null } : { document: text, unread: `the XML answer stays text (${xml.reason}: ${xml.detail})` };
}

/** `text` parsed as JSON, or undefined when it is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
