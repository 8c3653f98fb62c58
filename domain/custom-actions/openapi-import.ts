/**
 * OpenAPI import (SPEC.md "Actions and connections", "OpenAPI import rules"; issue 21):
 * an OpenAPI 3.0 or 3.1 document becomes custom action drafts an analyst reviews,
 * completes and saves through `POST /custom-actions`. Nothing here saves anything.
 *
 * Two pure steps around the adapter that dereferences (adapters/custom-actions/
 * openapi-document.ts):
 * - `readOpenApiText(text)`: the JSON or YAML text as plain data, refused (422) when it is
 *   not one (`openapi_malformed`), not an OpenAPI object (`openapi_not_a_document`), Swagger
 *   2.0 or another version than 3.0 and 3.1 (`openapi_version_unsupported`), or when it has
 *   a `$ref` that is not a local `#/...` pointer (`openapi_external_ref`: never fetched).
 * - `importOpenApi(document, options)`: the dereferenced document mapped to drafts and
 *   skips, rule by rule (docs/configuration.md "OpenAPI import"):
 *   - one draft per operation, in document order, at most `maxDrafts` (200); later
 *     operations are skipped as past the import limit;
 *   - inputs typed from the path, query and header parameters and from the scalar
 *     properties of a JSON request body; the path rewritten to `{{ inputs.<name> }}`
 *     placeholders, with the path of `servers[0].url` (variables at their defaults)
 *     folded in front;
 *   - outputs `$.<property>` from the scalar properties of the first 2xx answer (lowest
 *     status, `2XX` last) that has a JSON body;
 *   - every draft `enabled: false`, `risk` and `effect_type` `arbitrary`, `max_targets`
 *     null (unbounded), `max_attempts` 1, no input secret, no authentication: security
 *     schemes and the parameters that carry credentials (Authorization, cookies, api-key
 *     parameters) are never imported, the connection carries credentials;
 *   - skipped, with a reason: cookie parameters, array- or object-valued parameters and
 *     body properties, non-JSON bodies (the whole operation when such a body is
 *     required), methods a custom action cannot send (HEAD, OPTIONS, TRACE), and paths
 *     whose parameter is only part of a segment (a placeholder fills a whole segment).
 * Every draft's spec passes `customActionSpecSchema` and `specProblems`; an operation
 * whose draft would not is skipped with the first problem as its reason.
 */
import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';
import { unprocessable } from '../shared/errors.ts';
import { customActionSpecSchema, HEADER_NAME, httpMethods, type CustomActionInput, type CustomActionSpec } from './spec.ts';
import { PCHAR, reservedHeaders, specProblems } from './templates.ts';

/** Most drafts one import returns; the operations after the last are skipped as past the limit. */
export const OPENAPI_IMPORT_MAX_DRAFTS = 200;
/** `name_prefix`: `custom.` and one or two lower-case segments; each draft adds one more. */
export const OPENAPI_NAME_PREFIX = /^custom(\.[a-z][a-z0-9_]{0,62}){1,2}$/;
/** Deepest nesting `readOpenApiText` accepts (the dereferencing library recurses). */
const MAX_DEPTH = 200;
/** A custom action declares at most this many inputs and outputs (spec.ts). */
const MAX_FIELDS = 50;

type HttpMethod = (typeof httpMethods)[number];
export type OpenApiDraft = { spec: CustomActionSpec; method: HttpMethod; path: string; suggested_risk: 'read' | 'write'; notes: string[] };
export type OpenApiSkip = { location: string; reason: string };
export type OpenApiImport = {
  title: string;
  openapi_version: string;
  server_url: string | null;
  server_path_prefix: string;
  drafts: OpenApiDraft[];
  skipped: OpenApiSkip[];
};

type Json = Record<string, unknown>;
const isRecord = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const text = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

// --- Reading the text -------------------------------------------------------------------

/**
 * The OpenAPI document in `source` (JSON, or YAML when it does not start with `{` or `[`)
 * as plain data, checked as far as it can be without dereferencing. Throws 422 DomainErrors.
 */
