/**
 * How a refused or failed AI call fails the runbook step that made it (`ai.triage`,
 * `ai.agent`; SPEC.md "Errors" AI codes): the step's error is `<code>: <message>`, and
 * only the provider's or the network's passing trouble is worth another attempt.
 */
import type { AiRefusal } from '../../domain/ai/gate.ts';
import { ActionFailure } from '../actions/action.ts';

/** AI codes another attempt may get past; the gate's refusals and invalid answers are final. */
const RETRYABLE: ReadonlySet<string> = new Set(['ai_timeout', 'ai_provider_error', 'provider_request_failed']);

/** The step failure of `refusal` (already audited by the call path). */
export const aiStepFailure = (refusal: AiRefusal): ActionFailure =>
  new ActionFailure(refusal.code, `${refusal.code}: ${refusal.message}`, RETRYABLE.has(refusal.code));
