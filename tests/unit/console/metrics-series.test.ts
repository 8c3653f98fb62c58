/**
 * The SOC dashboard's chart data (console/src/metrics/series.ts): weeks become aligned
 * columns in Unix seconds, durations hours, rates percent, and a week without a value a
 * gap (null), never a zero; the tables print the same numbers.
 */
import { describe, expect, it } from 'vitest';
import {
  alertVolumeChart,
  automationChart,
  responseTimeChart,
  runOutcomeChart,
  type SocMetrics,
  valueText,
  volumeChart,
  weekText,
} from '../../../console/src/metrics/series.ts';

const week = (week_start: string, fields: Partial<SocMetrics['weeks'][number]>): SocMetrics['weeks'][number] => ({
  week_start,
  opened: 0,
  closed: 0,
  mtta_seconds: null,
  mttr_seconds: null,
  by_severity: {},
  by_team: [],
  alerts_received: 0,
  runs_finished: { succeeded: 0, failed: 0, denied: 0, expired: 0, cancelled: 0 },
  automation_rate: null,
  approvals_decided: 0,
  approval_turnaround_seconds: null,
  ...fields,
});

const soc = {
  weeks: [
    week('2026-11-23', {
      opened: 4,
      closed: 1,
      mtta_seconds: 5400,
      mttr_seconds: 86_400,
      automation_rate: 0.25,
      alerts_received: 30,
      runs_finished: { succeeded: 3, failed: 1, denied: 0, expired: 0, cancelled: 2 },
    }),
    week('2026-11-30', { opened: 0, closed: 2 }),
  ],
} as SocMetrics;

describe('the dashboard charts', () => {
  it('aligns each week with its counts', () => {
    const chart = volumeChart(soc);
    expect(chart.x).toEqual([Date.UTC(2026, 10, 23) / 1000, Date.UTC(2026, 10, 30) / 1000]);
    expect(chart.series.map((series) => [series.label, series.values, series.kind])).toEqual([
      ['Opened', [4, 0], 'bars'],
      ['Closed', [1, 2], 'bars'],
    ]);
  });

  it('draws alert volume as one bar series and runs as one line per outcome, failure in the danger colour', () => {
    expect(alertVolumeChart(soc).series).toEqual([{ label: 'Alerts', values: [30, 0], kind: 'bars' }]);
    const runs = runOutcomeChart(soc).series;
    expect(runs.map((series) => [series.label, series.values, series.tone])).toEqual([
      ['Succeeded', [3, 0], 'ok'],
      ['Failed', [1, 0], 'danger'],
      ['Denied', [0, 0], 'warn'],
      ['Expired', [0, 0], 'muted'],
      ['Cancelled', [2, 0], 'accent'],
    ]);
  });

  it('gives durations in hours and rates in percent, a week without one a gap', () => {
    expect(responseTimeChart(soc).series.map((series) => series.values)).toEqual([
      [1.5, null],
      [24, null],
    ]);
    expect(automationChart(soc).series[0]?.values).toEqual([25, null]);
  });

  it('prints what it draws', () => {
    expect(weekText(Date.UTC(2026, 10, 23) / 1000)).toBe('2026-11-23');
    expect(valueText(null, 'hours')).toBe('-');
    expect(valueText(1234.5, 'hours')).toBe('1,234.5 hours');
    expect(valueText(25, '%')).toBe('25%');
  });

  it('draws an empty window as no weeks', () => {
    expect(volumeChart({ weeks: [] } as unknown as SocMetrics).x).toEqual([]);
  });
});