export function readOpenApiText(source: string): Json {
  const start = source.trimStart();
  if (start === '') throw unprocessable('openapi_malformed', 'the document is empty');
  let data: unknown;
  if (start.startsWith('{') || start.startsWith('[')) {
    try {
      data = JSON.parse(source);
    } catch (error) {
      throw unprocessable('openapi_malformed', clip(`the document is not valid JSON: ${messageOf(error)}`, 500));
    }
  } else {
    try {
      // The default alias limit (100) stops entity-expansion bombs.
      data = parseYaml(source, { prettyErrors: false });
    } catch (error) {
      throw unprocessable('openapi_malformed', clip(`the document is not valid YAML: ${oneLine(messageOf(error))}`, 500));
    }
  }
  const refs = treeRefs(data);
  if (!isRecord(data)) throw unprocessable('openapi_not_a_document', 'the document is not an OpenAPI object (a mapping with an `openapi` version)');
  if (data.swagger !== undefined) {
    const version = String(data.swagger);
    throw unprocessable('openapi_version_unsupported', `Swagger ${version} is not imported: convert the document to OpenAPI 3.0 or 3.1 first`, {
      version,
      supported: ['3.0', '3.1'],
    });
  }
  if (typeof data.openapi !== 'string') {
    throw unprocessable('openapi_not_a_document', 'the document is not an OpenAPI object: it has no `openapi` version string such as "3.1.0"');
  }
  if (!/^3\.[01]\.\d+(-[0-9A-Za-z.-]+)?$/.test(data.openapi)) {
    throw unprocessable('openapi_version_unsupported', `OpenAPI ${clip(data.openapi, 40)} is not imported: only 3.0 and 3.1 are`, {
      version: clip(data.openapi, 40),
      supported: ['3.0', '3.1'],
    });
  }
  if (data.paths !== undefined && !isRecord(data.paths)) throw unprocessable('openapi_not_a_document', "the document's `paths` is not a mapping");
  const external = [...new Set(refs.filter((r) => !r.startsWith('#')))];
  if (external.length > 0) {
    throw unprocessable(
      'openapi_external_ref',
      `the document refers outside itself (${clip(external.slice(0, 3).join(', '), 300)}): remote and external $refs are refused, never fetched; bundle the document into one file first`,
      { refs: external.slice(0, 10).map((r) => clip(r, 200)), count: external.length },
    );
  }
  return data;
}

/** Most nodes `treeRefs` visits: shared YAML aliases are visited once per use. */
const MAX_VISITS = 5_000_000;

/**
 * Every string `$ref` in `data`; refuses data nested deeper than MAX_DEPTH, holding itself
 * (YAML aliases can build a cycle) or too large once aliases are expanded, so later walks end.
 */
function treeRefs(data: unknown): string[] {
  const refs: string[] = [];
  const ancestors = new Set<object>();
  let visits = 0;
  const walk = (node: unknown, depth: number): void => {
    if (typeof node !== 'object' || node === null) return;
    if (ancestors.has(node)) throw unprocessable('openapi_malformed', 'the document contains itself (a YAML alias inside its own anchor)');
    if (depth > MAX_DEPTH) throw unprocessable('openapi_malformed', `the document is nested deeper than ${MAX_DEPTH} levels`);
    if (++visits > MAX_VISITS) throw unprocessable('openapi_malformed', 'the document is too large once its YAML aliases are expanded');
    if (!Array.isArray(node) && typeof (node as Json).$ref === 'string') refs.push((node as Json).$ref as string);
    ancestors.add(node);
    for (const child of Array.isArray(node) ? node : Object.values(node)) walk(child, depth + 1);
    ancestors.delete(node);
  };
  walk(data, 1);
  return refs;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// --- Mapping ----------------------------------------------------------------------------

const pathItemMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'];
const supportedMethods: readonly string[] = httpMethods;
const OUTPUT_PATH_PART = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Names (snake case) of values that look like credentials: `access_token`, `client_secret`, `password`; not paging tokens. */
const CREDENTIAL_NAME = /^(?!.*(page|next|continuation|sync|cursor)_token$).*(^|_)(token|secret|password|passwd|passphrase|api_?key|private_key|credentials?)$/;
const JSON_MEDIA = /^application\/([a-z0-9.+-]*\+)?json\s*(;.*)?$/i;

/** What a schema holds: a scalar input type, or why it cannot be one. */
type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'mixed' | 'unknown';
type Scalar = CustomActionInput['type'];
const scalarKinds: readonly string[] = ['string', 'integer', 'number', 'boolean'];
const isScalar = (k: Kind): k is Scalar => scalarKinds.includes(k);

export type ImportOptions = { namePrefix: string; maxDrafts?: number };

/** The drafts and skips of a dereferenced OpenAPI 3.0 or 3.1 document (see the module comment). */
export function importOpenApi(document: Json, options: ImportOptions): OpenApiImport {
  const maxDrafts = options.maxDrafts ?? OPENAPI_IMPORT_MAX_DRAFTS;
  const info = isRecord(document.info) ? document.info : {};
  const title = oneLine(text(info.title) ?? '');
  const skipped: OpenApiSkip[] = [];
  const server = serverOf(document);
  if (server.problem !== null) skipped.push({ location: 'servers[0]', reason: server.problem });
  const context: DocumentContext = {
    title,
    version: text(info.version) ?? '',
    server,
    schemes: isRecord(document.components) && isRecord(document.components.securitySchemes) ? document.components.securitySchemes : {},
    security: Array.isArray(document.security) ? document.security : [],
  };
  const credentialParameters = credentialParametersOf(context.schemes);
  const names = new Set<string>();
  const drafts: OpenApiDraft[] = [];
  const paths = isRecord(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item)) {
      skipped.push({ location: path, reason: 'not a path item object' });
      continue;
    }
    for (const key of Object.keys(item).filter((k) => pathItemMethods.includes(k))) {
      const method = key.toUpperCase();
      const location = `${method} ${path}`;
      if (drafts.length >= maxDrafts) {
        skipped.push({ location, reason: `past the import limit of ${maxDrafts} drafts per document: import the rest from a document trimmed to them` });
        continue;
      }
      if (!supportedMethods.includes(method)) {
        skipped.push({ location, reason: `${method}: a custom action sends ${httpMethods.join(', ')} only` });
        continue;
      }
      const operation = item[key];
      if (!isRecord(operation)) {
        skipped.push({ location, reason: 'not an operation object' });
        continue;
      }
      const outcome = draftOf({
        context,
        path,
        method: method as HttpMethod,
        operation,
        pathParameters: item.parameters,
        credentialParameters,
        names,
        namePrefix: options.namePrefix,
      });
      if ('reason' in outcome) {
        skipped.push({ location, reason: outcome.reason });
        continue;
      }
      drafts.push(outcome.draft);
      skipped.push(...outcome.skipped);
    }
  }
  if (isRecord(document.webhooks) && Object.keys(document.webhooks).length > 0) {
    const count = Object.keys(document.webhooks).length;
    skipped.push({
      location: 'webhooks',
      reason: `${count} webhook${count === 1 ? '' : 's'}: calls the API makes to its subscribers, not operations an action can call`,
    });
  }
  return {
    title,
    openapi_version: text(document.openapi) ?? '',
    server_url: server.url,
    server_path_prefix: server.prefix,
    drafts,
    skipped,
  };
}

