/**
 * A stored custom action as a runnable action (SPEC.md "Custom action (operator-authored)";
 * docs/configuration.md "Custom actions"). The spec was validated when it was saved
 * (domain/custom-actions/spec.ts, templates.ts), so rendering here is plain substitution
 * of `{{ inputs.<name> }}` placeholders by the step's declared input values: no Liquid,
 * nothing else reachable, never a secret.
 *
 * HTTP: the connection's base_url + the declared path, each path placeholder URL-encoded
 * as one segment (an empty value is refused, final `path_segment_empty`); query fields
 * through URLSearchParams; rendered headers (CR, LF or other characters a header cannot
 * carry are refused, final `header_invalid`); a JSON body of the rendered fields, where a
 * field that is exactly one placeholder of a non-string input keeps the typed value. A
 * query, header or body field whose placeholders all name inputs the step left out is
 * not sent. `Idempotency-Key` is the rendered `idempotency_key`, else one derived from
 * run, step and attempt (as notify.webhook's `webhook-id`). Auth is the connection's, as
 * `http.request` does it (header or oauth2 client credentials). The output is the
 * declared outputs read from the JSON response by their `$.a.b[0]` paths (missing or of
 * another type: null); the raw body is never kept.
 *
 * SSH: the bare command and each rendered argument single-quoted on its own, run with
 * `sshExec`; output `{exit_code, <outputs>}`, the outputs read from stdout as JSON.
 *
 * `timeout_s` bounds each execution (besides the step's own deadline); `max_attempts`
 * tries a retryable failure again within one step attempt. `redactLog` masks every
 * `secret` input and every `redact` path as `[redacted]` in the action log.
 */
import * as v from 'valibot';
import { placeholderInputs } from '../../domain/custom-actions/templates.ts';
import type { StoredCustomActionSpec } from '../../domain/custom-actions/spec.ts';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { httpAuth } from './http-request.ts';
import { webhookId } from './notify-webhook.ts';
import { createTokenSource, type TokenSource } from './oauth2-token.ts';
import { joinUrl, readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from './outbound-http.ts';
import { shellQuote, sshExec } from './ssh-command.ts';

export type CustomActionDeps = { fetch: OutboundFetch; tokens?: TokenSource; sleep?: (ms: number) => Promise<void> };

type Scalar = string | number | boolean;
/** The step's inputs; an optional one may be absent or null (a template that rendered to nothing), both meaning absent. */
type Inputs = Record<string, Scalar | null | undefined>;
type InputType = StoredCustomActionSpec['inputs'][number]['type'];

const PLACEHOLDER = /\{\{[\s\S]*?\}\}/g;
/** A template that is exactly one placeholder. */
const WHOLE_PLACEHOLDER = /^\{\{[^{}]*\}\}$/;
// Field value characters fetch can send (RFC 9110 section 5.5): no CR, LF, NUL, nothing beyond Latin-1.
const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;

const scalarSchema = (type: InputType): v.GenericSchema<unknown, Scalar> => {
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
export function customInputSchema(spec: StoredCustomActionSpec): v.GenericSchema<unknown, Inputs> {
  const entries = Object.fromEntries(spec.inputs.map((i) => [i.name, i.required ? scalarSchema(i.type) : v.nullish(scalarSchema(i.type))]));
  return v.strictObject(entries) as unknown as v.GenericSchema<unknown, Inputs>;
}

function outputSchema(spec: StoredCustomActionSpec): v.GenericSchema {
  const entries: Record<string, v.GenericSchema> = Object.fromEntries(spec.outputs.map((o) => [o.name, v.nullable(scalarSchema(o.type))]));
  if (spec.transport === 'ssh') entries.exit_code = v.pipe(v.number(), v.integer());
  return v.object(entries);
}

/** `template` with each placeholder replaced by its input's text ('' for an absent one). */
export function renderTemplate(template: string, inputs: Inputs): string {
  return template.replace(PLACEHOLDER, (placeholder) => {
    const name = placeholderInputs(placeholder)[0];
    const value = name === undefined ? undefined : inputs[name];
    return value == null ? '' : String(value);
  });
}

/** Whether the template reads inputs and every one of them is absent: such a field is left out. */
const allAbsent = (template: string, inputs: Inputs): boolean => {
  const names = placeholderInputs(template);
  return names.length > 0 && names.every((n) => inputs[n] == null);
};

function renderFields(fields: Record<string, string>, inputs: Inputs): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).flatMap(([k, t]) => (allAbsent(t, inputs) ? [] : [[k, renderTemplate(t, inputs)]])));
}

/** The path with each placeholder segment replaced by its value encoded as one segment; an empty value is refused. */
export function renderPath(action: string, path: string, inputs: Inputs): string {
  return path
    .split('/')
    .map((segment) => {
      if (!segment.includes('{{')) return segment;
      const name = placeholderInputs(segment)[0];
      const value = name === undefined ? undefined : inputs[name];
      const text = value == null ? '' : String(value);
      if (text === '') throw new ActionFailure('path_segment_empty', `${action}: path input ${name ?? '?'} is empty, a path segment needs a value`, false);
      return encodeURIComponent(text);
    })
    .join('/');
}

