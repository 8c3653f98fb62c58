/**
 * The one path every AI call takes (SPEC.md "Audit rules for AI", "AI gate order", "AI
 * data-class gating"): read the settings, gate, redact, send through the provider port,
 * check the answer against its schema, and write exactly one audit row.
 *
 * - A gate refusal writes `ai.refusal` `{product, feature, refusal_code, message}` and
 *   nothing leaves the install.
 * - A call sent to a provider writes `ai.invocation` `{product, feature, provider, model,
 *   prompt_digest, output_digest, prompt_tokens, completion_tokens, total_tokens,
 *   duration_ms}`, plus `refusal_code` when its answer was refused: `ai_provider_error`,
 *   `ai_timeout`, `provider_request_failed` (never became an answer; no tokens),
 *   `ai_structured_output_invalid` or a feature's own check (`ai_triage_output_invalid`).
 *   Tokens are the provider's real counts, kept on refused answers too.
 * - Digests are `sha256:<hex>` of the redacted prompt (system text, a blank line, the
 *   prompt) and of the redacted answer text. No content is audited.
 *
 * A feature whose answer changes the event store (a triage verdict on a case) passes
 * `commit`: the audit row is appended in the same `appendMany` as its events. When that
 * commit fails the row is still recorded alone, then the failure is rethrown, so the
 * call is audited once whatever happens after the provider answered.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { gateAi, type AiFeature, type AiRefusal } from '../../domain/ai/gate.ts';
import { redactDeep, redactSecrets } from '../../domain/ai/redact.ts';
import type { AiDataClass, AiProvider, AiSettings } from '../../domain/ai/settings.ts';
import type { AuditActor, AuditTarget } from '../../domain/audit/events.ts';
import { sha256Hex } from '../../domain/shared/hash-chain.ts';
import type { OutboundFetch } from '../actions/outbound-http.ts';
import type { AuditInput, AuditLog } from '../commands/audit.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import type { AiProviderPort, ProviderOutcome, ProviderUsage } from './provider.ts';

/** Longest provider message a refusal repeats, characters. */
const MAX_PROVIDER_MESSAGE = 500;

export type AiInvokerDeps = {
  settings: { read: () => Promise<AiSettings> };
  /** SVC_AI_KILL_SWITCH. */
  killSwitch: boolean;
  /** SVC_AI_MAX_PROMPT_CHARS: the request bound of the gate. */
  maxPromptChars: number;
  port: AiProviderPort;
  /** The guarded outbound edge. */
  fetch: OutboundFetch;
  /** Builds the audit row's write (its id and time). */
  audit: Pick<AuditLog, 'write'>;
  /** Appends a row alone when no feature event goes with it. */
  store: Pick<EventStore, 'appendMany'>;
  /** The product name audit rows carry. */
  product: string;
};

/** One AI call: what it reads, who asks, what it sends and the shape its answer must have. */
export type AiCall<T> = {
  feature: AiFeature;
  classes: readonly AiDataClass[];
  actor: AuditActor;
  /** What the call is about (`{type: 'case', id}`), for the audit row. */
  target: AuditTarget | null;
  team: string | null;
  system: string;
  prompt: string;
  output: v.GenericSchema<unknown, T>;
  /** A short name of the answer's shape, for providers that name structured output. */
  schemaName: string;
  /** The feature's own check of a well-formed answer; a refusal here is audited with the call. */
  accept?: (output: T) => AiRefusal | null;
};

/** The audit row a call wrote: its id, and the global position to wait for before reading it. */
export type AiAuditRef = { id: string; action: 'ai.invocation' | 'ai.refusal' };

/** A call whose answer passed every check; `output` is redacted. */
export type AiAnswer<T> = {
  ok: true;
  output: T;
  provider: AiProvider;
  model: string;
  output_digest: string;
  usage: ProviderUsage;
  audit: AiAuditRef;
  position: number;
};

/** A refused or failed call; `reached` says whether anything was sent to the provider. */
export type AiFailure = {
  ok: false;
  refusal: AiRefusal;
  reached: boolean;
  provider: AiProvider | null;
  model: string | null;
  audit: AiAuditRef;
  position: number;
};

export type AiInvoker = ReturnType<typeof createAiInvoker>;

const digest = (text: string) => `sha256:${sha256Hex(text)}`;
const NO_USAGE: ProviderUsage = { prompt_tokens: null, completion_tokens: null, total_tokens: null };

