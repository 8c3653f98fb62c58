/**
 * An effect's state, rebuilt from its stream. SPEC.md names `active` and `degraded`; the
 * others are ours (docs/containment.md): `pending` (requested, the vendor call not
 * answered yet), `failed` (the vendor refused or affected nothing), `reversing`,
 * `reversal_failed` (tried again at `retryAt`) and `reversed`.
 */
import type { ManagedEffectType } from '../response-policy/policy.ts';
import type { TargetType } from '../response-policy/targets.ts';
import type { ParametersSnapshot } from './binding.ts';
import type { EffectEvent } from './events.ts';

export type EffectStatus = 'pending' | 'degraded' | 'failed' | 'active' | 'reversing' | 'reversal_failed' | 'reversed';

export type EffectState =
  | { exists: false }
  | {
      exists: true;
      id: string;
      status: EffectStatus;
      effectType: ManagedEffectType;
      targetType: TargetType;
      target: string;
      ttlSeconds: number;
      snapshot: ParametersSnapshot | null;
      handle: string | null;
      /** The vendor already had the target blocked when it was applied: this effect performed nothing. */
      alreadyEnforced: boolean;
      expiresAt: string | null;
      reversalAttempts: number;
      lastError: string | null;
    };

export const initialEffectState = (): EffectState => ({ exists: false });

export function evolveEffect(state: EffectState, event: EffectEvent): EffectState {
  if (event.type === 'effect.requested') {
    const d = event.data;
    return {
      exists: true,
      id: d.effect_id,
      status: 'pending',
      effectType: d.effect_type,
      targetType: d.target_type,
      target: d.target,
      ttlSeconds: d.ttl_seconds,
      snapshot: d.parameters_snapshot,
      handle: null,
      alreadyEnforced: false,
      expiresAt: null,
      reversalAttempts: 0,
      lastError: null,
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'effect.degraded':
      return { ...state, status: 'degraded', lastError: event.data.code };
    case 'effect.applied':
      return { ...state, status: 'active', handle: event.data.handle, alreadyEnforced: event.data.already_enforced, expiresAt: event.data.expires_at };
    case 'effect.apply_failed':
      return { ...state, status: 'failed', lastError: event.data.code };
    case 'effect.reversal_started':
      return { ...state, status: 'reversing' };
    case 'effect.reversed':
      return { ...state, status: 'reversed', lastError: null };
    case 'effect.reversal_failed':
      return { ...state, status: 'reversal_failed', reversalAttempts: event.data.attempts, lastError: event.data.code };
    default:
      return state;
  }
}
