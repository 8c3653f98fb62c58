/**
 * The install's AI settings (SPEC.md "AI settings"): two halves with two owners.
 *
 * - The provider half belongs to the identity service (`PUT /peer/v1/settings/ai`):
 *   `enabled`, `provider`, `base_url`, `model` and the write-only `api_key`.
 * - The usage half belongs to the install's admins (`PUT /settings/ai`): the data classes
 *   AI may read, `max_tokens`, `temperature` and `timeout_seconds`.
 *
 * Pure shapes and rules; the store (adapters/ai/settings-store.ts) seals the key.
 */
import * as v from 'valibot';

/** The provider kinds of contract `suite-ai-provider/v1`: an OpenAI-style chat completions API, an Anthropic-style messages API, an Ollama-style local daemon. */
export const aiProviders = ['compatible_api', 'vendor_a', 'local_daemon'] as const;
export type AiProvider = (typeof aiProviders)[number];

/** What a feature may put in a prompt (SPEC.md "AI data-class gating"). */
export const aiDataClasses = ['alerts', 'events', 'cases', 'pipelines'] as const;
export type AiDataClass = (typeof aiDataClasses)[number];

/** The AI contract version every provider adapter implements. */
export const AI_PROVIDER_CONTRACT = 'suite-ai-provider/v1';

/** Bounds of the usage half: what an admin may set. */
export const AI_USAGE_BOUNDS = {
  max_tokens: { min: 1, max: 32_768 },
  temperature: { min: 0, max: 2 },
  timeout_seconds: { min: 1, max: 300 },
} as const;

/** The usage half as stored and answered by `GET /settings/ai`. */
export const aiUsageSchema = v.strictObject({
  data_classes: v.array(v.picklist(aiDataClasses)),
  max_tokens: v.pipe(v.number(), v.integer(), v.minValue(AI_USAGE_BOUNDS.max_tokens.min), v.maxValue(AI_USAGE_BOUNDS.max_tokens.max)),
  temperature: v.pipe(v.number(), v.minValue(AI_USAGE_BOUNDS.temperature.min), v.maxValue(AI_USAGE_BOUNDS.temperature.max)),
  timeout_seconds: v.pipe(v.number(), v.integer(), v.minValue(AI_USAGE_BOUNDS.timeout_seconds.min), v.maxValue(AI_USAGE_BOUNDS.timeout_seconds.max)),
});
export type AiUsage = v.InferOutput<typeof aiUsageSchema>;

/** The provider half, the key excepted: what `GET /peer/v1/settings/ai` answers. */
export const aiProviderSettingsSchema = v.strictObject({
  enabled: v.boolean(),
  provider: v.nullable(v.picklist(aiProviders)),
  base_url: v.nullable(v.string()),
  model: v.nullable(v.string()),
  key_configured: v.boolean(),
});
export type AiProviderSettings = v.InferOutput<typeof aiProviderSettingsSchema>;

/** Everything an AI call needs of the settings, the key opened (never shown, logged or stored in clear). */
export type AiSettings = AiProviderSettings & { api_key: string | null; usage: AiUsage };

/** Longest `api_key` the provider half takes, characters. */
export const AI_API_KEY_MAX_CHARS = 4096;
/** Longest `base_url` the provider half takes, characters. */
export const AI_BASE_URL_MAX_CHARS = 2048;
/** Longest `model` name, characters. */
export const AI_MODEL_MAX_CHARS = 200;

/**
 * `raw` as the provider half stores it: an absolute http(s) URL without credentials,
 * query or fragment, its trailing slashes removed (`http://127.0.0.1:11434/` becomes
 * `http://127.0.0.1:11434`), so the same endpoint always compares equal; null when `raw`
 * is not such a URL.
 */