type Server = { url: string | null; origin: string | null; prefix: string; problem: string | null };
type DocumentContext = { title: string; version: string; server: Server; schemes: Json; security: unknown[] };

/**
 * `servers[0].url` with its variables at their defaults, its origin (null when relative) and
 * its path, the prefix every draft's path starts with ('' for none).
 */
function serverOf(document: Json): Server {
  const first = Array.isArray(document.servers) ? document.servers[0] : undefined;
  if (!isRecord(first) || typeof first.url !== 'string') return { url: null, origin: null, prefix: '', problem: null };
  const variables = isRecord(first.variables) ? first.variables : {};
  const url = first.url.replace(/\{([^{}]*)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isRecord(variable) && typeof variable.default === 'string' ? variable.default : whole;
  });
  if (/[{}]/.test(url)) return { url, origin: null, prefix: '', problem: `${clip(url, 200)} has a variable without a default: no path prefix folded in` };
  let origin: string | null = null;
  let pathname: string;
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || url.startsWith('//')) {
      const parsed = new URL(url.startsWith('//') ? `https:${url}` : url);
      origin = url.startsWith('//') ? null : parsed.origin;
      pathname = parsed.pathname;
    } else {
      pathname = url.split(/[?#]/)[0] ?? '';
    }
  } catch {
    return { url, origin: null, prefix: '', problem: `${clip(url, 200)} is not a URL: no path prefix folded in` };
  }
  const segments = pathname.split('/').filter((s) => s !== '');
  const literal = segments.map(literalSegment);
  if (literal.some((s) => s === null))
    return { url, origin, prefix: '', problem: `the path of ${clip(url, 200)} has a . or .. segment: no path prefix folded in` };
  return { url, origin, prefix: literal.length === 0 ? '' : `/${literal.join('/')}`, problem: null };
}

/** A literal path segment as a URL path takes it (characters outside `pchar` percent-encoded); null for `.` and `..`. */
function literalSegment(segment: string): string | null {
  if (segment === '.' || segment === '..') return null;
  if (PCHAR.test(segment)) return segment;
  return segment.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@%]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD'; // an unpaired surrogate has no UTF-8 form: U+FFFD
    }
  });
}

/** The api-key parameters security schemes name: credentials, never imported (`in:name`, header names lower-cased). */
function credentialParametersOf(schemes: Json): Set<string> {
  const found = new Set<string>();
  for (const scheme of Object.values(schemes)) {
    if (!isRecord(scheme) || scheme.type !== 'apiKey' || typeof scheme.name !== 'string' || typeof scheme.in !== 'string') continue;
    found.add(`${scheme.in}:${scheme.in === 'header' ? scheme.name.toLowerCase() : scheme.name}`);
  }
  return found;
}

