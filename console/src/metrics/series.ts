/**
 * The SOC dashboard's chart data from `GET /metrics/soc` (SPEC.md "Metrics"): each chart
 * as a `Chart` of aligned columns, which the chart library draws and the page's tables
 * show as numbers, so what is drawn and what a screen reader hears are one source.
 * `x` is the week's start in Unix seconds; a week with no value (no case acknowledged,
 * say) is `null`, drawn as a gap, never as zero. Durations are in hours. Pure: no DOM.
 */
import type { paths } from '../api-types.ts';
import { thousands } from '../format.ts';

export type SocMetrics = paths['/metrics/soc']['get']['responses'][200]['content']['application/json'];

/** A series' colour: a design token of styles.css, chosen for its meaning (failure is `danger`); absent, the chart picks by position. */
export type Tone = 'accent' | 'danger' | 'ok' | 'warn' | 'muted';

/** One drawn series: its label, its values aligned with the chart's `x`, how it is drawn, and its colour when it means something. */
export type Series = { label: string; values: (number | null)[]; kind: 'line' | 'bars'; tone?: Tone };

/** A chart: a title, the x values (Unix seconds of each week's start), the y unit and its series. */
export type Chart = { title: string; x: number[]; unit: string; series: Series[] };

const HOUR = 3600;
const hours = (seconds: number | null): number | null => (seconds === null ? null : Math.round((seconds / HOUR) * 10) / 10);
const unixSeconds = (iso: string): number => Math.floor(new Date(iso).getTime() / 1000);

/** Cases opened and closed each week, as bars. */
export function volumeChart(soc: SocMetrics): Chart {
  return {
    title: 'Cases opened and closed per week',
    x: soc.weeks.map((week) => unixSeconds(week.week_start)),
    unit: 'cases',
    series: [
      { label: 'Opened', values: soc.weeks.map((week) => week.opened), kind: 'bars' },
      { label: 'Closed', values: soc.weeks.map((week) => week.closed), kind: 'bars' },
    ],
  };
}

/** Alerts received each week (duplicates folded into an alert count once), as bars. */
export function alertVolumeChart(soc: SocMetrics): Chart {
  return {
    title: 'Alerts received per week',
    x: soc.weeks.map((week) => unixSeconds(week.week_start)),
    unit: 'alerts',
    series: [{ label: 'Alerts', values: soc.weeks.map((week) => week.alerts_received), kind: 'bars' }],
  };
}

/** The outcomes of runs, in the order the chart lists them, with their words and colours. */
const OUTCOMES = [
  { key: 'succeeded', label: 'Succeeded', tone: 'ok' },
  { key: 'failed', label: 'Failed', tone: 'danger' },
  { key: 'denied', label: 'Denied', tone: 'warn' },
  { key: 'expired', label: 'Expired', tone: 'muted' },
  { key: 'cancelled', label: 'Cancelled', tone: 'accent' },
] as const;

/** Runs (not dry runs) finished each week by outcome, one line per outcome. */
export function runOutcomeChart(soc: SocMetrics): Chart {
  return {
    title: 'Runs finished per week, by outcome',
    x: soc.weeks.map((week) => unixSeconds(week.week_start)),
    unit: 'runs',
    series: OUTCOMES.map(({ key, label, tone }) => ({ label, values: soc.weeks.map((week) => week.runs_finished[key]), kind: 'line', tone })),
  };
}

/** MTTA and MTTR each week, in hours, as lines with gaps for weeks without a value. */
export function responseTimeChart(soc: SocMetrics): Chart {
  return {
    title: 'MTTA and MTTR per week',
    x: soc.weeks.map((week) => unixSeconds(week.week_start)),
    unit: 'hours',
    series: [
      { label: 'MTTA', values: soc.weeks.map((week) => hours(week.mtta_seconds)), kind: 'line' },
      { label: 'MTTR', values: soc.weeks.map((week) => hours(week.mttr_seconds)), kind: 'line' },
    ],
  };
}

/** The share of the cases opened each week that had at least one run that was not a dry run, in percent. */
export function automationChart(soc: SocMetrics): Chart {
  return {
    title: 'Automation rate per week',
    x: soc.weeks.map((week) => unixSeconds(week.week_start)),
    unit: '%',
    series: [
      {
        label: 'Automation rate',
        values: soc.weeks.map((week) => (week.automation_rate === null ? null : Math.round(week.automation_rate * 1000) / 10)),
        kind: 'line',
      },
    ],
  };
}

/** A value as the tables print it: `-` for none, else the number with its unit. */
export function valueText(value: number | null, unit: string): string {
  if (value === null) return '-';
  return unit === '%' ? `${value}%` : `${thousands(value)} ${unit}`;
}

/** A week's start as the tables print it, `2026-11-30`. */
export const weekText = (x: number): string => new Date(x * 1000).toISOString().slice(0, 10);
