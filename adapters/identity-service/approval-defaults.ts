/**
 * The install default of a gate's deadline (SPEC.md "Runs, steps and gates", "Limits":
 * `timeout_h` hours after opening, else the install default from the suite's approval
 * settings, else 24 hours when that cannot be read). The worker asks only when a gate
 * without `timeout_h` opens, and fixes the deadline in `gate.opened`.
 *
 * A setting read is kept for `ttlMs` by the service clock (SVC_APPROVAL_SETTINGS_TTL_S;
 * 0 keeps nothing), and callers asking while a read is in flight share it, so a burst of
 * gates costs identity one request. A failed read is not kept: the 24 hours apply to the
 * gates opening now, and the next gate asks again.
 */
import type { Clock } from '../shared/clock.ts';
import { IdentityUnavailable, type ApprovalSettings } from './client.ts';

/** Hours a gate stays open when neither its step nor the readable approval settings say (SPEC.md "Limits"). */
export const FALLBACK_APPROVAL_DEADLINE_H = 24;

export type ApprovalDefaults = {
  /** The install default deadline, hours: identity's setting, cached, or FALLBACK_APPROVAL_DEADLINE_H when it cannot be read. */
  deadlineHours: () => Promise<number>;
};

/**
 * Defaults read through `read` (IdentityServiceClient.approvalSettings); `onUnavailable`
 * hears why a read failed (the fallback applied). Errors other than IdentityUnavailable
 * are bugs and reach the caller.
 */
export function createApprovalDefaults(deps: {
  read: () => Promise<ApprovalSettings>;
  ttlMs: number;
  now: Clock;
  onUnavailable: (error: IdentityUnavailable) => void;
}): ApprovalDefaults {
  let cached: { hours: number; until: number } | null = null;
  let inFlight: Promise<number> | null = null;

  const readOnce = async (): Promise<number> => {
    try {
      const hours = (await deps.read()).defaultDeadlineHours;
      if (deps.ttlMs > 0) cached = { hours, until: deps.now().getTime() + deps.ttlMs };
      return hours;
    } catch (error) {
      if (!(error instanceof IdentityUnavailable)) throw error;
      deps.onUnavailable(error);
      return FALLBACK_APPROVAL_DEADLINE_H;
    }
  };

  return {
    deadlineHours() {
      if (cached !== null && cached.until > deps.now().getTime()) return Promise.resolve(cached.hours);
      inFlight ??= readOnce().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
  };
}