type DraftRequest = {
  context: DocumentContext;
  path: string;
  method: HttpMethod;
  operation: Json;
  pathParameters: unknown;
  credentialParameters: Set<string>;
  names: Set<string>;
  namePrefix: string;
};
type DraftOutcome = { draft: OpenApiDraft; skipped: OpenApiSkip[] } | { reason: string };

/** Input names of one draft, unique: a clash takes its source as prefix, then a number. */
class InputNames {
  private readonly used = new Set<string>();
  take(raw: string, source: string): string {
    const base = identifier(raw, source);
    for (const candidate of [base, identifier(`${source}_${base}`, source)]) {
      if (!this.used.has(candidate)) {
        this.used.add(candidate);
        return candidate;
      }
    }
    return this.numbered(base);
  }
  private numbered(base: string): string {
    for (let n = 2; ; n++) {
      const candidate = `${base.slice(0, 63 - String(n).length - 1).replace(/_+$/, '')}_${n}`;
      if (!this.used.has(candidate)) {
        this.used.add(candidate);
        return candidate;
      }
    }
  }
}

function draftOf(request: DraftRequest): DraftOutcome {
  const { context, path, method, operation } = request;
  const location = `${method} ${path}`;
  const skipped: OpenApiSkip[] = [];
  const notes: string[] = [];
  const inputs: CustomActionInput[] = [];
  const headers: Record<string, string> = {};
  const query: Record<string, string> = {};
  const names = new InputNames();
  const placeholder = (name: string) => `{{ inputs.${name} }}`;
  const missingRequired = (what: string, reason: string) =>
    notes.push(`The required ${what} was not imported (${reason}): the call fails without it unless the connection or a hand edit supplies it.`);

  // Parameters: the operation's override the path item's of the same name and location.
  const parameters = new Map<string, Json>();
  const invalid: unknown[] = [];
  for (const list of [request.pathParameters, operation.parameters]) {
    for (const p of Array.isArray(list) ? list : []) {
      if (isRecord(p) && typeof p.name === 'string' && typeof p.in === 'string') parameters.set(`${p.in}:${p.name}`, p);
      else invalid.push(p);
    }
  }
  for (const _ of invalid) skipped.push({ location: `${location} parameter ?`, reason: 'not a parameter object (a name and an `in`)' });

  // The path: every `{name}` must fill a whole segment and be a declared scalar path parameter.
  if (!path.startsWith('/')) return { reason: 'the path does not start with /' };
  const segments: string[] = [];
  const pathInputs = new Map<string, string>();
  for (const [i, segment] of path.split('/').slice(1).entries()) {
    const whole = /^\{([^{}]+)\}$/.exec(segment);
    if (whole) {
      const name = whole[1] as string;
      const parameter = parameters.get(`path:${name}`);
      if (!parameter) return { reason: `path parameter {${name}} is not declared` };
      const kind = parameterKind(parameter);
      if (!isScalar(kind) && kind !== 'unknown') return { reason: `path parameter {${name}} takes ${kindNoun(kind)}, not a scalar` };
      let input = pathInputs.get(name);
      if (input === undefined) {
        input = names.take(name, 'path');
        pathInputs.set(name, input);
        inputs.push(inputOf(input, parameter, 'path', true));
        if (kind === 'unknown') notes.push(`Input ${input} has no type in the document: imported as a string.`);
      }
      segments.push(placeholder(input));
      continue;
    }
    if (/[{}]/.test(segment)) {
      return { reason: `path segment ${JSON.stringify(segment)} mixes a parameter with text: a custom action's placeholder fills a whole segment` };
    }
    if (segment === '' && i < path.split('/').length - 2) return { reason: 'the path has an empty segment (//)' };
    const literal = literalSegment(segment);
    if (literal === null) return { reason: 'the path has a . or .. segment' };
    segments.push(literal);
  }

  for (const parameter of parameters.values()) {
    const name = parameter.name as string;
    const where = parameter.in as string;
    const at = `${location} parameter ${name}`;
    const required = parameter.required === true;
    if (where === 'path') {
      if (!pathInputs.has(name)) skipped.push({ location: at, reason: 'a path parameter the path does not use' });
      continue;
    }
    const refuse = (reason: string) => {
      skipped.push({ location: at, reason });
      if (required) missingRequired(`${where} parameter ${name}`, reason);
    };
    if (where === 'cookie') {
      refuse('a cookie parameter: custom actions send no cookies');
      continue;
    }
    if (where !== 'query' && where !== 'header') {
      refuse(`parameters in ${clip(where, 40)} are not imported`);
      continue;
    }
    const lower = name.toLowerCase();
    if (
      request.credentialParameters.has(`${where}:${where === 'header' ? lower : name}`) ||
      (where === 'header' && ['authorization', 'proxy-authorization'].includes(lower))
    ) {
      skipped.push({ location: at, reason: 'a credential: authentication is never imported, the connection carries it' });
      continue;
    }
    if (where === 'header' && (lower === 'cookie' || lower === 'set-cookie')) {
      refuse('a cookie header: custom actions send no cookies');
      continue;
    }
    if (where === 'header' && (lower === 'accept' || lower === 'content-type')) {
      skipped.push({ location: at, reason: `${name} is set by the transport (OpenAPI ignores it as a parameter)` });
      continue;
    }
    if (where === 'header' && reservedHeaders.includes(lower)) {
      refuse(`${name} is set by the transport, not by the action`);
      continue;
    }
    if (where === 'header' && !HEADER_NAME.test(name)) {
      refuse('not a header name a custom action can send (letters, digits and -)');
      continue;
    }
    if (name.length > 100) {
      refuse('a name longer than 100 characters');
      continue;
    }
    const kind = parameterKind(parameter);
    if (!isScalar(kind) && kind !== 'unknown') {
      refuse(`${kindPhrase(kind)} parameter: only scalar (string, number, integer, boolean) parameters are imported`);
      continue;
    }
    if (inputs.length >= MAX_FIELDS) {
      refuse(`past the ${MAX_FIELDS} inputs a custom action declares`);
      continue;
    }
    const input = names.take(name, where);
    inputs.push(inputOf(input, parameter, where, required));
    if (kind === 'unknown') notes.push(`Input ${input} has no type in the document: imported as a string.`);
    (where === 'header' ? headers : query)[name] = placeholder(input);
  }

  // The request body: the scalar properties of a JSON object.
  let body: Record<string, string> | null = null;
  const requestBody = operation.requestBody;
  if (isRecord(requestBody)) {
    const bodyRequired = requestBody.required === true;
    const content = isRecord(requestBody.content) ? requestBody.content : {};
    const media = jsonMediaType(content);
    const at = `${location} body`;
    if (media === null) {
      const types = Object.keys(content);
      const reason = types.length === 0 ? 'a request body with no media type' : `a non-JSON request body (${clip(types.join(', '), 200)})`;
      if (bodyRequired) return { reason: `${reason}, required: only JSON bodies are imported` };
      skipped.push({ location: at, reason: `${reason}: only JSON bodies are imported` });
    } else {
      const mediaObject = content[media];
      const schema = isRecord(mediaObject) ? mediaObject.schema : undefined;
      const shape = objectShape(schema);
      if (schema === undefined) {
        body = bodyRequired ? {} : null;
        notes.push('The JSON body has no schema: add its fields by hand.');
      } else if (shape.kind === 'not_object') {
        if (bodyRequired) return { reason: `its required JSON body is ${shape.what}: only an object's scalar properties are imported` };
        skipped.push({ location: at, reason: `a JSON body that is ${shape.what}: only an object's scalar properties are imported` });
      } else {
        body = {};
        for (const [property, schema] of shape.properties) {
          const propertyAt = `${location} body property ${property}`;
          if (isRecord(schema) && schema.readOnly === true) continue;
          const required = bodyRequired && shape.required.has(property);
          const refuse = (reason: string) => {
            skipped.push({ location: propertyAt, reason });
            if (required) missingRequired(`body property ${property}`, reason);
          };
          const kind = kindOf(schema);
          if (!isScalar(kind) && kind !== 'unknown') {
            refuse(`${kindPhrase(kind)} body property: only scalar properties are imported`);
            continue;
          }
          if (property.length > 100) {
            refuse('a name longer than 100 characters');
            continue;
          }
          if (inputs.length >= MAX_FIELDS) {
            refuse(`past the ${MAX_FIELDS} inputs a custom action declares`);
            continue;
          }
          const input = names.take(property, 'body');
          inputs.push(inputOf(input, { schema, description: isRecord(schema) ? schema.description : undefined }, 'body', required));
          if (kind === 'unknown') notes.push(`Input ${input} has no type in the document: imported as a string.`);
          body[property] = placeholder(input);
        }
        if (shape.free) notes.push('The JSON body also takes properties the document does not name: add them by hand if the call needs them.');
      }
    }
  }

  const outputs = outputsOf(operation, notes);
  // Credentials belong in the connection; a credential an answer carries stays out of the action log.
  const redact = outputs.filter((o) => CREDENTIAL_NAME.test(o.name)).map((o) => `$.output.${o.name}`);
  if (redact.length > 0) notes.push(`Outputs that look like credentials are redacted in the action log: ${redact.join(', ')}.`);
  const credentialInputs = inputs.filter((i) => CREDENTIAL_NAME.test(i.name)).map((i) => i.name);
  if (credentialInputs.length > 0) {
    notes.push(
      `Inputs that look like credentials: ${credentialInputs.join(', ')}. Inputs are written to the action log; a credential belongs in the connection (or redact it with $.input.<name>).`,
    );
  }
  const suggested: 'read' | 'write' = method === 'GET' ? 'read' : 'write';
  const operationId = text(operation.operationId);
  const name = uniqueName(request.namePrefix, operationId ?? `${method}_${path}`, request.names);
  const summary = oneLine(text(operation.summary) ?? '');
  const spec: CustomActionSpec = {
    name,
    title: clip(summary || oneLine(operationId ?? '') || location, 200).trim(),
    description: descriptionOf(operation, context, location),
    transport: 'http',
    enabled: false,
    default_connection: null,
    inputs,
    http: { method, path: `${context.server.prefix}/${segments.join('/')}`, headers, query, body },
    ssh: null,
    outputs,
    timeout_s: 30,
    max_attempts: 1,
    redact,
    effect_type: 'arbitrary',
    risk: 'arbitrary',
    target: null,
    max_targets: null,
    idempotency_key: null,
    compensation: null,
  };

  const parsed = v.safeParse(customActionSpecSchema, spec);
  const problem = parsed.success ? specProblems(parsed.output)[0] : parsed.issues[0];
  if (problem !== undefined) {
    request.names.delete(name);
    const where = 'loc' in problem ? problem.loc.join('.') : (problem.path ?? []).map((p) => String(p.key)).join('.');
    return { reason: `its draft would not be a valid custom action (${where}: ${'msg' in problem ? problem.msg : problem.message})` };
  }

  notes.unshift(
    `Check before enabling: the draft is disabled, its risk and effect_type are arbitrary, its blast radius is unbounded (max_targets null) and it is tried once; set risk (suggested: ${suggested}), effect_type, target and max_targets to what ${location} really does.`,
    ...authenticationNotes(operation, context),
    serverNote(context.server),
  );
  if (operation.deprecated === true) notes.push('The document marks this operation deprecated.');
  const ownServers = Array.isArray(operation.servers) ? operation.servers : [];
  const ownServer = isRecord(ownServers[0]) ? text(ownServers[0].url) : undefined;
  if (ownServer !== undefined)
    notes.push(`The operation names its own server ${clip(ownServer, 200)}; the path starts with the document's server prefix instead.`);
  return { draft: { spec, method, path, suggested_risk: suggested, notes }, skipped };
}

