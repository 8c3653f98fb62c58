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
 * any other failure is `reversal_failed`, tried again after 60 s doubling up to an hour,
 * unless the binding's status read, by its declared state, shows the effect no longer in
 * place (a vendor refusing to undo what is already undone): then it is `already_reversed`.
 * An unblock declaring `effect.ownership` first asks its ownership read: our entry gone
 * means the entry there is someone else's, which stays (`already_reversed`, no call).
 * An effect found `reversing` (a worker died mid-call) is called again: the unblock is
 * idempotent, and already-gone counts as success. An effect applied as `already_enforced`
 * placed nothing at the vendor (the target was blocked before it, by us or by someone
 * else), so it removes nothing: it is `reversed` as `already_reversed` with no call.
 *
 * Every recorded outcome carries an audit entry `effect.reverse` in the same append (actor:
 * the person releasing early, else the system via `effect_expiry` or `runbook_run`):
 * `effect_type`, `target_type`, `target`, `adapter_id`, `reason`, `outcome` (`reversed`,
 * `already_reversed`, `reversal_failed`) and, on a failure, `code` and `attempts`.
 */
import type { Vocabulary } from '../../domain/effects/binding.ts';
import type { AuditActor } from '../../domain/audit/events.ts';
import type { EffectCommand, EffectEvent, EffectState } from '../../domain/effects/index.ts';
import type { ResolvedConnection } from '../actions/action.ts';
import type { ActionRegistry } from '../action-registry/registry.ts';
import { systemActor, type AuditLog } from '../commands/audit.ts';
import type { EffectCommands, KnownEffect } from '../commands/effects.ts';
import { affectedNothing } from '../../domain/effects/managed.ts';
import { callBoundAction, readBound, resolveBound } from './bound-actions.ts';

const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 3_600_000;
/** Longest one unblock call may take. */
const CALL_TIMEOUT_MS = 60_000;

export type EffectReverserDeps = {
  effects: EffectCommands;
  audit: AuditLog;
  actions: ActionRegistry;
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
  now: () => Date;
};

/**
 * What a reversal did, the store position it wrote last (null: nothing), and whether the
 * vendor undid something (false for an effect that was already enforced or already gone).
 */
export type ReversalOutcome = { outcome: 'reversed' | 'failed' | 'not_due'; position: number | null; performed: boolean };
/** Why an effect is reversed: its TTL ended, or someone released it early (a person, or a run's unblock step). */
export type ReversalReason = 'ttl_expired' | 'released';
type Applied = Extract<EffectState, { exists: true }>;
/** An effect that exists, with its stream version. */
type Known = { state: Applied; version: number };

/** When reversal attempt `attempts` (1-based, the one that just failed) is tried again. */
export const retryAfterMs = (attempts: number): number => Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));

