/**
 * The weekly SOC metrics document of `GET /metrics/soc` (SPEC.md "Metrics, audit,
 * retention, diagnostics"; docs/operations.md "SOC metrics"), built from grouped counts
 * and sums so the database does the scanning and this module only the arithmetic.
 *
 * Weeks are ISO weeks (Monday 00:00 UTC), named by their first day (`YYYY-MM-DD`); every
 * week the window touches is listed, empty ones included. Times are whole seconds; a mean
 * over nothing and a rate over nothing are null, never 0.
 */
import * as v from 'valibot';
import type { RunOutcome } from '../runs/events.ts';

/** Counts and second sums of cases of one (week, severity, team) group. */
export type CaseGroup = {
  week: string;
  severity: string;
  team: string | null;
  opened: number;
  /** Of `opened`, cases with at least one run that was not a dry run. */
  automated: number;
  acknowledged: number;
  ackSeconds: number;
  resolved: number;
  resolveSeconds: number;
};

/** Approval gates decided in one week: count and summed seconds from opening to decision. */
export type GateGroup = { week: string; decided: number; seconds: number };

/** Alerts received in one week. */
export type AlertGroup = { week: string; received: number };

/** Runs (not dry runs) that finished in one week with one outcome. */
export type RunGroup = { week: string; outcome: RunOutcome; runs: number };

/** Runs finished, by outcome (every outcome named, zeros included). */
const runsFinishedSchema = v.strictObject({ succeeded: v.number(), failed: v.number(), denied: v.number(), expired: v.number(), cancelled: v.number() });
type RunsFinished = Record<RunOutcome, number>;

const topRuleSchema = v.strictObject({ rule_id: v.string(), title: v.string(), alerts: v.number(), cases: v.number() });
export type TopRule = v.InferOutput<typeof topRuleSchema>;

/** SPEC.md "AI spend (in the SOC metrics)". */
const aiSpendSchema = v.strictObject({
  invocations: v.number(),
  refusals: v.number(),
  refusals_by_code: v.record(v.string(), v.number()),
  prompt_tokens: v.number(),
  completion_tokens: v.number(),
  total_tokens: v.number(),
  by_feature: v.array(v.strictObject({ feature: v.string(), total_tokens: v.number(), invocations: v.number() })),
  by_model: v.array(v.strictObject({ model: v.string(), total_tokens: v.number(), invocations: v.number() })),
});
export type AiSpend = v.InferOutput<typeof aiSpendSchema>;

const aiTriageAgreementSchema = v.strictObject({
  total_feedback: v.number(),
  agreed: v.number(),
  disagreed: v.number(),
  agreement_rate: v.nullable(v.number()),
});
export type AiTriageAgreement = v.InferOutput<typeof aiTriageAgreementSchema>;

/** Whole seconds; null as a mean over nothing. */
const timeEntries = { mtta_seconds: v.nullable(v.number()), mttr_seconds: v.nullable(v.number()) };
const flowEntries = { opened: v.number(), closed: v.number(), ...timeEntries };
/** A rate from 0 to 1, 4 decimals; null as a rate over nothing. */
const rateSchema = v.nullable(v.number());

/** The weekly SOC metrics document of `GET /metrics/soc`: totals, by severity (every configured one) and team, and each ISO week of the window. */
export const socMetricsSchema = v.strictObject({
  window_days: v.number(),
  team: v.nullable(v.string()),
  from: v.string(),
  to: v.string(),
  totals: v.strictObject({
    ...flowEntries,
    alerts_received: v.number(),
    runs_finished: runsFinishedSchema,
    automation_rate: rateSchema,
    approvals_decided: v.number(),
    approval_turnaround_seconds: v.nullable(v.number()),
  }),
  by_severity: v.record(v.string(), v.strictObject(flowEntries)),
  by_team: v.array(v.strictObject({ team: v.nullable(v.string()), ...flowEntries })),
  weeks: v.array(
    v.strictObject({
      week_start: v.string(),
      ...flowEntries,
      by_severity: v.record(v.string(), v.strictObject(timeEntries)),
      by_team: v.array(v.strictObject({ team: v.nullable(v.string()), ...timeEntries })),
      alerts_received: v.number(),
      runs_finished: runsFinishedSchema,
      automation_rate: rateSchema,
      approvals_decided: v.number(),
      approval_turnaround_seconds: v.nullable(v.number()),
    }),
  ),
  top_rules: v.array(topRuleSchema),
  ai_triage_agreement: aiTriageAgreementSchema,
  ai_spend: aiSpendSchema,
});

/** What every caller but global administrators and operator reports gets. */
export const ZERO_AI_SPEND: AiSpend = {
  invocations: 0,
  refusals: 0,
  refusals_by_code: {},
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  by_feature: [],
  by_model: [],
};

type Sums = { opened: number; automated: number; acknowledged: number; ackSeconds: number; resolved: number; resolveSeconds: number };
const zero = (): Sums => ({ opened: 0, automated: 0, acknowledged: 0, ackSeconds: 0, resolved: 0, resolveSeconds: 0 });
const add = (s: Sums, g: Sums) => {
  s.opened += g.opened;
  s.automated += g.automated;
  s.acknowledged += g.acknowledged;
  s.ackSeconds += g.ackSeconds;
  s.resolved += g.resolved;
  s.resolveSeconds += g.resolveSeconds;
};
const mean = (sum: number, n: number) => (n === 0 ? null : Math.round(sum / n));
const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/** `ai_triage_agreement` from the count of feedback rows and of those agreeing with the verdict they judged. */
export const triageAgreement = (total: number, agreed: number): AiTriageAgreement => ({
  total_feedback: total,
  agreed,
  disagreed: total - agreed,
  agreement_rate: rate(agreed, total),
});

