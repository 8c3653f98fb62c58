/**
 * The three provider adapters behind the AI port (contract `suite-ai-provider/v1`, SPEC.md
 * "AI settings", "Audit rules for AI"): one structured completion per call, sent through
 * the guarded outbound edge, reported as one ProviderOutcome and never thrown.
 *
 * Wire formats, per provider kind (`target.base_url` as configured):
 * - `compatible_api`: OpenAI-style chat completions, `POST <base_url>/chat/completions`,
 *   `Authorization: Bearer <api_key>` when a key is set; `model`, `max_tokens`,
 *   `temperature`, `messages` (system, user) and the schema in
 *   `response_format: {type: 'json_schema', json_schema: {name, schema, strict: false}}`.
 * - `vendor_a`: Anthropic-style messages, `POST <base_url>/messages` (base_url like
 *   `https://api.anthropic.com/v1`), `x-api-key` and `anthropic-version: 2023-06-01`;
 *   `model`, `max_tokens`, `temperature`, `system`, `messages`, and the schema in
 *   `output_config.format: {type: 'json_schema', schema}` for models that support native
 *   structured output, else as a forced tool named `json` whose input is the answer (the
 *   SDK decides by model id and schema, see @ai-sdk/anthropic `getModelCapabilities`).
 * - `local_daemon`: Ollama-style, `POST <base_url>/api/chat` (base_url like
 *   `http://127.0.0.1:11434`; one already ending in `/api` is taken as is), `stream: false`,
 *   the schema in `format`, the limits in `options.num_predict` and `options.temperature`
 *   (where Ollama documents them; the provider package would put them at the top level,
 *   where Ollama ignores them), `Authorization: Bearer` only when a key is set.
 *
 * Why the AI SDK (`ai` 6 with @ai-sdk/openai-compatible, @ai-sdk/anthropic and
 * ollama-ai-provider-v2) rather than three vendor SDKs: one structured-output path
 * (`generateText` with `Output.object`) and one error family (APICallError,
 * NoObjectGeneratedError) for all three, the three documented wire formats maintained
 * upstream, and every provider factory takes our `fetch`, so every byte goes through the
 * SSRF-guarded edge. `maxRetries: 0`: each call is one audited call, retries are the caller's.
 *
 * Nothing here logs: the SDK's warning printer is turned off process-wide below.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  APICallError,
  generateText,
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  type LanguageModelUsage,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  Output,
} from 'ai';
import { createOllama } from 'ollama-ai-provider-v2';
import { type OutboundFetch, refusalIn } from '../actions/outbound-http.ts';
import type { AiProviderPort, ProviderOutcome, ProviderRequest, ProviderTarget, ProviderUsage } from './provider.ts';

// The SDK prints provider warnings (e.g. "temperature not supported") with console.warn
// unless this global is false; the service logs nothing of an AI call but its audit row.
globalThis.AI_SDK_LOG_WARNINGS = false;

/** Longest provider error text kept in a `provider_error` outcome. */
const MAX_ERROR_CHARS = 500;

/**
 * The SDK model for `target`, every request sent through `outbound` without following
 * redirects (a redirect would carry the key elsewhere; a 3xx comes back as the answer).
 * Exported for callers that stream (`streamText`); the port itself uses `generateText`.
 * Throws a TypeError when `base_url` is not a URL.
 * @example const model = languageModel({ provider: 'local_daemon', base_url: 'http://127.0.0.1:11434', model: 'llama3.2', api_key: null }, outbound);
 */
export function languageModel(target: ProviderTarget, outbound: OutboundFetch): LanguageModel {
  const fetch = sdkFetch(outbound);
  const base = new URL(target.base_url).href.replace(/\/+$/, '');
  switch (target.provider) {
    case 'compatible_api':
      return createOpenAICompatible({
        name: 'compatible_api',
        baseURL: base,
        ...(target.api_key === null ? {} : { apiKey: target.api_key }),
        supportsStructuredOutputs: true,
        includeUsage: true,
        fetch,
      }).chatModel(target.model);
    case 'vendor_a':
      // An empty key (dropped by sdkFetch) rather than none: with none the SDK would read
      // the process's ANTHROPIC_API_KEY.
      return createAnthropic({ baseURL: base, apiKey: target.api_key ?? '', fetch })(target.model);
    case 'local_daemon':
      return createOllama({
        baseURL: base.endsWith('/api') ? base : `${base}/api`,
        ...(target.api_key === null ? {} : { headers: { authorization: `Bearer ${target.api_key}` } }),
        fetch,
      })(target.model);
  }
}

/**
 * Sends one structured completion (see the module comment for each wire format) and
 * reports what it came to; never throws. `answered` carries the parsed JSON unchecked
 * against the schema (the caller's gate), `output_invalid` the text that was not JSON.
 * @example const outcome = await aiProviderPort(target, { system, prompt, schema, schema_name: 'triage', max_tokens: 800, temperature: 0.2, timeout_ms: 30_000 }, outbound);
 */