/** The AI call path over `deps`. */
export function createAiInvoker(deps: AiInvokerDeps) {
  const auditWrite = (call: AiCall<unknown>, action: AiAuditRef['action'], detail: Record<string, unknown>): { write: StreamWrite; ref: AiAuditRef } => {
    const input: AuditInput = {
      action,
      actor: call.actor,
      target: call.target,
      team: call.team,
      detail: { product: deps.product, feature: call.feature, ...detail },
    };
    const write = deps.audit.write(input);
    return { write, ref: { id: (write.events[0]?.data as { id: string } | undefined)?.id ?? '', action } };
  };

  const recordAlone = async (write: StreamWrite) => (await deps.store.appendMany([write])).lastPosition;

  return {
    /**
     * Runs `call`. Never throws for what the settings, gate or provider decide: those come
     * back as an AiFailure; throws only when the audit row cannot be appended, or `commit`
     * throws (after the row was recorded alone).
     */
    async invoke<T>(
      call: AiCall<T>,
      commit?: (answer: Omit<AiAnswer<T>, 'position'>, audit: StreamWrite) => Promise<number>,
    ): Promise<AiAnswer<T> | AiFailure> {
      const system = redactSecrets(call.system);
      const prompt = redactSecrets(call.prompt);
      const settings = await deps.settings.read();
      const gate = gateAi({
        killSwitch: deps.killSwitch,
        settings,
        feature: call.feature,
        classes: call.classes,
        promptChars: system.length + prompt.length,
        maxPromptChars: deps.maxPromptChars,
      });
      if (!gate.ok) {
        const { write, ref } = auditWrite(call as AiCall<unknown>, 'ai.refusal', { refusal_code: gate.refusal.code, message: gate.refusal.message });
        const position = await recordAlone(write);
        return { ok: false, refusal: gate.refusal, reached: false, provider: null, model: null, audit: ref, position };
      }
      const { target } = gate;
      const started = performance.now();
      const outcome = await deps.port(
        target,
        {
          system,
          prompt,
          schema: toJsonSchema(call.output, { errorMode: 'ignore' }) as Record<string, unknown>,
          schema_name: call.schemaName,
          max_tokens: settings.usage.max_tokens,
          temperature: settings.usage.temperature,
          timeout_ms: settings.usage.timeout_seconds * 1000,
        },
        deps.fetch,
      );
      const judged = judge(call, outcome);
      const usage = 'usage' in outcome ? outcome.usage : NO_USAGE;
      const detail = {
        provider: target.provider,
        model: target.model,
        prompt_digest: digest(`${system}\n\n${prompt}`),
        output_digest: judged.text === null ? null : digest(judged.text),
        prompt_tokens: usage.prompt_tokens ?? 0,
        completion_tokens: usage.completion_tokens ?? 0,
        total_tokens: usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
        duration_ms: Math.round(performance.now() - started),
        ...(judged.ok ? {} : { refusal_code: judged.refusal.code }),
      };
      const { write, ref } = auditWrite(call as AiCall<unknown>, 'ai.invocation', detail);
      if (!judged.ok) {
        const position = await recordAlone(write);
        return { ok: false, refusal: judged.refusal, reached: true, provider: target.provider, model: target.model, audit: ref, position };
      }
      const answer = {
        ok: true as const,
        output: judged.output,
        provider: target.provider,
        model: target.model,
        output_digest: detail.output_digest ?? '',
        usage,
        audit: ref,
      };
      if (commit === undefined) return { ...answer, position: await recordAlone(write) };
      try {
        return { ...answer, position: await commit(answer, write) };
      } catch (error) {
        await recordAlone(write);
        throw error;
      }
    },
  };
}

type Judged<T> = { ok: true; output: T; text: string } | { ok: false; refusal: AiRefusal; text: string | null };

/** The provider's outcome as the call's verdict: the output schema and the feature's check applied to a redacted answer. */
function judge<T>(call: AiCall<T>, outcome: ProviderOutcome): Judged<T> {
  switch (outcome.kind) {
    case 'timeout':
      return { ok: false, refusal: { code: 'ai_timeout', message: redactSecrets(outcome.message) }, text: null };
    case 'request_failed':
      return { ok: false, refusal: { code: 'provider_request_failed', message: redactSecrets(outcome.message) }, text: null };
    case 'provider_error':
      return {
        ok: false,
        refusal: {
          code: 'ai_provider_error',
          message: `the AI provider answered${outcome.status === null ? '' : ` ${outcome.status}`}: ${redactSecrets(outcome.message).slice(0, MAX_PROVIDER_MESSAGE)}`,
        },
        text: null,
      };
    case 'output_invalid':
      return {
        ok: false,
        refusal: { code: 'ai_structured_output_invalid', message: 'the AI provider did not answer with JSON' },
        text: redactSecrets(outcome.text),
      };
    case 'answered': {
      const text = redactSecrets(outcome.text);
      const parsed = v.safeParse(call.output, redactDeep(outcome.output));
      if (!parsed.success) {
        const where = parsed.issues.slice(0, 3).map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`);
        return {
          ok: false,
          refusal: { code: 'ai_structured_output_invalid', message: `the AI answer does not match the ${call.schemaName} schema: ${where.join('; ')}` },
          text,
        };
      }
      const refused = call.accept?.(parsed.output) ?? null;
      return refused === null ? { ok: true, output: parsed.output, text } : { ok: false, refusal: refused, text };
    }
  }
}
