/**
 * The grouped reads behind `GET /metrics/soc` (domain/metrics/soc.ts builds the document).
 * Cases, gates, runs and alerts go through the caller's case scope, narrowed to one team when
 * asked; AI spend reads the audit log and is only called for callers allowed to see it.
 *
 * A case is opened in the week of `created_at`, acknowledged in the week of its first
 * acknowledgement, and closed in the week it was first resolved or closed (as MTTR).
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import {
  triageAgreement,
  type AiSpend,
  type AiTriageAgreement,
  type AlertGroup,
  type CaseGroup,
  type GateGroup,
  type RunGroup,
  type TopRule,
} from '../../domain/metrics/soc.ts';
import type { RunOutcome } from '../../domain/runs/events.ts';
import { finishedStatuses } from '../../domain/runs/state.ts';
import { visibleAlerts } from '../alerts/alerts.queries.ts';
import { visibleCases, type CaseScope } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';
import { visibleRuns } from '../runs/runs.queries.ts';

/** The ISO week start (UTC) of a timestamp column, as `YYYY-MM-DD`. */
const week = (column: string) => sql<string>`to_char(date_trunc('week', ${sql.ref(column)} at time zone 'UTC'), 'YYYY-MM-DD')`;

export type SocFilter = { scope: CaseScope; team: string | null; since: Date; until: Date };

const casesIn =
  (f: SocFilter) =>
  (eb: ExpressionBuilder<Database, 'cases'>): Expression<SqlBool> =>
    eb.and([visibleCases(f.scope)(eb), f.team === null ? eb.lit(true) : eb('cases.team', '=', f.team)]);

/** Per (week, severity, team): opened and automated, acknowledged and resolved with their second sums. */
export async function socCaseGroups(db: Kysely<Database>, f: SocFilter): Promise<CaseGroup[]> {
  const resolvedAt = sql.ref('resolved_or_closed');
  const base = db.selectFrom((qb) =>
    qb
      .selectFrom('cases')
      .where(casesIn(f))
      .select(['id', 'severity', 'team', 'created_at', 'acknowledged_at', sql<Date | null>`coalesce(resolved_at, closed_at)`.as('resolved_or_closed')])
      .as('c'),
  );
  const [opened, acknowledged, resolved] = await Promise.all([
    base
      .where('created_at', '>=', f.since)
      .where('created_at', '<=', f.until)
      .select([
        week('created_at').as('week'),
        'severity',
        'team',
        sql<number>`count(*)::int`.as('n'),
        sql<number>`count(*) filter (where exists (select 1 from runs r where r.case_id = c.id and not r.dry_run))::int`.as('automated'),
      ])
      .groupBy([sql`1`, 'severity', 'team'])
      .execute(),
    base
      .where('acknowledged_at', '>=', f.since)
      .where('acknowledged_at', '<=', f.until)
      .select([
        week('acknowledged_at').as('week'),
        'severity',
        'team',
        sql<number>`count(*)::int`.as('n'),
        sql<number>`sum(extract(epoch from acknowledged_at - created_at))::float8`.as('secs'),
      ])
      .groupBy([sql`1`, 'severity', 'team'])
      .execute(),
    base
      .where(sql<boolean>`${resolvedAt} >= ${f.since} and ${resolvedAt} <= ${f.until}`)
      .select([
        week('resolved_or_closed').as('week'),
        'severity',
        'team',
        sql<number>`count(*)::int`.as('n'),
        sql<number>`sum(extract(epoch from ${resolvedAt} - created_at))::float8`.as('secs'),
      ])
      .groupBy([sql`1`, 'severity', 'team'])
      .execute(),
  ]);
  const empty = { opened: 0, automated: 0, acknowledged: 0, ackSeconds: 0, resolved: 0, resolveSeconds: 0 };
  return [
    ...opened.map((r) => ({ ...empty, week: r.week, severity: r.severity, team: r.team, opened: Number(r.n), automated: Number(r.automated) })),
    ...acknowledged.map((r) => ({ ...empty, week: r.week, severity: r.severity, team: r.team, acknowledged: Number(r.n), ackSeconds: Number(r.secs) })),
    ...resolved.map((r) => ({ ...empty, week: r.week, severity: r.severity, team: r.team, resolved: Number(r.n), resolveSeconds: Number(r.secs) })),
  ];
}

