/**
 * The verdict of an http custom action's `effect.outcome` on one answer (SPEC.md "Managed
 * containment actions", "Exit and verdict handling": "with it, a 2xx with another verdict
 * fails carrying the vendor message, and the vendor message decides conflict or
 * not-found"; docs/configuration.md "Custom actions", "Effect declarations"). Shared by
 * the runnable action and the pack test.
 *
 * On an answer under 400 (a 2xx: a redirect is never followed):
 * - Success when the `output` value, as text and trimmed, equals one of `success`
 *   ignoring case (the read-back rule's comparison). A missing verdict is no success.
 * - Otherwise the `message` output (as text, trimmed; '' when missing) decides: it
 *   contains one of `already_present`, ignoring case, and none of `already_absent`:
 *   `vendor_already_present` (a duplicate block); the reverse: `vendor_already_absent` (an
 *   unblock of something gone); neither, or both: `vendor_refused`. A fragment is literal
 *   text, never a pattern, so an ambiguous message never reads as already done.
 * On a final error status (400 to 499 but 429), which some vendors answer a duplicate or
 * a missing object with, the message decides the same way between the two `already_*`
 * types, and otherwise there is no verdict: the status failure stands. On 429 and 5xx
 * (retried as they are) there is none either.
 *
 * Each failure is final; issue 22's managed layer takes the two `already_*` types as
 * success of a block or of a reversal.
 */
import { renderTemplate, type CustomInputs, type Scalar } from './render.ts';
import type { CustomOutcome } from './spec.ts';

export type OutcomeFailureType = 'vendor_refused' | 'vendor_already_present' | 'vendor_already_absent';
/** `detail`: the vendor's message (at most 300 characters), or what the verdict was when it sent none. */
export type OutcomeVerdict = { ok: true } | { ok: false; type: OutcomeFailureType; detail: string };

const MAX_DETAIL = 300;
const textOf = (value: Scalar | null | undefined): string | null => (value == null ? null : String(value).trim());

/**
 * The verdict of `outcome` on an answer of `status` whose declared outputs are `outputs`;
 * null when the status alone decides. A success value may name the step's `inputs`
 * (`{{ inputs.target }}`: success when the answer names the very device acted on).
 */
export function outcomeVerdict(
  outcome: CustomOutcome,
  status: number,
  outputs: Readonly<Record<string, Scalar | null>>,
  inputs: CustomInputs,
): OutcomeVerdict | null {
  const verdict = textOf(outputs[outcome.output]);
  const success = outcome.success.map((s) => renderTemplate(s, inputs).toLowerCase());
  if (status < 400 && verdict !== null && success.includes(verdict.toLowerCase())) return { ok: true };
  const message = textOf(outputs[outcome.message]) ?? '';
  const lower = message.toLowerCase();
  const present = outcome.already_present.some((m) => lower.includes(m.toLowerCase()));
  const absent = outcome.already_absent.some((m) => lower.includes(m.toLowerCase()));
  const type: OutcomeFailureType = present && !absent ? 'vendor_already_present' : absent && !present ? 'vendor_already_absent' : 'vendor_refused';
  if (status >= 400 && (type === 'vendor_refused' || status >= 500 || status === 429)) return null;
  const said = verdict === null ? `no ${outcome.output} in the answer` : `${outcome.output} is ${JSON.stringify(verdict)}, not a success value`;
  const detail = message === '' ? said : message.length > MAX_DETAIL ? `${message.slice(0, MAX_DETAIL)}…` : message;
  return { ok: false, type, detail };
}