function inputOf(name: string, parameter: Json, where: string, required: boolean): CustomActionInput {
  const schema = isRecord(parameter.schema) ? parameter.schema : {};
  const kind = parameterKind(parameter);
  const parts = [oneLine(text(parameter.description) ?? text(schema.description) ?? '')];
  const allowed = enumOf(schema);
  if (allowed.length > 0) parts.push(`One of: ${allowed.map((x) => JSON.stringify(x)).join(', ')}.`);
  if (schema.default !== undefined && typeof schema.default !== 'object') parts.push(`Default: ${JSON.stringify(schema.default)}.`);
  const source = { path: 'Path parameter', query: 'Query parameter', header: 'Header', body: 'Body property' }[where] ?? 'Parameter';
  const original = where === 'body' ? '' : ` ${text(parameter.name) ?? ''}`;
  parts.push(`(${source}${original}.)`);
  return {
    name,
    type: isScalar(kind) ? kind : 'string',
    required,
    description: clip(parts.filter((p) => p !== '').join(' '), 1000),
    secret: false,
  };
}

/** The values `schema.enum` (or its only scalar branch) allows, at most 20. */
function enumOf(schema: Json): unknown[] {
  const values = Array.isArray(schema.enum) ? schema.enum : [];
  return values.filter((x) => x !== null && typeof x !== 'object').slice(0, 20);
}