export function normalizeAiBaseUrl(raw: string): string | null {
  if (raw.length > AI_BASE_URL_MAX_CHARS || /[?#\s]/u.test(raw) || !URL.canParse(raw)) return null;
  const url = new URL(raw);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.hostname === '') return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

const baseUrlSchema = v.pipe(
  v.string(),
  v.check((s) => normalizeAiBaseUrl(s) !== null, 'must be an absolute http or https URL without credentials, query or fragment'),
  v.transform((s) => normalizeAiBaseUrl(s) ?? s),
);

/** 1-200 printable characters, no surrounding space (model names such as `llama3.1:8b`). */
const modelSchema = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(AI_MODEL_MAX_CHARS),
  v.regex(/^[^\p{C}]*$/u, 'must be printable characters only'),
  v.check((s) => s.trim() === s, 'must not start or end with a space'),
);

/** A new key: 1-4096 characters, no control characters (it travels in an HTTP header). */
const apiKeySchema = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(AI_API_KEY_MAX_CHARS),
  v.regex(/^[^\p{Cc}]*$/u, 'must not contain control characters'),
);

/** `PUT /peer/v1/settings/ai` turning AI on or off and nothing else. */
export const aiProviderToggleSchema = v.strictObject({ enabled: v.boolean() });

/**
 * `PUT /peer/v1/settings/ai` with a full provider configuration. `api_key` absent keeps
 * the stored key, only while `provider` and `base_url` stay the same; `null` removes it
 * (a keyless local daemon); a string replaces it.
 */
export const aiProviderConfigSchema = v.strictObject({
  enabled: v.boolean(),
  provider: v.picklist(aiProviders),
  base_url: baseUrlSchema,
  model: modelSchema,
  api_key: v.optional(v.nullable(apiKeySchema)),
});

/** Either body of `PUT /peer/v1/settings/ai`. */
export const aiProviderBodySchema = v.union([aiProviderToggleSchema, aiProviderConfigSchema]);
export type AiProviderBody = v.InferOutput<typeof aiProviderBodySchema>;

/** The option of aiProviderBodySchema a parsed JSON `body` is meant as: the toggle when its only key is `enabled`. */
export function aiProviderBodyOption(body: unknown): typeof aiProviderToggleSchema | typeof aiProviderConfigSchema {
  const onlyEnabled = typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).join() === 'enabled';
  return onlyEnabled ? aiProviderToggleSchema : aiProviderConfigSchema;
}

/** The provider-half keys an audit entry may name as changed (`api_key` by name only). */
export const aiProviderKeys = ['enabled', 'provider', 'base_url', 'model', 'api_key'] as const;

/** `data_classes` without repeats, in the order of aiDataClasses, so two equal allowlists compare equal. */
export function canonicalDataClasses(classes: readonly AiDataClass[]): AiDataClass[] {
  return aiDataClasses.filter((c) => classes.includes(c));
}

/** Providers whose API takes no call without a key (the others may run keyless, as a local server does). */
export const aiProvidersNeedingKey: readonly AiProvider[] = ['vendor_a'];

/** What `GET /settings/ai/status` answers: the effective state; `provider` and `model` only when AI is effectively on. */
export const aiStatusSchema = v.strictObject({
  enabled: v.boolean(),
  provider: v.nullable(v.picklist(aiProviders)),
  model: v.nullable(v.string()),
});
export type AiStatus = v.InferOutput<typeof aiStatusSchema>;

/**
 * The effective state of AI on this install: on only when the operator's kill switch is
 * off, the identity service enabled it, and a provider is configured (provider,
 * base_url, model, and a key where the provider needs one). Nothing else is shown.
 */
export function aiStatusOf(settings: AiProviderSettings, killSwitch: boolean): AiStatus {
  const { provider, base_url, model } = settings;
  const configured = provider !== null && base_url !== null && model !== null && (settings.key_configured || !aiProvidersNeedingKey.includes(provider));
  if (killSwitch || !settings.enabled || !configured) return { enabled: false, provider: null, model: null };
  return { enabled: true, provider, model };
}
