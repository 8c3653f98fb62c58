/**
 * The SOC metrics arithmetic (domain/metrics/soc.ts): ISO weeks in UTC with empty ones
 * listed, weighted means across groups, null (never 0) for a mean or rate over nothing.
 */
import { describe, expect, it } from 'vitest';
import { socMetrics, weekStart, weeksBetween, ZERO_AI_SPEND, type CaseGroup } from '../../../domain/metrics/soc.ts';

const empty = { opened: 0, automated: 0, acknowledged: 0, ackSeconds: 0, resolved: 0, resolveSeconds: 0 };
const group = (g: Partial<CaseGroup> & Pick<CaseGroup, 'week' | 'severity' | 'team'>): CaseGroup => ({ ...empty, ...g });
const none = { succeeded: 0, failed: 0, denied: 0, expired: 0, cancelled: 0 };
const agreement = { total_feedback: 0, agreed: 0, disagreed: 0, agreement_rate: null };

describe('weeks', () => {
  it('starts a week on Monday 00:00 UTC', () => {
    expect(weekStart(new Date('2026-11-23T00:00:00Z'))).toBe('2026-11-23');
    expect(weekStart(new Date('2026-11-22T23:59:59Z'))).toBe('2026-11-16');
    expect(weekStart(new Date('2026-01-01T12:00:00Z'))).toBe('2025-12-29');
  });

  it('lists every week the window touches, oldest first', () => {
    expect(weeksBetween(new Date('2026-11-01T10:00:00Z'), new Date('2026-11-23T10:00:00Z'))).toEqual([
      '2026-10-26',
      '2026-11-02',
      '2026-11-09',
      '2026-11-16',
      '2026-11-23',
    ]);
    expect(weeksBetween(new Date('2026-11-24T00:00:00Z'), new Date('2026-11-25T00:00:00Z'))).toEqual(['2026-11-23']);
  });
});

describe('socMetrics', () => {
  const base = {
    windowDays: 14,
    team: null,
    from: new Date('2026-11-09T12:00:00Z'),
    to: new Date('2026-11-23T12:00:00Z'),
    severities: ['low', 'high'],
    gates: [],
    alerts: [],
    runs: [],
    topRules: [],
    aiTriageAgreement: agreement,
    aiSpend: ZERO_AI_SPEND,
  };

  it('weights means by count across severities, teams and weeks, and keeps empty weeks', () => {
    const doc = socMetrics({
      ...base,
      cases: [
        group({ week: '2026-11-09', severity: 'high', team: 'blue', opened: 2, automated: 1, acknowledged: 2, ackSeconds: 100 }),
        group({ week: '2026-11-09', severity: 'low', team: null, opened: 1, acknowledged: 1, ackSeconds: 400, resolved: 1, resolveSeconds: 3600 }),
        group({ week: '2026-11-23', severity: 'high', team: 'blue', resolved: 1, resolveSeconds: 600 }),
        group({ week: '2026-10-26', severity: 'high', team: 'blue', opened: 50 }),
      ],
      gates: [{ week: '2026-11-23', decided: 2, seconds: 90 }],
    });
    expect(doc.totals).toEqual({
      opened: 3,
      closed: 2,
      mtta_seconds: 167,
      mttr_seconds: 2100,
      alerts_received: 0,
      runs_finished: none,
      automation_rate: 0.3333,
      approvals_decided: 2,
      approval_turnaround_seconds: 45,
    });
    expect(doc.by_severity).toEqual({
      low: { opened: 1, closed: 1, mtta_seconds: 400, mttr_seconds: 3600 },
      high: { opened: 2, closed: 1, mtta_seconds: 50, mttr_seconds: 600 },
    });
    expect(doc.by_team).toEqual([
      { team: null, opened: 1, closed: 1, mtta_seconds: 400, mttr_seconds: 3600 },
      { team: 'blue', opened: 2, closed: 1, mtta_seconds: 50, mttr_seconds: 600 },
    ]);
    expect(doc.weeks.map((w) => w.week_start)).toEqual(['2026-11-09', '2026-11-16', '2026-11-23']);
    expect(doc.weeks[1]).toEqual({
      week_start: '2026-11-16',
      opened: 0,
      closed: 0,
      mtta_seconds: null,
      mttr_seconds: null,
      by_severity: { low: { mtta_seconds: null, mttr_seconds: null }, high: { mtta_seconds: null, mttr_seconds: null } },
      by_team: [],
      alerts_received: 0,
      runs_finished: none,
      automation_rate: null,
      approvals_decided: 0,
      approval_turnaround_seconds: null,
    });
    expect(doc.weeks[2]).toMatchObject({
      closed: 1,
      mttr_seconds: 600,
      approvals_decided: 2,
      approval_turnaround_seconds: 45,
      by_team: [{ team: 'blue', mtta_seconds: null, mttr_seconds: 600 }],
    });
  });

  it('answers nulls, never zeros, for means and rates over nothing', () => {
    const doc = socMetrics({ ...base, cases: [] });
    expect(doc.totals).toEqual({
      opened: 0,
      closed: 0,
      mtta_seconds: null,
      mttr_seconds: null,
      alerts_received: 0,
      runs_finished: none,
      automation_rate: null,
      approvals_decided: 0,
      approval_turnaround_seconds: null,
    });
    expect(doc.ai_triage_agreement.agreement_rate).toBeNull();
  });

  it('counts alerts received and runs finished by outcome per week, every outcome named', () => {
    const doc = socMetrics({
      ...base,
      cases: [],
      alerts: [
        { week: '2026-11-09', received: 40 },
        { week: '2026-11-23', received: 2 },
        { week: '2026-10-26', received: 999 },
      ],
      runs: [
        { week: '2026-11-09', outcome: 'succeeded', runs: 5 },
        { week: '2026-11-09', outcome: 'failed', runs: 1 },
        { week: '2026-11-23', outcome: 'denied', runs: 2 },
        { week: '2026-10-26', outcome: 'succeeded', runs: 999 },
      ],
    });
    expect(doc.totals).toMatchObject({ alerts_received: 42, runs_finished: { ...none, succeeded: 5, failed: 1, denied: 2 } });
    expect(doc.weeks.map((w) => [w.alerts_received, w.runs_finished])).toEqual([
      [40, { ...none, succeeded: 5, failed: 1 }],
      [0, none],
      [2, { ...none, denied: 2 }],
    ]);
  });
});