/** `{mtta_seconds, mttr_seconds}` of a sum. */
const times = (s: Sums) => ({ mtta_seconds: mean(s.ackSeconds, s.acknowledged), mttr_seconds: mean(s.resolveSeconds, s.resolved) });
const flow = (s: Sums) => ({ opened: s.opened, closed: s.resolved, ...times(s) });

/** The Monday (UTC) of the ISO week holding `at`, as `YYYY-MM-DD`. */
export function weekStart(at: Date): string {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
}

/** Every week start from the week of `from` to the week of `to`, oldest first. */
export function weeksBetween(from: Date, to: Date): string[] {
  const weeks: string[] = [];
  const last = weekStart(to);
  for (let w = new Date(`${weekStart(from)}T00:00:00Z`); ; w.setUTCDate(w.getUTCDate() + 7)) {
    const key = w.toISOString().slice(0, 10);
    weeks.push(key);
    if (key >= last) return weeks;
  }
}

const teamKey = (team: string | null) => team ?? '\u0000';

export type SocInput = {
  windowDays: number;
  team: string | null;
  from: Date;
  to: Date;
  severities: readonly string[];
  cases: CaseGroup[];
  gates: GateGroup[];
  alerts: AlertGroup[];
  runs: RunGroup[];
  topRules: TopRule[];
  aiTriageAgreement: AiTriageAgreement;
  aiSpend: AiSpend;
};

/** The document; group weeks outside `[from, to]` are ignored. */
export function socMetrics(input: SocInput): v.InferOutput<typeof socMetricsSchema> {
  const weeks = weeksBetween(input.from, input.to);
  const perWeek = new Map(
    weeks.map((w) => [w, { all: zero(), bySeverity: new Map<string, Sums>(), byTeam: new Map<string, { team: string | null; sums: Sums }>() }]),
  );
  const total = zero();
  const bySeverity = new Map<string, Sums>(input.severities.map((s) => [s, zero()]));
  const byTeam = new Map<string, { team: string | null; sums: Sums }>();
  for (const g of input.cases) {
    const week = perWeek.get(g.week);
    if (!week) continue;
    add(week.all, g);
    add(total, g);
    for (const [map, key] of [
      [week.bySeverity, g.severity],
      [bySeverity, g.severity],
    ] as const) {
      const sums = map.get(key) ?? zero();
      map.set(key, sums);
      add(sums, g);
    }
    for (const map of [week.byTeam, byTeam]) {
      const key = teamKey(g.team);
      const entry = map.get(key) ?? { team: g.team, sums: zero() };
      map.set(key, entry);
      add(entry.sums, g);
    }
  }
  const gatesByWeek = new Map<string, GateGroup>();
  let decided = 0;
  let gateSeconds = 0;
  for (const g of input.gates) {
    if (!perWeek.has(g.week)) continue;
    gatesByWeek.set(g.week, g);
    decided += g.decided;
    gateSeconds += g.seconds;
  }
  const alertsByWeek = new Map<string, number>();
  const runsByWeek = new Map<string, RunsFinished>();
  const noRuns = (): RunsFinished => ({ succeeded: 0, failed: 0, denied: 0, expired: 0, cancelled: 0 });
  const runTotals = noRuns();
  let alerts = 0;
  for (const g of input.alerts) {
    if (!perWeek.has(g.week)) continue;
    alertsByWeek.set(g.week, (alertsByWeek.get(g.week) ?? 0) + g.received);
    alerts += g.received;
  }
  for (const g of input.runs) {
    if (!perWeek.has(g.week)) continue;
    const finished = runsByWeek.get(g.week) ?? noRuns();
    runsByWeek.set(g.week, finished);
    finished[g.outcome] += g.runs;
    runTotals[g.outcome] += g.runs;
  }
  const teams = (map: Map<string, { team: string | null; sums: Sums }>) =>
    [...map.values()].sort((a, b) => (a.team ?? '').localeCompare(b.team ?? '')).map((t) => ({ team: t.team, ...flow(t.sums) }));
  const severities = (map: Map<string, Sums>) => Object.fromEntries(input.severities.map((s) => [s, times(map.get(s) ?? zero())]));
  return {
    window_days: input.windowDays,
    team: input.team,
    from: input.from.toISOString(),
    to: input.to.toISOString(),
    totals: {
      ...flow(total),
      alerts_received: alerts,
      runs_finished: runTotals,
      automation_rate: rate(total.automated, total.opened),
      approvals_decided: decided,
      approval_turnaround_seconds: mean(gateSeconds, decided),
    },
    by_severity: Object.fromEntries(input.severities.map((s) => [s, flow(bySeverity.get(s) ?? zero())])),
    by_team: teams(byTeam),
    // perWeek was built from `weeks`, so its entries come in the weeks' order.
    weeks: [...perWeek].map(([w, week]) => {
      const gates = gatesByWeek.get(w);
      return {
        week_start: w,
        ...flow(week.all),
        by_severity: severities(week.bySeverity),
        by_team: teams(week.byTeam).map(({ team, mtta_seconds, mttr_seconds }) => ({ team, mtta_seconds, mttr_seconds })),
        alerts_received: alertsByWeek.get(w) ?? 0,
        runs_finished: runsByWeek.get(w) ?? noRuns(),
        automation_rate: rate(week.all.automated, week.all.opened),
        approvals_decided: gates?.decided ?? 0,
        approval_turnaround_seconds: gates ? mean(gates.seconds, gates.decided) : null,
      };
    }),
    top_rules: input.topRules,
    ai_triage_agreement: input.aiTriageAgreement,
    ai_spend: input.aiSpend,
  };
}