export function createEffectReverser(deps: EffectReverserDeps) {
  /** Records `outcome` with its audit entry by `actor`, against the effect as `known` (its `reversing` state and version). */
  const record = (known: Known, reason: ReversalReason, actor: AuditActor, outcome: Extract<EffectCommand, { type: 'record_reversal' }>['outcome']) => {
    const state = known.state;
    return deps.effects.decide(
      { type: 'record_reversal', effectId: state.id, outcome, now: deps.now().toISOString() },
      (events: EffectEvent[]) =>
        events.map((e) =>
          deps.audit.write({
            action: 'effect.reverse',
            actor,
            target: { type: 'effect', id: state.id },
            team: null,
            detail: {
              effect_type: state.effectType,
              target_type: state.targetType,
              target: state.target,
              adapter_id: state.snapshot?.binding.adapter_id ?? null,
              reason,
              ...(e.type === 'effect.reversal_failed'
                ? { outcome: 'reversal_failed', code: e.data.code, attempts: e.data.attempts }
                : { outcome: e.type === 'effect.reversed' && e.data.already_reversed ? 'already_reversed' : 'reversed' }),
            },
          }),
        ),
      known,
    );
  };
  const failed = async (known: Known, reason: ReversalReason, actor: AuditActor, code: string, message: string): Promise<ReversalOutcome> => {
    const retryAt = new Date(deps.now().getTime() + retryAfterMs(known.state.reversalAttempts + 1)).toISOString();
    const r = await record(known, reason, actor, { status: 'failed', code, message, retryAt });
    return { outcome: 'failed', position: r.position, performed: false };
  };
  const reversed = async (known: Known, reason: ReversalReason, actor: AuditActor, already: boolean): Promise<ReversalOutcome> => {
    const r = await record(known, reason, actor, { status: 'reversed', already });
    return { outcome: 'reversed', position: r.position, performed: !already };
  };
  const notDue: ReversalOutcome = { outcome: 'not_due', position: null, performed: false };

  return {
    /**
     * Reverses the effect if it is due one (active, failed reversal, or left reversing);
     * `not_due` for any other state. `by`: who releases it early (null: the TTL expiry).
     */
    reverse: async (effectId: string, reason: ReversalReason = 'ttl_expired', by: AuditActor | null = null): Promise<ReversalOutcome> => {
      const actor = by ?? systemActor('effect_expiry');
      let current: KnownEffect = await deps.effects.load(effectId);
      const loaded = current.state;
      if (!loaded.exists) return notDue;
      // The unblock acts on the target, TTL and handle as loaded: starting the reversal changes none of them.
      const snapshot = loaded.snapshot;
      const vocabulary: Vocabulary = {
        target: loaded.target,
        scope: null,
        reason: `svc: ${reason === 'ttl_expired' ? 'TTL expired' : 'released'}`,
        ttlSeconds: loaded.ttlSeconds,
        until: loaded.expiresAt ?? deps.now().toISOString(),
        handle: loaded.handle,
      };
      const bound = { registry: deps.actions, resolveConnection: deps.resolveConnection };
      // Resolved while the start is appended (neither waits for the other); not needed when nothing is due or nothing was placed.
      const binding = resolveBound(bound, snapshot, 'unblock', vocabulary);
      binding.catch(() => {});
      if (loaded.status === 'active' || loaded.status === 'reversal_failed') {
        const who = by === null ? null : (by.email ?? by.id ?? by.via);
        current = await deps.effects.decide({ type: 'start_reversal', effectId, reason, by: who, now: deps.now().toISOString() }, undefined, current);
      }
      const { state } = current;
      if (!state.exists || state.status !== 'reversing') return notDue;
      const known: Known = { state, version: current.version };
      if (state.alreadyEnforced) {
        // The vendor had the target blocked before this effect: the effect placed nothing, so it removes nothing.
        return reversed(known, reason, actor, true);
      }
      const context = { signal: AbortSignal.timeout(CALL_TIMEOUT_MS), caseId: null, now: deps.now };
      const key = (stepId: string) => ({ runId: `effect-${state.id}`, stepId, attempt: state.reversalAttempts + 1 });
      const read = (role: 'status' | { read: string }) =>
        readBound(bound, snapshot, role, vocabulary, context, key(typeof role === 'string' ? role : 'ownership'));
      const { connection, resolved } = await binding;
      if (!resolved.ok) return failed(known, reason, actor, resolved.refusal.code, resolved.refusal.message);
      const { ownership } = resolved.call;
      if (ownership !== null) {
        // A shared vendor object: when our own entry is gone, the entry left there is someone else's and stays.
        const own = await read({ read: ownership.read });
        if (own.ok && !own.enforced) return reversed(known, reason, actor, true);
      }
      const answer = await callBoundAction(deps.actions, resolved.call, connection, context, key('reverse'));
      const undidNothing = answer.ok && affectedNothing(answer.output);
      if (answer.ok && !undidNothing) return reversed(known, reason, actor, false);
      if (!answer.ok && answer.type === 'vendor_already_absent') return reversed(known, reason, actor, true);
      // A vendor refusing to undo, or undoing nothing (no phantom reversal): the read, by its declared state, decides.
      const status = await read('status');
      if (status.ok && !status.enforced) return reversed(known, reason, actor, true);
      if (answer.ok) return failed(known, reason, actor, 'adapter_affected_nothing', 'the unblock affected nothing and no read shows the effect gone');
      return failed(known, reason, actor, answer.type, answer.message);
    },
  };
}

export type EffectReverser = ReturnType<typeof createEffectReverser>;