/** Approval gates decided in the window, per week of the decision, over runs the caller may see (of the team's cases when narrowed). */
export async function socGateGroups(db: Kysely<Database>, f: SocFilter): Promise<GateGroup[]> {
  let q = db
    .selectFrom('run_gates')
    .innerJoin('runs', 'runs.id', 'run_gates.run_id')
    .where(visibleRuns(f.scope))
    .where('run_gates.decided_at', '>=', f.since)
    .where('run_gates.decided_at', '<=', f.until)
    .where('run_gates.status', 'in', ['approved', 'denied']);
  if (f.team !== null) {
    const team = f.team;
    q = q.where((eb) => eb.exists(eb.selectFrom('cases').select('cases.id').whereRef('cases.id', '=', 'runs.case_id').where('cases.team', '=', team)));
  }
  const rows = await q
    .select([
      week('run_gates.decided_at').as('week'),
      sql<number>`count(*)::int`.as('n'),
      sql<number>`sum(extract(epoch from run_gates.decided_at - run_gates.opened_at))::float8`.as('secs'),
    ])
    .groupBy(sql`1`)
    .execute();
  return rows.map((r) => ({ week: r.week, decided: Number(r.n), seconds: Number(r.secs) }));
}

/** Alerts received in the window, per week, that the caller may see (the team's when narrowed). */
export async function socAlertGroups(db: Kysely<Database>, f: SocFilter): Promise<AlertGroup[]> {
  let q = db.selectFrom('alerts').where(visibleAlerts(f.scope)).where('received_at', '>=', f.since).where('received_at', '<=', f.until);
  if (f.team !== null) q = q.where('team', '=', f.team);
  const rows = await q
    .select([week('received_at').as('week'), sql<number>`count(*)::int`.as('n')])
    .groupBy(sql`1`)
    .execute();
  return rows.map((r) => ({ week: r.week, received: Number(r.n) }));
}

/** Runs (not dry runs) that finished in the window, per week and outcome, over runs the caller may see (of the team's cases when narrowed). */
export async function socRunGroups(db: Kysely<Database>, f: SocFilter): Promise<RunGroup[]> {
  let q = db
    .selectFrom('runs')
    .where(visibleRuns(f.scope))
    .where('runs.dry_run', '=', false)
    .where('runs.status', 'in', [...finishedStatuses])
    .where('runs.finished_at', '>=', f.since)
    .where('runs.finished_at', '<=', f.until);
  if (f.team !== null) {
    const team = f.team;
    q = q.where((eb) => eb.exists(eb.selectFrom('cases').select('cases.id').whereRef('cases.id', '=', 'runs.case_id').where('cases.team', '=', team)));
  }
  const rows = await q
    .select([week('runs.finished_at').as('week'), 'runs.status', sql<number>`count(*)::int`.as('n')])
    .groupBy([sql`1`, 'runs.status'])
    .execute();
  return rows.map((r) => ({ week: r.week, outcome: r.status as RunOutcome, runs: Number(r.n) }));
}