/** The kind of a parameter's value: from its schema, or `mixed` when serialised as a media type. */
function parameterKind(parameter: Json): Kind {
  if (parameter.schema === undefined && isRecord(parameter.content)) return 'mixed';
  return kindOf(parameter.schema);
}

const kindPhrase = (kind: Kind) =>
  ({ array: 'an array-valued', object: 'an object-valued' })[kind as string] ?? 'a structured (an array or object among its types, or a media type)';
const kindNoun = (kind: Kind) => ({ array: 'an array', object: 'an object' })[kind as string] ?? 'several types or a media type';

/** What `schema` holds, looking through `type` (3.1 type lists, `null` left out), `const`, `enum`, `allOf`, `oneOf` and `anyOf`. */
function kindOf(schema: unknown, depth = 0): Kind {
  if (!isRecord(schema) || depth > 8) return 'unknown';
  const type = schema.type;
  const types = (typeof type === 'string' ? [type] : Array.isArray(type) ? type : []).filter((t): t is string => typeof t === 'string' && t !== 'null');
  if (types.length > 0) return combine(types.map((t) => (['string', 'integer', 'number', 'boolean', 'array', 'object'].includes(t) ? (t as Kind) : 'unknown')));
  if (schema.const !== undefined && schema.const !== null) return valueKind(schema.const);
  if (Array.isArray(schema.enum)) {
    const kinds = schema.enum.filter((x) => x !== null).map(valueKind);
    if (kinds.length > 0) return combine(kinds);
  }
  if (isRecord(schema.properties) || schema.additionalProperties !== undefined || schema.patternProperties !== undefined) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  const all = Array.isArray(schema.allOf) ? schema.allOf.map((s) => kindOf(s, depth + 1)) : [];
  const some = [schema.oneOf, schema.anyOf].flatMap((list) => (Array.isArray(list) ? list.map((s) => kindOf(s, depth + 1)) : []));
  if (all.length + some.length === 0) return 'unknown';
  return combine([...all, ...some]);
}

