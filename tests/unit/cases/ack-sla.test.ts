/**
 * The acknowledgement clock (SPEC.md "Case" `ack_sla`, "Case acknowledgement"; the
 * state mapping of domain/cases/ack-sla.ts): `none` without a target, `pending` while
 * the clock runs before the due time, `met` when it stopped by then, `breached` when
 * the due time passed first. The clock stops at the earliest of acknowledgement,
 * resolution and closure.
 */
import { describe, expect, it } from 'vitest';
import { ackSla, resolveSla, type AckClockInput } from '../../../domain/cases/ack-sla.ts';

const policy = { critical: 15 * 60, high: 60 * 60 };
const opened = new Date('2026-11-22T10:00:00.000Z');
const at = (minutes: number, seconds = 0) => new Date(opened.getTime() + minutes * 60_000 + seconds * 1000);

const clock = (c: Partial<AckClockInput> = {}): AckClockInput => ({
  severity: 'high',
  ackMinutes: null,
  openedAt: opened,
  acknowledgedAt: null,
  acknowledgedBy: null,
  resolvedAt: null,
  closedAt: null,
  ...c,
});

describe('ackSla', () => {
  it('is pending while the clock runs before the due time', () => {
    expect(ackSla(clock(), policy, at(10))).toEqual({
      state: 'pending',
      due_at: '2026-11-22T11:00:00.000Z',
      acknowledged_at: null,
      acknowledged_by: null,
      clock_stopped_at: null,
      elapsed_seconds: 600,
      breached: false,
    });
  });

  it('is still pending exactly at the due time, and breached one millisecond after it', () => {
    expect(ackSla(clock(), policy, at(60)).state).toBe('pending');
    const late = ackSla(clock(), policy, new Date(at(60).getTime() + 1));
    expect(late).toMatchObject({ state: 'breached', breached: true, clock_stopped_at: null, elapsed_seconds: 3600 });
  });

  it('is met when acknowledged before the due time, and stays met long after', () => {
    const acked = clock({ acknowledgedAt: at(5), acknowledgedBy: 'ana@example.com' });
    const expected = {
      state: 'met',
      due_at: '2026-11-22T11:00:00.000Z',
      acknowledged_at: at(5).toISOString(),
      acknowledged_by: 'ana@example.com',
      clock_stopped_at: at(5).toISOString(),
      elapsed_seconds: 300,
      breached: false,
    };
    expect(ackSla(acked, policy, at(6))).toEqual(expected);
    // The clock stopped: the result no longer depends on now.
    expect(ackSla(acked, policy, at(60 * 24 * 7))).toEqual(expected);
  });

  it('is met when acknowledged exactly at the due time', () => {
    expect(ackSla(clock({ acknowledgedAt: at(60), acknowledgedBy: 'a' }), policy, at(90)).state).toBe('met');
  });

  it('is breached while running past the due time; elapsed grows with now', () => {
    const sla = ackSla(clock({ severity: 'critical' }), policy, at(20));
    expect(sla).toMatchObject({ state: 'breached', breached: true, due_at: at(15).toISOString(), clock_stopped_at: null, elapsed_seconds: 1200 });
    expect(ackSla(clock({ severity: 'critical' }), policy, at(30)).elapsed_seconds).toBe(1800);
  });

  it('stays breached after a late acknowledgement, with the clock stopped at the acknowledgement', () => {
    const sla = ackSla(clock({ acknowledgedAt: at(75), acknowledgedBy: 'bob@example.com' }), policy, at(200));
    expect(sla).toEqual({
      state: 'breached',
      due_at: at(60).toISOString(),
      acknowledged_at: at(75).toISOString(),
      acknowledged_by: 'bob@example.com',
      clock_stopped_at: at(75).toISOString(),
      elapsed_seconds: 75 * 60,
      breached: true,
    });
  });

  it('is none without a target for the severity, whatever happens, yet reports the stamp and the clock', () => {
    expect(ackSla(clock({ severity: 'low' }), policy, at(60 * 24 * 30))).toEqual({
      state: 'none',
      due_at: null,
      acknowledged_at: null,
      acknowledged_by: null,
      clock_stopped_at: null,
      elapsed_seconds: 30 * 24 * 3600,
      breached: false,
    });
    const acked = ackSla(clock({ severity: 'low', acknowledgedAt: at(3), acknowledgedBy: 'a' }), policy, at(100));
    expect(acked).toMatchObject({
      state: 'none',
      due_at: null,
      breached: false,
      acknowledged_at: at(3).toISOString(),
      clock_stopped_at: at(3).toISOString(),
      elapsed_seconds: 180,
    });
    expect(ackSla(clock(), {}, at(1000)).state).toBe('none');
  });

  it('stops at the earliest of acknowledgement, resolution and closure', () => {
    const earliestResolve = ackSla(clock({ acknowledgedAt: at(50), acknowledgedBy: 'a', resolvedAt: at(20), closedAt: at(40) }), policy, at(500));
    expect(earliestResolve).toMatchObject({
      state: 'met',
      clock_stopped_at: at(20).toISOString(),
      elapsed_seconds: 1200,
      acknowledged_at: at(50).toISOString(),
    });

    const earliestClose = ackSla(clock({ resolvedAt: at(70), closedAt: at(30) }), policy, at(500));
    expect(earliestClose).toMatchObject({ state: 'met', clock_stopped_at: at(30).toISOString(), elapsed_seconds: 1800, acknowledged_at: null });

    const earliestAck = ackSla(clock({ acknowledgedAt: at(10), acknowledgedBy: 'a', resolvedAt: at(70), closedAt: at(80) }), policy, at(500));
    expect(earliestAck).toMatchObject({ state: 'met', clock_stopped_at: at(10).toISOString(), elapsed_seconds: 600 });

    // Resolved late, never acknowledged: breached, stopped at the resolution.
    const resolvedLate = ackSla(clock({ resolvedAt: at(90) }), policy, at(500));
    expect(resolvedLate).toMatchObject({ state: 'breached', breached: true, clock_stopped_at: at(90).toISOString(), elapsed_seconds: 5400 });
  });

  it('reports elapsed seconds whole, floored, and never negative', () => {
    expect(ackSla(clock(), policy, at(0, 59.999)).elapsed_seconds).toBe(59);
    expect(ackSla(clock(), policy, at(0)).elapsed_seconds).toBe(0);
    // A clock read before the opening (skew) does not go negative.
    expect(ackSla(clock(), policy, at(-1))).toMatchObject({ elapsed_seconds: 0, state: 'pending' });
  });
});

