/**
 * The twelve managed containment actions and how their vendor answers read (SPEC.md
 * "Managed containment actions"). Pure: the actions in adapters/effects/response-actions.ts call
 * the bound adapter action and bring its output or failure here.
 *
 * - `managedActions`: each `response.*` name with its effect type, target type, role
 *   (`block` creates an effect, `unblock` releases one early, `status` reads back) and the
 *   step input holding the target. SPEC.md names the nine of ip, domain and host; the three
 *   `response.identity_*` ones are ours, for its `disable_identity`/identity effect, which
 *   the shipped identity packs adapt (docs/containment.md).
 * - `applyVerdict`: a block's answer. Success is `enforcement_performed`; a vendor saying
 *   the target is already blocked (`vendor_already_present`) is success that performed
 *   nothing (`already_enforced`); an answer counting zero targets changed (an `affected`
 *   or `affected_count` output of 0) is `adapter_affected_nothing`, and it and every other
 *   failure fail the effect: never a phantom success.
 * - `handleFrom`: the provider handle a block answered with (rule id, decision id, ...),
 *   from the first output named in the input vocabulary's handle names.
 * - `ownershipPlan`: a block on a shared vendor object (an alias many write to) whose
 *   action declares `effect.ownership`: our own entry already there is `already_enforced`
 *   with nothing written; the target there but not as ours is refused with the declared
 *   refusal, nothing written (removing it later would remove someone else's entry);
 *   otherwise the block goes ahead.
 * - `readBack`: whether a read's output says enforced: the declared `enforced_output` equals
 *   one of `enforced_values`, compared trimmed and ignoring case; anything else, a missing
 *   output included, is not enforced.
 */
import type { ManagedEffectType } from '../response-policy/policy.ts';
import type { TargetType } from '../response-policy/targets.ts';
import type { AdapterRole } from './binding.ts';

export type ManagedAction = { effectType: ManagedEffectType; targetType: TargetType; role: AdapterRole; input: 'ip' | 'domain' | 'host' | 'identity' };

export const managedActions: Readonly<Record<string, ManagedAction>> = {
  'response.ip_block': { effectType: 'block', targetType: 'ip', role: 'block', input: 'ip' },
  'response.ip_unblock': { effectType: 'block', targetType: 'ip', role: 'unblock', input: 'ip' },
  'response.ip_status': { effectType: 'block', targetType: 'ip', role: 'status', input: 'ip' },
  'response.domain_block': { effectType: 'block', targetType: 'domain', role: 'block', input: 'domain' },
  'response.domain_unblock': { effectType: 'block', targetType: 'domain', role: 'unblock', input: 'domain' },
  'response.domain_status': { effectType: 'block', targetType: 'domain', role: 'status', input: 'domain' },
  'response.host_isolate': { effectType: 'contain', targetType: 'host', role: 'block', input: 'host' },
  'response.host_release': { effectType: 'contain', targetType: 'host', role: 'unblock', input: 'host' },
  'response.host_status': { effectType: 'contain', targetType: 'host', role: 'status', input: 'host' },
  'response.identity_disable': { effectType: 'disable_identity', targetType: 'identity', role: 'block', input: 'identity' },
  'response.identity_enable': { effectType: 'disable_identity', targetType: 'identity', role: 'unblock', input: 'identity' },
  'response.identity_status': { effectType: 'disable_identity', targetType: 'identity', role: 'status', input: 'identity' },
};

/** Output names a block's answer may carry its provider handle under, in the order they are looked at. */
export const HANDLE_OUTPUTS = ['handle', 'rule_id', 'decision_id', 'external_reference'] as const;
/** Output names a block's answer may count the targets it changed under; zero is `adapter_affected_nothing`. */
export const AFFECTED_OUTPUTS = ['affected', 'affected_count'] as const;

/** Whether an answer counts zero targets changed (an `affected` or `affected_count` output of 0): a block or unblock that did nothing. */
export function affectedNothing(output: unknown): boolean {
  if (output === null || typeof output !== 'object') return false;
  const record = output as Record<string, unknown>;
  return AFFECTED_OUTPUTS.some((name) => record[name] === 0);
}

/** The handle in a bound block action's output, as text; null when it answered none. */
export function handleFrom(output: unknown): string | null {
  if (output === null || typeof output !== 'object') return null;
  const record = output as Record<string, unknown>;
  for (const name of HANDLE_OUTPUTS) {
    const value = record[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return null;
}

/** A bound block action's answer: it resolved with `output`, or failed with an ActionFailure-like `{type, message}`. */
export type AdapterAnswer = { ok: true; output: unknown } | { ok: false; type: string; message: string };

export type ApplyVerdict =
  | { status: 'applied'; enforcementPerformed: boolean; already: boolean; handle: string | null }
  | { status: 'failed'; code: string; message: string };

/** How a block's answer reads for its effect. */
export function applyVerdict(answer: AdapterAnswer): ApplyVerdict {
  if (answer.ok) {
    if (affectedNothing(answer.output)) {
      return { status: 'failed', code: 'adapter_affected_nothing', message: 'the vendor reports that no target was affected' };
    }
    return { status: 'applied', enforcementPerformed: true, already: false, handle: handleFrom(answer.output) };
  }
  if (answer.type === 'vendor_already_present') return { status: 'applied', enforcementPerformed: false, already: true, handle: null };
  return { status: 'failed', code: answer.type, message: answer.message };
}

/** Whether a read's `output` says the target is enforced under the read-back rule. */
export function readBack(output: unknown, enforced: { output: string; values: readonly string[] }): boolean {
  if (output === null || typeof output !== 'object') return false;
  const value = (output as Record<string, unknown>)[enforced.output];
  if (value === null || value === undefined || typeof value === 'object') return false;
  const text = String(value).trim().toLowerCase();
  return enforced.values.some((v) => v.trim().toLowerCase() === text);
}

/** What a block on a shared object does, from the ownership read (`ownEntry`) and the status read (`targetPresent`). */
export function ownershipPlan(ownEntry: boolean, targetPresent: boolean): 'already_enforced' | 'refuse' | 'apply' {
  if (ownEntry) return 'already_enforced';
  return targetPresent ? 'refuse' : 'apply';
}
