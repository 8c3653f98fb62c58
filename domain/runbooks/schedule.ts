/**
 * When a `schedule` runbook fires (SPEC.md "Runbooks and runs", Triggers: exactly one of
 * `cron` or `interval_s`; the worker computes `next_fire_at` on upsert).
 */
import { Cron } from 'croner';
import type { Trigger } from './model.ts';

/**
 * The first fire time strictly after `after`: for `cron`, the next matching minute (or
 * second, for a six-field pattern) in UTC; for `interval_s`, `after` plus that many
 * seconds. Null for other triggers and for a cron pattern that never matches again.
 * A tick that fired late computes from the time it fired, so missed fire times are
 * fired once, not once each.
 */
export function nextFireAt(trigger: Trigger, after: Date): Date | null {
  if (trigger.type !== 'schedule') return null;
  if (trigger.interval_s !== null) return new Date(after.getTime() + trigger.interval_s * 1000);
  if (trigger.cron === null) return null;
  return new Cron(trigger.cron, { timezone: 'UTC' }).nextRun(after);
}