/** The JSON body: rendered strings, or the typed value where a field is exactly one placeholder of a non-string input. */
export function renderBody(spec: StoredCustomActionSpec, fields: Record<string, string>, inputs: Inputs): Record<string, unknown> {
  const types = new Map(spec.inputs.map((i) => [i.name, i.type]));
  const body: Record<string, unknown> = {};
  for (const [key, template] of Object.entries(fields)) {
    if (allAbsent(template, inputs)) continue;
    const only = WHOLE_PLACEHOLDER.test(template) ? placeholderInputs(template)[0] : undefined;
    body[key] = only !== undefined && types.get(only) !== 'string' ? inputs[only] : renderTemplate(template, inputs);
  }
  return body;
}

/** The value at a `$.a.b[0]` path of `root`, or undefined. */
export function readJsonPath(root: unknown, path: string): unknown {
  let value: unknown = root;
  for (const [, key, index] of path.slice(1).matchAll(/\.([^.[]+)|\[(\d+)\]/g)) {
    if (value === null || typeof value !== 'object') return undefined;
    if (index !== undefined) {
      if (!Array.isArray(value)) return undefined;
      value = value[Number(index)];
    } else {
      if (Array.isArray(value) || !Object.hasOwn(value, key ?? '')) return undefined;
      value = (value as Record<string, unknown>)[key ?? ''];
    }
  }
  return value;
}

/** A value as the declared output type, or null when it is missing or is not one. */
function typed(value: unknown, type: InputType): Scalar | null {
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

/** The declared outputs extracted from a parsed JSON document (undefined: none could be read). */
export function extractOutputs(spec: StoredCustomActionSpec, document: unknown): Record<string, Scalar | null> {
  return Object.fromEntries(spec.outputs.map((o) => [o.name, typed(readJsonPath(document, o.path), o.type)]));
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** Sets the value at `path` (`$.input.x`, `$.output.a.b`) of `root` to `[redacted]` when it is there; copies, never mutates. */
function redactAt(root: unknown, keys: string[]): unknown {
  const [key, ...rest] = keys;
  if (key === undefined || root === null || typeof root !== 'object' || Array.isArray(root) || !Object.hasOwn(root, key)) return root;
  const record = root as Record<string, unknown>;
  return { ...record, [key]: rest.length === 0 ? REDACTED : redactAt(record[key], rest) };
}

/** The action-log row with every secret input and every `redact` path masked. */
export function redactRow(spec: StoredCustomActionSpec, row: { input: unknown; output: unknown }): { input: unknown; output: unknown } {
  let { input, output } = row;
  for (const i of spec.inputs) if (i.secret) input = redactAt(input, [i.name]);
  for (const path of spec.redact) {
    const [, root, ...keys] = path.split('.');
    if (root === 'input') input = redactAt(input, keys);
    else output = redactAt(output, keys);
  }
  return { input, output };
}

/** Inputs with the secret and `$.input.<name>`-redacted ones shown as `[redacted]`: what previews render. */
const maskedInputs = (spec: StoredCustomActionSpec, inputs: Inputs): Inputs => {
  const hidden = new Set([
    ...spec.inputs.filter((i) => i.secret).map((i) => i.name),
    ...spec.redact.filter((p) => p.startsWith('$.input.')).map((p) => p.slice(8)),
  ]);
  const masked = { ...inputs };
  for (const name of hidden) if (masked[name] != null) masked[name] = REDACTED;
  return masked;
};

/** Tries `work` up to `max` times while it fails retryably and the step has time left. */
async function withTries<T>(max: number, signal: AbortSignal, sleep: (ms: number) => Promise<void>, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ActionFailure) || !error.retryable || attempt >= max || signal.aborted) throw error;
      await sleep(Math.min(200 * 2 ** (attempt - 1), 2000));
    }
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The step's signal, aborted also when `timeout_s` of the action elapses. */
const boundedSignal = (signal: AbortSignal, timeoutS: number): AbortSignal => AbortSignal.any([signal, AbortSignal.timeout(timeoutS * 1000)]);

/** Builds the runnable action of a stored (enabled) custom action. */
export function customActionDefinition(spec: StoredCustomActionSpec, deps: CustomActionDeps): ActionDefinition<Inputs, Record<string, unknown>> {
  const sleep = deps.sleep ?? defaultSleep;
  const tokens = deps.tokens ?? createTokenSource(deps.fetch);
  const name = spec.name;

  const buildHttp = (inputs: Inputs, context: Pick<ActionContext, 'connection' | 'runId' | 'stepId' | 'attempt'>) => {
    const http = spec.http;
    if (!http) throw new ActionFailure('action_invalid', `${name}: the spec has no http part`, false);
    const connection = requireConnection(name, context, 'http');
    const auth = httpAuth(connection);
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(renderFields(http.headers, inputs))) {
      if (header.toLowerCase() === auth.header.toLowerCase())
        throw new ActionFailure('header_refused', `${name}: the ${header} header is the connection's auth header`, false);
      if (!HEADER_VALUE.test(value))
        throw new ActionFailure('header_invalid', `${name}: header ${header} renders to characters a header cannot carry (CR, LF)`, false);
      headers[header.toLowerCase()] = value;
    }
    const key = spec.idempotency_key === null ? webhookId(context.runId, context.stepId, context.attempt) : renderTemplate(spec.idempotency_key, inputs);
    if (!HEADER_VALUE.test(key)) throw new ActionFailure('header_invalid', `${name}: the idempotency key renders to characters a header cannot carry`, false);
    if (key !== '') headers['idempotency-key'] = key;
    const body = http.body === null ? null : renderBody(spec, http.body, inputs);
    if (body !== null) headers['content-type'] = 'application/json';
    const query = renderFields(http.query, inputs);
    const url = joinUrl(name, connection.base_url, renderPath(name, http.path, inputs), query);
    return { connection, auth, method: http.method, url, headers, query, body };
  };

  const sshLine = (inputs: Inputs): string => {
    const ssh = spec.ssh;
    if (!ssh) throw new ActionFailure('action_invalid', `${name}: the spec has no ssh part`, false);
    const args = ssh.args.filter((a) => !allAbsent(a, inputs)).map((a) => shellQuote(renderTemplate(a, inputs)));
    return [ssh.command, ...args].join(' ');
  };

  const executeHttp = async (inputs: Inputs, context: ActionContext, signal: AbortSignal) => {
    const request = buildHttp(inputs, context);
    const send = (authorization: string | null) =>
      sendOutbound(
        name,
        deps.fetch,
        request.url,
        {
          method: request.method,
          headers: authorization === null ? request.headers : { ...request.headers, [request.auth.header]: authorization },
          ...(request.body === null ? {} : { body: JSON.stringify(request.body) }),
        },
        signal,
      );
    let response: Response;
    if (request.auth.kind === 'oauth2') {
      const first = await tokens.token(name, request.connection, signal);
      response = await send(`Bearer ${first.access_token}`);
      if (response.status === 401) {
        await response.body?.cancel();
        tokens.invalidate(request.connection, first.access_token);
        const fresh = await tokens.token(name, request.connection, signal, true);
        response = await send(`Bearer ${fresh.access_token}`);
      }
    } else {
      response = await send(request.auth.value);
    }
    const text = await readCappedText(name, response, request.url, signal);
    if (response.status >= 400) throw statusFailure(name, request.url, response.status);
    return extractOutputs(spec, text === '' ? undefined : parseJson(text));
  };

  const executeSsh = async (inputs: Inputs, context: ActionContext, signal: AbortSignal) => {
    const result = await sshExec(name, { connection: context.connection, signal }, sshLine(inputs));
    if (result.exit_code !== 0) {
      throw new ActionFailure(
        'command_failed',
        `${name}: ${spec.ssh?.command ?? ''} on ${result.where} ${result.exit_code === -1 ? `ended by signal ${result.signal ?? 'unknown'}` : `exited with ${result.exit_code}`}`,
        false,
      );
    }
    return { exit_code: result.exit_code, ...extractOutputs(spec, spec.outputs.length === 0 ? undefined : parseJson(result.stdout)) };
  };

  return {
    name,
    connectionKind: spec.transport,
    risk: spec.risk,
    ...(spec.risk === 'arbitrary' ? { adminGate: true as const } : {}),
    ...(spec.default_connection === null ? {} : { defaultConnection: spec.default_connection }),
    input: customInputSchema(spec),
    output: outputSchema(spec),
    async execute(inputs, context) {
      const signal = boundedSignal(context.signal, spec.timeout_s);
      return withTries(spec.max_attempts, signal, sleep, () =>
        spec.transport === 'http' ? executeHttp(inputs, context, signal) : executeSsh(inputs, context, signal),
      );
    },
    async preview(inputs, context) {
      const shown = maskedInputs(spec, inputs);
      if (spec.transport === 'ssh') {
        if (!context.connection) throw new ActionFailure('connection_missing', `${name} needs an ssh connection`, false);
        return { connection: context.connection.name, command_line: sshLine(shown) };
      }
      const request = buildHttp(shown, context);
      const headers = { ...request.headers };
      if (request.auth.kind === 'oauth2' || request.auth.value !== null) headers[request.auth.header.toLowerCase()] = REDACTED;
      return { method: request.method, url: request.url.toString(), headers, query: request.query, body: request.body };
    },
    redactLog: (row) => redactRow(spec, row),
  };
}
