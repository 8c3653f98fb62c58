/**
 * Effect commands (SPEC.md "Effect (managed containment)", "Managed containment
 * effects"). The managed action that creates an effect brings the evaluated request, the
 * frozen binding and, when the adapter was refused, the refusal; the vendor's verdicts
 * come back as `record_apply` and `record_reversal`. Ids and the time come in with the
 * command, so deciding is pure.
 */
import type { ManagedEffectType } from '../response-policy/policy.ts';
import type { TargetType } from '../response-policy/targets.ts';
import type { ParametersSnapshot } from './binding.ts';
import type { EffectRefusal } from './request.ts';

export type EffectOrigin = { runId: string | null; stepId: string | null; attempt: number | null; caseId: string | null; by: string | null };

export type EffectCommand =
  | {
      type: 'request';
      effectId: string;
      effectType: ManagedEffectType;
      targetType: TargetType;
      /** Normalized (request.ts). */
      target: string;
      ttlSeconds: number;
      /** The binding frozen at request time; null when none was bound. */
      snapshot: ParametersSnapshot | null;
      snapshotDigest: string | null;
      /** The adapter's typed refusal (binding.ts): the effect is degraded at once. */
      refusal: EffectRefusal | null;
      origin: EffectOrigin;
      now: string;
    }
  | {
      type: 'record_apply';
      effectId: string;
      /** The vendor's verdict: `applied` (blocked now; `already` when it already was) or `failed`. */
      outcome:
        | { status: 'applied'; enforcementPerformed: boolean; already: boolean; handle: string | null }
        | { status: 'failed'; code: string; message: string };
      now: string;
    }
  | { type: 'start_reversal'; effectId: string; reason: 'ttl_expired' | 'released'; by: string | null; now: string }
  | {
      type: 'record_reversal';
      effectId: string;
      outcome: { status: 'reversed'; already: boolean } | { status: 'failed'; code: string; message: string; retryAt: string };
      now: string;
    };