/** The `limit` rules with the most alerts received in the window, and how many cases those alerts sit in. */
export async function socTopRules(db: Kysely<Database>, f: SocFilter, limit: number): Promise<TopRule[]> {
  let q = db
    .selectFrom('alerts')
    .where(visibleAlerts(f.scope))
    .where('received_at', '>=', f.since)
    .where('received_at', '<=', f.until)
    .where('rule_id', 'is not', null);
  if (f.team !== null) q = q.where('team', '=', f.team);
  const rows = await q
    .select(['rule_id', sql<string>`max(title)`.as('title'), sql<number>`count(*)::int`.as('alerts'), sql<number>`count(distinct case_id)::int`.as('cases')])
    .groupBy('rule_id')
    .orderBy('alerts', 'desc')
    .orderBy('rule_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ rule_id: r.rule_id ?? '', title: r.title, alerts: Number(r.alerts), cases: Number(r.cases) }));
}

/**
 * AI spend from the audited AI rows in the window (docs/operations.md "SOC metrics"):
 * `ai.invocation` entries carry `detail.feature`, `detail.model`, `detail.prompt_tokens`
 * and `detail.completion_tokens`, and `detail.refusal_code` when the answer was refused;
 * `ai.refusal` entries `detail.refusal_code` (adapters/ai/invoke.ts). A refused
 * invocation counts as an invocation (it reached a provider and spent tokens) and as a
 * refusal.
 */
export async function socAiSpend(db: Kysely<Database>, f: Pick<SocFilter, 'team' | 'since' | 'until'>, top: number): Promise<AiSpend> {
  let q = db.selectFrom('audit_log').where('at', '>=', f.since).where('at', '<=', f.until).where('action', 'in', ['ai.invocation', 'ai.refusal']);
  if (f.team !== null) q = q.where('team', '=', f.team);
  const tokens = (key: string) => sql<number>`coalesce(sum(case when action = 'ai.invocation' then (row->'detail'->>${key})::bigint end), 0)::float8`;
  const grouped = q.select([
    sql<string>`action`.as('action'),
    sql<string | null>`row->'detail'->>'feature'`.as('feature'),
    sql<string | null>`row->'detail'->>'model'`.as('model'),
    sql<string | null>`row->'detail'->>'refusal_code'`.as('code'),
    sql<number>`count(*)::int`.as('n'),
    tokens('prompt_tokens').as('prompt'),
    tokens('completion_tokens').as('completion'),
  ]);
  const rows = await grouped.groupBy([sql`1`, sql`2`, sql`3`, sql`4`]).execute();
  const spend: AiSpend = {
    invocations: 0,
    refusals: 0,
    refusals_by_code: {},
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    by_feature: [],
    by_model: [],
  };
  const features = new Map<string, { total_tokens: number; invocations: number }>();
  const models = new Map<string, { total_tokens: number; invocations: number }>();
  for (const r of rows) {
    const n = Number(r.n);
    if (r.action === 'ai.refusal' || r.code !== null) {
      spend.refusals += n;
      const code = r.code ?? 'unknown';
      spend.refusals_by_code[code] = (spend.refusals_by_code[code] ?? 0) + n;
    }
    if (r.action === 'ai.refusal') continue;
    const used = Number(r.prompt) + Number(r.completion);
    spend.invocations += n;
    spend.prompt_tokens += Number(r.prompt);
    spend.completion_tokens += Number(r.completion);
    for (const [map, key] of [
      [features, r.feature ?? 'unknown'],
      [models, r.model ?? 'unknown'],
    ] as const) {
      const seen = map.get(key) ?? { total_tokens: 0, invocations: 0 };
      map.set(key, { total_tokens: seen.total_tokens + used, invocations: seen.invocations + n });
    }
  }
  spend.total_tokens = spend.prompt_tokens + spend.completion_tokens;
  const ranked = <K extends string>(map: Map<string, { total_tokens: number; invocations: number }>, name: K) =>
    [...map.entries()]
      .sort(([a, x], [b, y]) => y.total_tokens - x.total_tokens || a.localeCompare(b))
      .slice(0, top)
      .map(([key, v]) => ({ [name]: key, ...v }) as { [P in K]: string } & { total_tokens: number; invocations: number });
  spend.by_feature = ranked(features, 'feature');
  spend.by_model = ranked(models, 'model');
  return spend;
}

/**
 * Analysts' feedback on AI verdicts given in the window, on cases in scope (SPEC.md
 * "Metrics": `ai_triage_agreement`): agreed when the analyst's verdict equals the verdict
 * judged (domain/metrics/soc.ts `triageAgreement`).
 */
export async function socTriageAgreement(db: Kysely<Database>, f: SocFilter): Promise<AiTriageAgreement> {
  const row = await db
    .selectFrom('case_ai_triage_feedback as f')
    .innerJoin('cases', 'cases.id', 'f.case_id')
    .where('f.at', '>=', f.since)
    .where('f.at', '<=', f.until)
    .where(casesIn(f))
    .select([sql<number>`count(*)::int`.as('total'), sql<number>`count(*) filter (where f.analyst_verdict = f.ai_verdict)::int`.as('agreed')])
    .executeTakeFirstOrThrow();
  return triageAgreement(Number(row.total), Number(row.agreed));
}
