/**
 * Reversing an effect through its frozen binding's unblock action (SPEC.md "Managed
 * containment effects": TTL expiry reverses through the bound unblock action; "an unblock
 * of something already gone is success"; a reversal that fails is retried and visible).
 *
 * `reverse(effectId)`: an `active` (or `reversal_failed`) effect starts reversing; the
 * unblock call is resolved from the effect's `parameters_snapshot` with the handle its
 * apply recorded (domain/effects/binding.ts, so a policy published since changes nothing)
 * and run through the registry's implementation, the code a run uses, with an
 * idempotency key of the effect and the reversal attempt. Success, or the vendor saying the
 * target is already gone (`vendor_already_absent`), is `reversed`; an adapter refusal or
 * any other failure is `reversal_failed`, tried again after 60 s doubling up to an hour.
 * An effect found `reversing` (a worker died mid-call) is called again: the unblock is
 * idempotent, and already-gone counts as success. An effect applied as `already_enforced`
 * placed nothing at the vendor (the target was blocked before it, by us or by someone
 * else), so it removes nothing: it is `reversed` as `already_reversed` with no call.
 */
import * as v from 'valibot';
import { resolveAdapter } from '../../domain/effects/binding.ts';
import type { EffectState } from '../../domain/effects/index.ts';
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import type { ActionRegistry } from '../actions/registry.ts';
import type { EffectCommands } from '../commands/effects.ts';
import { boundActionFacts, connectionFacts } from './bound-actions.ts';

const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 3_600_000;
/** Longest one unblock call may take. */
const CALL_TIMEOUT_MS = 60_000;

export type EffectReverserDeps = {
  effects: EffectCommands;
  actions: ActionRegistry;
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
  now: () => Date;
};

export type ReversalOutcome = 'reversed' | 'failed' | 'not_due';

/** When reversal attempt `attempts` (1-based, the one that just failed) is tried again. */
export const retryAfterMs = (attempts: number): number => Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));

export function createEffectReverser(deps: EffectReverserDeps) {
  const failed = async (state: Extract<EffectState, { exists: true }>, code: string, message: string) => {
    const now = deps.now();
    const retryAt = new Date(now.getTime() + retryAfterMs(state.reversalAttempts + 1)).toISOString();
    await deps.effects.decide({ type: 'record_reversal', effectId: state.id, outcome: { status: 'failed', code, message, retryAt }, now: now.toISOString() });
    return 'failed' as const;
  };

  return {
    /** Reverses the effect if it is due one (active, failed reversal, or left reversing); `not_due` for any other state. */
    reverse: async (effectId: string, reason: 'ttl_expired' | 'released' = 'ttl_expired', by: string | null = null): Promise<ReversalOutcome> => {
      let state = await deps.effects.read(effectId);
      if (!state.exists) return 'not_due';
      if (state.status === 'active' || state.status === 'reversal_failed') {
        state = (await deps.effects.decide({ type: 'start_reversal', effectId, reason, by, now: deps.now().toISOString() })).state;
      }
      if (!state.exists || state.status !== 'reversing') return 'not_due';
      if (state.alreadyEnforced) {
        // The vendor had the target blocked before this effect: the effect placed nothing, so it removes nothing.
        await deps.effects.decide({ type: 'record_reversal', effectId, outcome: { status: 'reversed', already: true }, now: deps.now().toISOString() });
        return 'reversed';
      }
      const snapshot = state.snapshot;
      const connection = snapshot ? await deps.resolveConnection(snapshot.binding.connection_name) : null;
      const resolved = resolveAdapter(snapshot, 'unblock', (name) => boundActionFacts(deps.actions, name), connectionFacts(connection), {
        target: state.target,
        scope: null,
        reason: `svc: ${reason === 'ttl_expired' ? 'TTL expired' : 'released'}`,
        ttlSeconds: state.ttlSeconds,
        until: state.expiresAt ?? deps.now().toISOString(),
        handle: state.handle,
      });
      if (!resolved.ok) return failed(state, resolved.refusal.code, resolved.refusal.message);
      const definition = deps.actions.implementation(resolved.call.action);
      const input = definition && v.safeParse(definition.input, resolved.call.input);
      if (!definition || !input?.success) return failed(state, 'adapter_input_invalid', `${resolved.call.action} refused its input`);
      try {
        await definition.execute(input.output, {
          runId: `effect-${state.id}`,
          stepId: 'reverse',
          attempt: state.reversalAttempts + 1,
          caseId: null,
          connection,
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
          cases: null,
          now: deps.now,
        });
      } catch (error) {
        if (error instanceof ActionFailure && error.type === 'vendor_already_absent') {
          await deps.effects.decide({ type: 'record_reversal', effectId, outcome: { status: 'reversed', already: true }, now: deps.now().toISOString() });
          return 'reversed';
        }
        const code = error instanceof ActionFailure ? error.type : 'reversal_error';
        return failed(state, code, error instanceof Error ? error.message : String(error));
      }
      await deps.effects.decide({ type: 'record_reversal', effectId, outcome: { status: 'reversed', already: false }, now: deps.now().toISOString() });
      return 'reversed';
    },
  };
}

export type EffectReverser = ReturnType<typeof createEffectReverser>;
