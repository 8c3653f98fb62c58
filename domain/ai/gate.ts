/**
 * The AI gate (SPEC.md "Errors": "AI gate order: kill switch, enabled, provider
 * configuration, data classes, request bounds and output schema"; "AI data-class gating").
 *
 * `gateAi` decides the first five steps before anything leaves the install; the sixth,
 * the output schema, is checked on the provider's answer (adapters/ai/invoke.ts). A
 * refusal carries one of SPEC.md's AI codes and an English message with no secret in it.
 */
import { aiProvidersNeedingKey, type AiDataClass, type AiSettings } from './settings.ts';

/** The AI features and the data classes each puts in its prompt (SPEC.md "AI data-class gating"). */
export const aiFeatureClasses = {
  probe: [],
  runbook_draft: [],
  run_explanation: ['alerts', 'cases'],
  triage: ['cases', 'alerts', 'events'],
} as const satisfies Record<string, readonly AiDataClass[]>;

/** A feature with fixed classes, or the bounded agent, whose classes its step declares. */
export type AiFeature = keyof typeof aiFeatureClasses | 'agent';

/** Every AI refusal and failure code of SPEC.md "Errors", plus the transport's own. */
export type AiRefusalCode =
  | 'ai_kill_switch'
  | 'ai_disabled'
  | 'ai_not_configured'
  | 'ai_invalid_config'
  | 'ai_data_class_denied'
  | 'ai_invalid_request'
  | 'ai_provider_error'
  | 'ai_timeout'
  | 'ai_structured_output_invalid'
  | 'ai_triage_output_invalid'
  | 'ai_draft_unknown_action'
  | 'ai_draft_invalid_runbook'
  | 'provider_request_failed';

export type AiRefusal = { code: AiRefusalCode; message: string };

/** What the gate checks a call against. */
export type AiGateInput = {
  killSwitch: boolean;
  settings: AiSettings;
  feature: AiFeature;
  /** The classes the call's prompt carries (the feature's, or an agent step's declaration). */
  classes: readonly AiDataClass[];
  /** Length of the redacted system text and prompt together, characters. */
  promptChars: number;
  maxPromptChars: number;
};

/** The provider to call once the gate admits a call. */
export type AdmittedTarget = { provider: NonNullable<AiSettings['provider']>; base_url: string; model: string; api_key: string | null };

const refuse = (code: AiRefusalCode, message: string): { ok: false; refusal: AiRefusal } => ({ ok: false, refusal: { code, message } });

/**
 * The gate's first five steps, in SPEC.md's order; the first failing step decides.
 * A provider in `aiProvidersNeedingKey` needs a key (its API takes no call without one);
 * the others may run keyless (a local server).
 */
export function gateAi(input: AiGateInput): { ok: true; target: AdmittedTarget } | { ok: false; refusal: AiRefusal } {
  const { settings } = input;
  if (input.killSwitch) return refuse('ai_kill_switch', 'AI is switched off for this install by its operator (SVC_AI_KILL_SWITCH)');
  if (!settings.enabled) return refuse('ai_disabled', 'AI is disabled for this install');
  if (settings.provider === null || settings.base_url === null || settings.model === null) {
    return refuse('ai_not_configured', 'no AI provider is configured for this install');
  }
  if (!validBaseUrl(settings.base_url)) return refuse('ai_invalid_config', 'the AI provider base_url is not an absolute http(s) URL');
  if (aiProvidersNeedingKey.includes(settings.provider) && settings.api_key === null) {
    return refuse('ai_invalid_config', `the AI provider ${settings.provider} needs an api_key`);
  }
  const denied = input.classes.filter((c) => !settings.usage.data_classes.includes(c));
  if (denied.length > 0) {
    return refuse('ai_data_class_denied', `the ${input.feature} feature reads data classes this install does not allow AI to read: ${denied.join(', ')}`);
  }
  if (input.promptChars > input.maxPromptChars) {
    return refuse('ai_invalid_request', `the prompt is ${input.promptChars} characters, over the limit of ${input.maxPromptChars}`);
  }
  return { ok: true, target: { provider: settings.provider, base_url: settings.base_url, model: settings.model, api_key: settings.api_key } };
}

function validBaseUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
}