describe('the SLA policy of a case template', () => {
  it("takes the case's own ack target over the severity's, also for a severity without one", () => {
    expect(ackSla(clock({ ackMinutes: 5 }), policy, at(6))).toMatchObject({ state: 'breached', due_at: '2026-11-22T10:05:00.000Z' });
    expect(ackSla(clock({ severity: 'low', ackMinutes: 30 }), policy, at(6))).toMatchObject({ state: 'pending', due_at: '2026-11-22T10:30:00.000Z' });
  });

  it('breaches the resolve target when neither resolution nor closure came by then, also while still open', () => {
    const open = { openedAt: opened, resolvedAt: null, closedAt: null, resolveMinutes: 240 };
    expect(resolveSla(open, at(239))).toEqual({ due_at: '2026-11-22T14:00:00.000Z', breached: false });
    expect(resolveSla(open, at(241))).toEqual({ due_at: '2026-11-22T14:00:00.000Z', breached: true });
    expect(resolveSla({ ...open, resolvedAt: at(200) }, at(999)).breached).toBe(false);
    expect(resolveSla({ ...open, closedAt: at(300) }, at(999)).breached).toBe(true);
    expect(resolveSla({ ...open, resolveMinutes: null }, at(999))).toEqual({ due_at: null, breached: false });
  });
});
