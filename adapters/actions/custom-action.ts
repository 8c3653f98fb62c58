/**
 * A stored custom action as a runnable action (SPEC.md "Custom action (operator-authored)";
 * docs/configuration.md "Custom actions"). The spec was validated when it was saved
 * (domain/custom-actions/spec.ts, templates.ts), so rendering (domain/custom-actions/render.ts,
 * shared with the integration pack test) is plain substitution of `{{ inputs.<name> }}`
 * placeholders by the step's declared input values: no Liquid, nothing else reachable,
 * never a secret.
 *
 * HTTP: the connection's base_url + the declared path, each path placeholder URL-encoded
 * as one segment (an empty value is refused, final `path_segment_empty`); query fields
 * through URLSearchParams; rendered headers (CR, LF or other characters a header cannot
 * carry are refused, final `header_invalid`); a JSON body of the rendered fields, where a
 * field that is exactly one placeholder of a non-string input keeps the typed value. A
 * query, header or body field whose placeholders all name inputs the step left out is
 * not sent. `Idempotency-Key` is the rendered `idempotency_key`, else the delivery id
 * (ActionContext.deliveryId, as notify.webhook's `webhook-id`): the same on a retry and
 * on the re-execution after a worker crash, new for a goto pass and per `for_each` item. Auth is the connection's, as
 * `http.request` does it (header or oauth2 client credentials). The output is the
 * declared outputs read from the response by their `$.a.b[0]` paths (missing or of
 * another type: null): a JSON answer, or an XML one (`application/xml`, `text/xml`,
 * `+xml`) read into nested objects by domain/custom-actions/xml-answer.ts; the raw body
 * is never kept. With `effect.outcome`, a 2xx whose verdict is not a success fails the
 * step, final, as `vendor_refused`, `vendor_already_present` or `vendor_already_absent`,
 * and a 4xx whose message says already present or absent as one of the last two
 * (domain/custom-actions/outcome.ts), carrying the vendor's message (`[redacted]` when
 * its output is redacted). `enforced_*` and `ownership` are declarations for the managed
 * containment actions (issue 22) and change no run here.
 *
 * SSH: the bare command and each rendered argument single-quoted on its own, run with
 * `sshExec`; output `{exit_code, <outputs>}`, the outputs read from stdout as JSON. A
 * non-zero exit fails the step (`command_failed`); with `effect.exit` the command's own
 * wording decides first (domain/custom-actions/ssh-verdict.ts): a refusal fails even on
 * exit 0, and a declared exit code with its wording fails as `vendor_already_present` or
 * `vendor_already_absent`, which the managed layer reads as already done.
 *
 * `timeout_s` bounds each execution (besides the step's own deadline); `max_attempts`
 * tries a retryable failure again within one step attempt. `redactLog` masks every
 * `secret` input and every `redact` path as `[redacted]` in the action log.
 */