function valueKind(value: unknown): Kind {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return Array.isArray(value) ? 'array' : typeof value === 'object' && value !== null ? 'object' : 'unknown';
}

/** One kind for several: integers and numbers are numbers, other mixed scalars strings, anything with a structure `mixed`. */
function combine(kinds: Kind[]): Kind {
  const known = [...new Set(kinds.filter((k) => k !== 'unknown'))];
  if (known.length === 0) return 'unknown';
  if (known.length === 1) return known[0] as Kind;
  if (known.every(isScalar)) return known.every((k) => k === 'integer' || k === 'number') ? 'number' : 'string';
  return 'mixed';
}

type ObjectShape = { kind: 'object'; properties: [string, unknown][]; required: Set<string>; free: boolean } | { kind: 'not_object'; what: string };

/** The named properties of an object schema, `allOf` branches merged; or what else the schema is. */
function objectShape(schema: unknown, depth = 0): ObjectShape {
  if (!isRecord(schema)) return { kind: 'not_object', what: 'without a schema' };
  const properties = new Map<string, unknown>();
  const required = new Set<string>();
  let free = schema.additionalProperties !== undefined && schema.additionalProperties !== false;
  let found = isRecord(schema.properties) || kindOf(schema) === 'object';
  for (const branch of Array.isArray(schema.allOf) && depth < 8 ? schema.allOf : []) {
    const shape = objectShape(branch, depth + 1);
    if (shape.kind === 'not_object') continue;
    found = true;
    free ||= shape.free;
    for (const [name, property] of shape.properties) properties.set(name, property);
    for (const name of shape.required) required.add(name);
  }
  if (isRecord(schema.properties)) for (const [name, property] of Object.entries(schema.properties)) properties.set(name, property);
  if (Array.isArray(schema.required)) for (const name of schema.required) if (typeof name === 'string') required.add(name);
  if (!found || (properties.size === 0 && (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)))) {
    if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) return { kind: 'not_object', what: 'one of several schemas (oneOf/anyOf)' };
    const kind = kindOf(schema);
    return { kind: 'not_object', what: kind === 'array' ? 'a JSON array' : kind === 'unknown' ? 'of no declared type' : `a ${kind}` };
  }
  return { kind: 'object', properties: [...properties.entries()], required, free };
}

/** The media type of `content` a JSON body uses: `application/json` first, then any `+json` one. */
function jsonMediaType(content: Json): string | null {
  const types = Object.keys(content).filter((t) => JSON_MEDIA.test(t));
  return types.find((t) => /^application\/json\s*(;.*)?$/i.test(t)) ?? types[0] ?? null;
}

