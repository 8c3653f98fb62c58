/**
 * A clock the test moves (issue 20): starts at `start` and stands still until `advance`
 * or `set` moves it, so a time-dependent rule is checked without sleeping.
 */
import type { Clock } from '../../adapters/shared/clock.ts';

export type ManualClock = {
  now: Clock;
  /** Moves the clock forward by `ms` milliseconds. */
  advance: (ms: number) => void;
  set: (instant: Date | string) => void;
};

export function manualClock(start: Date | string = '2026-01-01T00:00:00.000Z'): ManualClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (instant) => {
      current = new Date(instant).getTime();
    },
  };
}
