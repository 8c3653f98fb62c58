/**
 * Schedule fire times (SPEC.md "Runbooks and runs", Triggers) and the deterministic run
 * id that lets only one worker queue a given fire time.
 */
import { describe, expect, it } from 'vitest';
import { nextFireAt } from '../../../domain/runbooks/schedule.ts';
import { scheduledRunId } from '../../../runtime/worker/schedule-tick.ts';

const at = (iso: string) => new Date(iso);

describe('nextFireAt', () => {
  it('adds interval_s seconds', () => {
    expect(nextFireAt({ type: 'schedule', cron: null, interval_s: 90 }, at('2026-01-01T00:00:00Z'))).toEqual(at('2026-01-01T00:01:30Z'));
  });

  it('takes the next cron match strictly after the time, in UTC', () => {
    const every5 = { type: 'schedule' as const, cron: '*/5 * * * *', interval_s: null };
    expect(nextFireAt(every5, at('2026-01-01T00:02:10Z'))).toEqual(at('2026-01-01T00:05:00Z'));
    expect(nextFireAt(every5, at('2026-01-01T00:05:00Z'))).toEqual(at('2026-01-01T00:10:00Z'));
    expect(nextFireAt({ type: 'schedule', cron: '0 9 * * *', interval_s: null }, at('2026-01-01T10:00:00Z'))).toEqual(at('2026-01-02T09:00:00Z'));
  });

  it('is null for triggers that are not schedules', () => {
    expect(nextFireAt({ type: 'manual' }, at('2026-01-01T00:00:00Z'))).toBeNull();
    expect(nextFireAt({ type: 'alert', conditions: {} }, at('2026-01-01T00:00:00Z'))).toBeNull();
  });
});

describe('scheduledRunId', () => {
  it('is a UUID fixed by runbook and fire time', () => {
    const id = scheduledRunId('nightly', at('2026-01-01T00:00:00Z'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(scheduledRunId('nightly', at('2026-01-01T00:00:00Z'))).toBe(id);
    expect(scheduledRunId('nightly', at('2026-01-01T00:00:01Z'))).not.toBe(id);
    expect(scheduledRunId('hourly', at('2026-01-01T00:00:00Z'))).not.toBe(id);
  });
});
