/**
 * SOC metrics over the read models (SPEC.md `GET /metrics/overview`, `GET /metrics/gate`),
 * always through the caller's case scope: a metric never counts a case, or a run of a
 * case, the caller could not see.
 *
 * Times are seconds. MTTA is the mean of (first acknowledgement - opening) over cases
 * acknowledged in the window; MTTR the mean of (resolution, else closure - opening) over
 * cases resolved or closed in the window. Means over no case are null.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import * as v from 'valibot';
import type { AckSlaPolicy } from '../../domain/cases/ack-sla.ts';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';
import { visibleRuns } from '../runs/runs.queries.ts';

export type OverviewSettings = {
  severities: readonly string[];
  closedStatuses: readonly string[];
  ackSla: AckSlaPolicy;
  windowDays: number;
  /** Minutes before the acknowledgement due time from which an open case is at risk. */
  atRiskMinutes: number;
  now: Date;
};

/** The acknowledgement target of a case, seconds: its SLA policy's, else its severity's; null without one. */
function ackTargetSeconds(policy: AckSlaPolicy): RawBuilder<number | null> {
  const entries = Object.entries(policy);
  const bySeverity =
    entries.length === 0
      ? sql`null`
      : sql`case ${sql.join(
          entries.map(([sev, secs]) => sql`when severity = ${sev} then ${secs}::int`),
          sql` `,
        )} end`;
  return sql<number | null>`coalesce(sla_ack_minutes * 60, ${bySeverity})`;
}

const seconds = (n: unknown): number | null => (n === null || n === undefined ? null : Math.round(Number(n)));

/** The answer of `GET /metrics/overview`: open cases by every configured severity, MTTA and MTTR in seconds (null over no case), SLA at risk and breached. */
export const metricsOverviewSchema = v.strictObject({
  window_days: v.number(),
  open_cases: v.strictObject({ total: v.number(), by_severity: v.record(v.string(), v.number()) }),
  mtta_seconds: v.nullable(v.number()),
  mttr_seconds: v.nullable(v.number()),
  sla_at_risk: v.number(),
  sla_breached: v.number(),
});

/** The answer of `GET /metrics/gate`: approval gates approved and denied, and dry runs queued, in the window. */
export const metricsGateSchema = v.strictObject({ approved_executions: v.number(), denied: v.number(), dry_runs: v.number(), window_days: v.number() });

/**
 * `{window_days, open_cases: {total, by_severity}, mtta_seconds, mttr_seconds, sla_at_risk, sla_breached}`.
 * `sla_at_risk` counts open, unacknowledged cases whose acknowledgement falls due within
 * `atRiskMinutes`; `sla_breached` those already past it.
 */
export async function metricsOverview(db: Kysely<Database>, scope: CaseScope, s: OverviewSettings): Promise<v.InferOutput<typeof metricsOverviewSchema>> {
  const since = new Date(s.now.getTime() - s.windowDays * 86_400_000);
  const closed = s.closedStatuses.length === 0 ? ['\u0000'] : [...s.closedStatuses];
  const open = await db
    .selectFrom('cases')
    .where(visibleCases(scope))
    .where('status', 'not in', closed)
    .select(['severity', sql<number>`count(*)::int`.as('n')])
    .groupBy('severity')
    .execute();
  const bySeverity: Record<string, number> = Object.fromEntries(s.severities.map((sev) => [sev, 0]));
  for (const r of open) bySeverity[r.severity] = Number(r.n);

  const due = sql<Date>`created_at + make_interval(secs => ${ackTargetSeconds(s.ackSla)})`;
  const [times] = await db
    .selectFrom('cases')
    .where(visibleCases(scope))
    .select([
      sql<number | null>`avg(extract(epoch from acknowledged_at - created_at)) filter (where acknowledged_at >= ${since})`.as('mtta'),
      sql<number | null>`avg(extract(epoch from coalesce(resolved_at, closed_at) - created_at)) filter (where coalesce(resolved_at, closed_at) >= ${since})`.as(
        'mttr',
      ),
      sql<number>`count(*) filter (where status not in (${sql.join(closed)}) and acknowledged_at is null and ${due} > ${s.now} and ${due} <= ${new Date(s.now.getTime() + s.atRiskMinutes * 60_000)})::int`.as(
        'at_risk',
      ),
      sql<number>`count(*) filter (where status not in (${sql.join(closed)}) and acknowledged_at is null and ${due} <= ${s.now})::int`.as('breached'),
    ])
    .execute();
  return {
    window_days: s.windowDays,
    open_cases: { total: open.reduce((n, r) => n + Number(r.n), 0), by_severity: bySeverity },
    mtta_seconds: seconds(times?.mtta),
    mttr_seconds: seconds(times?.mttr),
    sla_at_risk: Number(times?.at_risk ?? 0),
    sla_breached: Number(times?.breached ?? 0),
  };
}

/**
 * `{approved_executions, denied, dry_runs, window_days}`: approval gates approved (the
 * step then executes) and denied in the window, and dry runs queued in it, over runs the
 * caller may see.
 */
export async function metricsGate(db: Kysely<Database>, scope: CaseScope, windowDays: number, now: Date): Promise<v.InferOutput<typeof metricsGateSchema>> {
  const since = new Date(now.getTime() - windowDays * 86_400_000);
  const [gates] = await db
    .selectFrom('run_gates')
    .innerJoin('runs', 'runs.id', 'run_gates.run_id')
    .where(visibleRuns(scope))
    .where('run_gates.decided_at', '>=', since)
    .select([
      sql<number>`count(*) filter (where run_gates.status = 'approved')::int`.as('approved'),
      sql<number>`count(*) filter (where run_gates.status = 'denied')::int`.as('denied'),
    ])
    .execute();
  const [dry] = await db
    .selectFrom('runs')
    .where(visibleRuns(scope))
    .where('dry_run', '=', true)
    .where('queued_at', '>=', since)
    .select(sql<number>`count(*)::int`.as('n'))
    .execute();
  return { approved_executions: Number(gates?.approved ?? 0), denied: Number(gates?.denied ?? 0), dry_runs: Number(dry?.n ?? 0), window_days: windowDays };
}
