/**
 * The one port every AI provider sits behind (contract `suite-ai-provider/v1`,
 * SPEC.md "AI settings", "Audit rules for AI").
 *
 * A request is already gated and redacted when it gets here: the port sends it, reads the
 * answer and reports what happened in one of four outcomes. It never throws for anything
 * the provider or the network did, so the caller can write exactly one audit row per call.
 */
import type { AiProvider } from '../../domain/ai/settings.ts';
import type { OutboundFetch } from '../actions/outbound-http.ts';

/** Where and how to reach the configured provider. */
export type ProviderTarget = {
  provider: AiProvider;
  /** Root of the provider's API as configured, e.g. `https://api.example.com/v1` or `http://127.0.0.1:11434`. */
  base_url: string;
  model: string;
  /** The opened key, or null for a provider that needs none (a local daemon). */
  api_key: string | null;
};

/** One structured completion: a system text, a user text, and the JSON Schema the answer must match. */
export type ProviderRequest = {
  system: string;
  prompt: string;
  /** JSON Schema (draft 2020-12 subset) of the object the model must answer with. */
  schema: Record<string, unknown>;
  /** A short name of the answer's shape, for providers that name their structured output. */
  schema_name: string;
  max_tokens: number;
  temperature: number;
  /** The whole call's time limit, milliseconds. */
  timeout_ms: number;
};

/** Tokens as the provider reported them; null when it reported none. */
export type ProviderUsage = { prompt_tokens: number | null; completion_tokens: number | null; total_tokens: number | null };

/**
 * What a call came to.
 * - `answered`: the provider answered; `output` is the parsed JSON (unchecked against the
 *   schema, that is the caller's gate), `text` the raw text it was parsed from.
 * - `output_invalid`: the provider answered, but not with JSON (`text` as received).
 * - `provider_error`: the provider answered with an error status or an error body;
 *   `status` is its HTTP status, `message` its error text (unredacted: the caller redacts).
 * - `timeout`: no answer within `timeout_ms`.
 * - `request_failed`: the call never became an answer (refused by the outbound guard,
 *   connection refused, TLS, DNS, a body that is not the provider's shape).
 * Every outcome but `request_failed` and `timeout` carries the usage it reported.
 */
export type ProviderOutcome =
  | { kind: 'answered'; output: unknown; text: string; usage: ProviderUsage }
  | { kind: 'output_invalid'; text: string; usage: ProviderUsage }
  | { kind: 'provider_error'; status: number | null; message: string; usage: ProviderUsage }
  | { kind: 'timeout'; message: string }
  | { kind: 'request_failed'; message: string };

/** The port: send one request to `target` through `fetch` (the guarded outbound edge). */
export type AiProviderPort = (target: ProviderTarget, request: ProviderRequest, fetch: OutboundFetch) => Promise<ProviderOutcome>;