import { outcomeVerdict } from '../../domain/custom-actions/outcome.ts';
import { lastErrorLine, sshVerdict } from '../../domain/custom-actions/ssh-verdict.ts';
import { managedEffectTypes, type StoredCustomActionSpec } from '../../domain/custom-actions/spec.ts';
import {
  customInputSchema,
  customOutputSchema,
  extractOutputs,
  parseJsonText,
  readAnswer,
  RenderFailure,
  renderHttp,
  renderSshArgs,
  type CustomInputs,
} from '../../domain/custom-actions/render.ts';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { httpAuth } from './http-request.ts';
import { webhookId } from './notify-webhook.ts';
import { createTokenSource, type TokenSource } from './oauth2-token.ts';
import { joinUrl, readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from './outbound-http.ts';
import { shellQuote, sshExec } from './ssh-command.ts';

export type CustomActionDeps = { fetch: OutboundFetch; tokens?: TokenSource; sleep?: (ms: number) => Promise<void> };

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
const maskedInputs = (spec: StoredCustomActionSpec, inputs: CustomInputs): CustomInputs => {
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

/** Runs `render`, its RenderFailure as the final ActionFailure of the same type. */
function final<T>(render: () => T): T {
  try {
    return render();
  } catch (error) {
    if (error instanceof RenderFailure) throw new ActionFailure(error.type, error.message, false);
    throw error;
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The step's signal, aborted also when `timeout_s` of the action elapses. */
const boundedSignal = (signal: AbortSignal, timeoutS: number): AbortSignal => AbortSignal.any([signal, AbortSignal.timeout(timeoutS * 1000)]);

/** Builds the runnable action of a stored (enabled) custom action. */
export function customActionDefinition(spec: StoredCustomActionSpec, deps: CustomActionDeps): ActionDefinition<CustomInputs, Record<string, unknown>> {
  const sleep = deps.sleep ?? defaultSleep;
  const tokens = deps.tokens ?? createTokenSource(deps.fetch);
  const name = spec.name;

  const buildHttp = (inputs: CustomInputs, context: Pick<ActionContext, 'connection' | 'deliveryId'>) => {
    if (!spec.http) throw new ActionFailure('action_invalid', `${name}: the spec has no http part`, false);
    const connection = requireConnection(name, context, 'http');
    const auth = httpAuth(connection, name);
    const rendered = final(() => renderHttp(spec, inputs, auth.header));
    const headers = { ...rendered.headers };
    const key = rendered.idempotencyKey ?? webhookId(context.deliveryId);
    if (key !== '') headers['idempotency-key'] = key;
    if (rendered.body !== null) headers['content-type'] = 'application/json';
    const url = joinUrl(name, connection.base_url, rendered.path, rendered.query);
    return { connection, auth, method: rendered.method, url, headers, query: rendered.query, body: rendered.body };
  };

  const sshLine = (inputs: CustomInputs): string => {
    const ssh = spec.ssh;
    if (!ssh) throw new ActionFailure('action_invalid', `${name}: the spec has no ssh part`, false);
    return [ssh.command, ...renderSshArgs(spec, inputs).map(shellQuote)].join(' ');
  };

  const executeHttp = async (inputs: CustomInputs, context: ActionContext, signal: AbortSignal) => {
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
    const outputs = extractOutputs(spec, readAnswer(text, response.headers.get('content-type')).document, inputs);
    const outcome = spec.effect?.outcome;
    const verdict = outcome ? outcomeVerdict(outcome, response.status, outputs, inputs) : null;
    // A message output the action redacts stays out of the step's error as it stays out of its log.
    const messageRedacted = outcome !== undefined && spec.redact.includes(`$.output.${outcome.message}`);
    if (outcome && verdict && !verdict.ok) throw new ActionFailure(verdict.type, `${name}: ${messageRedacted ? REDACTED : verdict.detail}`, false);
    if (response.status >= 400) {
      const said = outcome && !messageRedacted ? outputs[outcome.message] : null;
      throw statusFailure(name, request.url, response.status, typeof said === 'string' && said.trim() !== '' ? said.trim().slice(0, 300) : null);
    }
    return outputs;
  };

  const executeSsh = async (inputs: CustomInputs, context: ActionContext, signal: AbortSignal) => {
    const result = await sshExec(name, { connection: context.connection, signal }, sshLine(inputs));
    const exit = spec.effect?.exit;
    const verdict = exit && result.exit_code !== -1 ? sshVerdict(exit, result) : null;
    if (verdict && !verdict.ok) throw new ActionFailure(verdict.type, `${name}: ${verdict.detail}`, false);
    if (result.exit_code !== 0) {
      // The command's own last error line says why (the CLI's service error).
      const said = lastErrorLine(result.stderr);
      const ended = result.exit_code === -1 ? `ended by signal ${result.signal ?? 'unknown'}` : `exited with ${result.exit_code}`;
      throw new ActionFailure('command_failed', `${name}: ${spec.ssh?.command ?? ''} on ${result.where} ${ended}${said === null ? '' : `: ${said}`}`, false);
    }
    return { exit_code: result.exit_code, ...extractOutputs(spec, spec.outputs.length === 0 ? undefined : parseJsonText(result.stdout), inputs) };
  };

  return {
    name,
    connectionKind: spec.transport,
    risk: spec.risk,
    ...(spec.risk === 'arbitrary' ? { adminGate: true as const } : {}),
    ...(spec.default_connection === null ? {} : { defaultConnection: spec.default_connection }),
    ...(spec.effect === undefined ? {} : { effect: spec.effect }),
    ...(spec.compensation ? { compensation: spec.compensation.action } : {}),
    ...(managedEffectTypes.includes(spec.effect_type) ? { managedAdapter: true as const } : {}),
    input: customInputSchema(spec),
    output: customOutputSchema(spec),
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