export const aiProviderPort: AiProviderPort = async (target, request, outbound) => {
  const host = hostOf(target.base_url);
  if (host === null) return { kind: 'request_failed', message: `${target.provider}: base_url is not a URL` };
  const signal = AbortSignal.timeout(request.timeout_ms);
  try {
    const result = await generateText({
      model: languageModel(target, outbound),
      system: request.system,
      prompt: request.prompt,
      output: Output.object({ schema: jsonSchema(request.schema as JSONSchema7), name: request.schema_name }),
      ...limits(target, request),
      maxRetries: 0,
      abortSignal: signal,
    });
    const usage = usageOf(result.usage);
    try {
      return { kind: 'answered', output: result.output as unknown, text: result.text, usage };
    } catch (error) {
      // No output at all (e.g. the answer stopped at max_tokens before any text).
      if (NoOutputGeneratedError.isInstance(error)) return { kind: 'output_invalid', text: result.text, usage };
      throw error;
    }
  } catch (error) {
    return outcomeOf(error, target, request, host, signal);
  }
};

/** The token limit and temperature where each wire format documents them. */
function limits(target: ProviderTarget, request: ProviderRequest) {
  if (target.provider === 'local_daemon') {
    return { providerOptions: { ollama: { options: { num_predict: request.max_tokens, temperature: request.temperature } } } };
  }
  // Not strict: OpenAI's strict mode refuses (HTTP 400) any schema outside its subset, and
  // the caller checks the answer against the schema anyway.
  const providerOptions = target.provider === 'compatible_api' ? { providerOptions: { compatible_api: { strictJsonSchema: false } } } : {};
  return { maxOutputTokens: request.max_tokens, temperature: request.temperature, ...providerOptions };
}

function outcomeOf(error: unknown, target: ProviderTarget, request: ProviderRequest, host: string, signal: AbortSignal): ProviderOutcome {
  if (NoObjectGeneratedError.isInstance(error)) return { kind: 'output_invalid', text: error.text ?? '', usage: usageOf(error.usage) };
  const refusal = refusalIn(error);
  if (refusal) return { kind: 'request_failed', message: `request to ${host} refused: ${refusal.message}` };
  if (signal.aborted) return { kind: 'timeout', message: `no answer from ${host} within ${request.timeout_ms} ms` };
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    const status = error.statusCode;
    const said = vendorMessage(error.responseBody);
    if (status >= 200 && status < 300) {
      if (said !== null) return { kind: 'provider_error', status, message: said, usage: NO_USAGE };
      return { kind: 'request_failed', message: `${host} answered with a body that is not the ${target.provider} wire format` };
    }
    const body = (error.responseBody ?? '').trim();
    const message = said ?? (body === '' ? `HTTP ${status}` : body.slice(0, MAX_ERROR_CHARS));
    return { kind: 'provider_error', status, message, usage: NO_USAGE };
  }
  const code = errorCode(error);
  return { kind: 'request_failed', message: `request to ${host} failed${code === null ? '' : ` (${code})`}` };
}

/**
 * The provider's own error text in a JSON error body, at most 500 characters, or null:
 * `error.message` (OpenAI-style and Anthropic-style), `error` as a string (Ollama),
 * `message` or `detail` as a string (other OpenAI-compatible servers).
 */
function vendorMessage(body: string | undefined): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? '');
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object') return null;
  const { error, message, detail } = parsed as { error?: unknown; message?: unknown; detail?: unknown };
  const nested = error !== null && typeof error === 'object' ? (error as { message?: unknown }).message : undefined;
  const said = [nested, error, message, detail].find((m): m is string => typeof m === 'string' && m.trim() !== '');
  return said === undefined ? null : said.slice(0, MAX_ERROR_CHARS);
}

const NO_USAGE: ProviderUsage = { prompt_tokens: null, completion_tokens: null, total_tokens: null };

function usageOf(usage: LanguageModelUsage | undefined): ProviderUsage {
  return { prompt_tokens: usage?.inputTokens ?? null, completion_tokens: usage?.outputTokens ?? null, total_tokens: usage?.totalTokens ?? null };
}

/** A system error code (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET) in the cause chain: names a failure, never a secret. */
function errorCode(error: unknown): string | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
  }
  return null;
}

function hostOf(baseUrl: string): string | null {
  try {
    return new URL(baseUrl).host;
  } catch {
    return null;
  }
}

/** `outbound` with the fetch signature the SDK takes; redirects are not followed and empty headers are not sent. */
function sdkFetch(outbound: OutboundFetch): typeof globalThis.fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    if (input instanceof Request) throw new TypeError('the AI SDK passed a Request; only a URL is supported');
    const headers = new Headers(init?.headers);
    for (const [name, value] of [...headers]) if (value === '') headers.delete(name);
    return outbound(String(input), { ...init, headers, redirect: 'manual' });
  }) as typeof globalThis.fetch;
}
