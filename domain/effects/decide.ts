/**
 * Effect decisions (SPEC.md "Managed containment effects"):
 * - request: a new effect, frozen binding and all; with an adapter refusal it is
 *   `degraded` in the same decision and never becomes active. A second request of the
 *   same effect id decides nothing (the step retried after its append).
 * - record_apply: only a `pending` effect takes the vendor's verdict: `applied` makes it
 *   active until now + TTL (a vendor that says "already blocked" counts, with
 *   `already_enforced`), `failed` ends it (`adapter_affected_nothing` among the codes). A
 *   verdict for an effect past pending decides nothing, so a verdict recorded twice lands once.
 * - start_reversal: an `active` effect, or a `reversal_failed` one being tried again,
 *   starts reversing; any other is refused 409 `effect_not_active` (or decides nothing
 *   when it is already reversing or reversed).
 * - record_reversal: only a `reversing` effect takes it: `reversed` (`already_reversed`
 *   when the vendor had nothing left to undo), or `reversal_failed` with its attempt count
 *   and next try. Never forgotten: a failed reversal stays visible until one succeeds.
 */
import { conflict, notFound } from '../shared/errors.ts';
import { assertNever } from '../shared/messages.ts';
import type { EffectCommand } from './commands.ts';
import type { EffectEvent } from './events.ts';
import type { EffectState } from './state.ts';

export function decideEffect(command: EffectCommand, state: EffectState): EffectEvent[] {
  if (command.type === 'request') {
    if (state.exists) return [];
    const requested: EffectEvent = {
      type: 'effect.requested',
      data: {
        effect_id: command.effectId,
        effect_type: command.effectType,
        target_type: command.targetType,
        target: command.target,
        ttl_seconds: command.ttlSeconds,
        parameters_snapshot: command.snapshot,
        snapshot_digest: command.snapshotDigest,
        run_id: command.origin.runId,
        step_id: command.origin.stepId,
        attempt: command.origin.attempt,
        case_id: command.origin.caseId,
        by: command.origin.by,
        at: command.now,
      },
    };
    if (command.refusal === null) return [requested];
    return [
      requested,
      { type: 'effect.degraded', data: { effect_id: command.effectId, code: command.refusal.code, message: command.refusal.message, at: command.now } },
    ];
  }
  if (!state.exists) throw notFound('effect_not_found', 'effect not found', { effect_id: command.effectId });
  switch (command.type) {
    case 'record_apply': {
      if (state.status !== 'pending') return [];
      const o = command.outcome;
      if (o.status === 'failed') return [{ type: 'effect.apply_failed', data: { effect_id: state.id, code: o.code, message: o.message, at: command.now } }];
      const expiresAt = new Date(Date.parse(command.now) + state.ttlSeconds * 1000).toISOString();
      return [
        {
          type: 'effect.applied',
          data: {
            effect_id: state.id,
            enforcement_performed: o.enforcementPerformed,
            already_enforced: o.already,
            handle: o.handle,
            expires_at: expiresAt,
            at: command.now,
          },
        },
      ];
    }
    case 'start_reversal':
      if (state.status === 'reversing' || state.status === 'reversed') return [];
      if (state.status !== 'active' && state.status !== 'reversal_failed') {
        throw conflict('effect_not_active', `the effect is ${state.status}: only an active effect is reversed`, { effect_id: state.id, status: state.status });
      }
      return [{ type: 'effect.reversal_started', data: { effect_id: state.id, reason: command.reason, by: command.by, at: command.now } }];
    case 'record_reversal': {
      if (state.status !== 'reversing') return [];
      const o = command.outcome;
      if (o.status === 'reversed') return [{ type: 'effect.reversed', data: { effect_id: state.id, already_reversed: o.already, at: command.now } }];
      return [
        {
          type: 'effect.reversal_failed',
          data: { effect_id: state.id, code: o.code, message: o.message, attempts: state.reversalAttempts + 1, retry_at: o.retryAt, at: command.now },
        },
      ];
    }
    default:
      return assertNever(command);
  }
}