/** The outputs of the first 2xx answer with a JSON body (lowest status first, `2XX` last), with notes on what was left out. */
function outputsOf(operation: Json, notes: string[]): CustomActionSpec['outputs'] {
  const responses = isRecord(operation.responses) ? operation.responses : {};
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort((a, b) => rank(a) - rank(b));
  for (const code of codes) {
    const response = responses[code];
    const content = isRecord(response) && isRecord(response.content) ? response.content : {};
    const media = jsonMediaType(content);
    if (media === null) continue;
    const mediaObject = content[media];
    const shape = objectShape(isRecord(mediaObject) ? mediaObject.schema : undefined);
    if (shape.kind === 'not_object') {
      notes.push(`The JSON body of the ${code} answer is ${shape.what}: no outputs were lifted; add them by hand ($[0].<field> for an array).`);
      return [];
    }
    const outputs: CustomActionSpec['outputs'] = [];
    const used = new InputNames();
    const unaddressable: string[] = [];
    let over = 0;
    for (const [property, schema] of shape.properties) {
      if (isRecord(schema) && schema.writeOnly === true) continue;
      const kind = kindOf(schema);
      if (!isScalar(kind) && kind !== 'unknown') continue;
      if (!OUTPUT_PATH_PART.test(property)) {
        unaddressable.push(property);
        continue;
      }
      if (outputs.length >= MAX_FIELDS) {
        over++;
        continue;
      }
      outputs.push({ name: used.take(property, 'output'), path: `$.${property}`, type: isScalar(kind) ? kind : 'string' });
    }
    if (unaddressable.length > 0) notes.push(`Outputs not lifted, their names need a path syntax outputs do not have: ${clip(unaddressable.join(', '), 300)}.`);
    const nested = shape.properties.map(([property]) => property).filter((property) => OUTPUT_PATH_PART.test(property));
    if (outputs.length === 0 && nested.length > 0) {
      notes.push(
        `The ${code} answer has no scalar property at its top level (${clip(nested.join(', '), 200)}): no outputs were lifted; add nested ones by hand, e.g. $.${nested[0]}.<field>.`,
      );
    }
    if (over > 0) notes.push(`${over} more scalar properties of the ${code} answer were not lifted: an action declares at most ${MAX_FIELDS} outputs.`);
    return outputs;
  }
  if (codes.length > 0) notes.push('No 2xx answer has a JSON body: the draft declares no outputs.');
  else notes.push('The document declares no 2xx answer: the draft declares no outputs.');
  return [];
}

const rank = (code: string) => (/^\d+$/.test(code) ? Number(code) : 299.5);

function authenticationNotes(operation: Json, context: DocumentContext): string[] {
  const requirements = Array.isArray(operation.security) ? operation.security : context.security;
  const schemeNames = [...new Set(requirements.flatMap((r) => (isRecord(r) ? Object.keys(r) : [])))];
  if (schemeNames.length === 0) return [];
  const described = schemeNames.map((name) => {
    const scheme = context.schemes[name];
    if (!isRecord(scheme)) return name;
    const type = text(scheme.type) ?? 'unknown';
    if (type === 'apiKey') return `${name} (API key in ${text(scheme.in) ?? '?'} ${text(scheme.name) ?? ''})`.replace(' )', ')');
    if (type === 'http') return `${name} (HTTP ${text(scheme.scheme) ?? ''})`.replace(' )', ')');
    return `${name} (${type})`;
  });
  return [
    `Authentication is not imported: the document asks for ${clip(described.join(' or '), 400)}; run the action with a connection that carries the credentials.`,
  ];
}

function serverNote(server: Server): string {
  const base = server.origin === null ? "set the connection's base URL to the API's origin" : `give the connection the base URL ${server.origin}`;
  return server.prefix === '' ? `Connection: ${base}.` : `Connection: the path already starts with the server's path ${server.prefix}; ${base}.`;
}

function descriptionOf(operation: Json, context: DocumentContext, location: string): string {
  const source = `Imported from the OpenAPI document ${JSON.stringify(clip(context.title, 200))}${context.version ? ` version ${clip(context.version, 50)}` : ''}: ${clip(location, 500)}.`;
  const own = (text(operation.description) ?? text(operation.summary) ?? '').trim();
  return own === '' ? source : `${clip(own, 4000 - source.length - 2)}\n\n${source}`;
}

// --- Names ------------------------------------------------------------------------------

/** `text` in snake case: camelCase split, anything but letters and digits as one `_`. */
export function snakeCase(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** A name segment (`[a-z][a-z0-9_]{0,62}`) from `raw`; `fallback` when nothing is left, as prefix when it starts with a digit. */
function identifier(raw: string, fallback: string): string {
  let name = snakeCase(raw);
  if (name === '') name = fallback;
  if (!/^[a-z]/.test(name)) name = `${fallback}_${name}`;
  return name.slice(0, 63).replace(/_+$/, '');
}

/** `<prefix>.<operation>`, unique among `names` (a clash gets `_2`, `_3`...); added to `names`. */
function uniqueName(prefix: string, operation: string, names: Set<string>): string {
  const base = identifier(operation, 'op');
  let segment = base;
  for (let n = 2; names.has(`${prefix}.${segment}`); n++) segment = `${base.slice(0, 63 - String(n).length - 1).replace(/_+$/, '')}_${n}`;
  const name = `${prefix}.${segment}`;
  names.add(name);
  return name;
}
