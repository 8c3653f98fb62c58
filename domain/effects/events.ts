/**
 * Effect events: one stream per effect, `effect-<uuid>`. `effect.requested` freezes the
 * binding (`parameters_snapshot`, `snapshot_digest`); then `effect.degraded` (an adapter
 * refusal: never active), or `effect.applied` (active until `expires_at`) or
 * `effect.apply_failed`; an active effect is reversed through `effect.reversal_started`
 * and `effect.reversed`, and a failed reversal (`effect.reversal_failed`, with the time
 * of its next try) stays visible and is tried again.
 */
import type { ManagedEffectType } from '../response-policy/policy.ts';
import type { TargetType } from '../response-policy/targets.ts';
import type { Event } from '../shared/messages.ts';
import type { ParametersSnapshot } from './binding.ts';

export type EffectRequested = Event<
  'effect.requested',
  {
    effect_id: string;
    effect_type: ManagedEffectType;
    target_type: TargetType;
    target: string;
    ttl_seconds: number;
    parameters_snapshot: ParametersSnapshot | null;
    snapshot_digest: string | null;
    run_id: string | null;
    step_id: string | null;
    attempt: number | null;
    case_id: string | null;
    by: string | null;
    at: string;
  }
>;
export type EffectDegraded = Event<'effect.degraded', { effect_id: string; code: string; message: string; at: string }>;
export type EffectApplied = Event<
  'effect.applied',
  { effect_id: string; enforcement_performed: boolean; already_enforced: boolean; handle: string | null; expires_at: string; at: string }
>;
export type EffectApplyFailed = Event<'effect.apply_failed', { effect_id: string; code: string; message: string; at: string }>;
export type EffectReversalStarted = Event<'effect.reversal_started', { effect_id: string; reason: 'ttl_expired' | 'released'; by: string | null; at: string }>;
export type EffectReversed = Event<'effect.reversed', { effect_id: string; already_reversed: boolean; at: string }>;
export type EffectReversalFailed = Event<
  'effect.reversal_failed',
  { effect_id: string; code: string; message: string; attempts: number; retry_at: string; at: string }
>;

export type EffectEvent = EffectRequested | EffectDegraded | EffectApplied | EffectApplyFailed | EffectReversalStarted | EffectReversed | EffectReversalFailed;

export const effectEventTypes: ReadonlySet<string> = new Set<EffectEvent['type']>([
  'effect.requested',
  'effect.degraded',
  'effect.applied',
  'effect.apply_failed',
  'effect.reversal_started',
  'effect.reversed',
  'effect.reversal_failed',
]);
