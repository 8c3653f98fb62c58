/**
 * The SOC dashboard (`/metrics`; SPEC.md "Metrics"): open cases by severity, MTTA, MTTR and
 * SLA (`GET /metrics/overview`), the weekly report as charts (`GET /metrics/soc`: alerts
 * received, cases opened and closed, MTTA and MTTR, runs by outcome, automation rate; totals by severity and team, top
 * rules, AI triage agreement and AI spend), and the approval gates' outcomes (`GET
 * /metrics/gate`). The window (`?days=`, 7 to 365) and a team (`?team=`) are kept in the
 * URL. Each reads within the caller's case scope; AI spend is a global administrator's
 * only (an empty spend otherwise, as the API answers).
 */
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { answer, client } from '../api.ts';
import { duration, thousands } from '../format.ts';
import { MetricsChart } from '../metrics/chart.tsx';
import { alertVolumeChart, automationChart, responseTimeChart, runOutcomeChart, type SocMetrics, volumeChart } from '../metrics/series.ts';
import { useResource } from '../resource.ts';
import { ErrorNote, Loading } from '../ui.tsx';
import { useUrlFilters } from '../url-filters.ts';

const WINDOWS = ['7', '30', '90', '180', '365'] as const;
const DEFAULT_DAYS = '30';

type Filters = { days: string; team: string };

const filtersOf = (params: URLSearchParams): Filters => {
  const days = params.get('days') ?? DEFAULT_DAYS;
  return { days: (WINDOWS as readonly string[]).includes(days) ? days : DEFAULT_DAYS, team: params.get('team') ?? '' };
};

/** A mean duration in words, or `none` when there was nothing to average. */
const meanText = (seconds: number | null): string => (seconds === null ? 'none' : duration(seconds));
/** A 0..1 rate as a percentage, or `none`. */
const rateText = (rate: number | null): string => (rate === null ? 'none' : `${Math.round(rate * 1000) / 10}%`);

export function MetricsPage() {
  const { filters, apply, key } = useUrlFilters(filtersOf, { days: DEFAULT_DAYS });
  return (
    <>
      <h1>SOC metrics</h1>
      <MetricsFilters filters={filters} onApply={apply} />
      <Dashboard key={key} filters={filters} />
    </>
  );
}

function MetricsFilters({ filters, onApply }: { filters: Filters; onApply: (filters: Filters) => void }) {
  const [team, setTeam] = useState(filters.team);
  useEffect(() => setTeam(filters.team), [filters.team]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...filters, team: team.trim() });
  };
  return (
    <search aria-label="Metrics for a window and team">
      <form className="filters" onSubmit={submit}>
        <label>
          Window
          <select value={filters.days} onChange={(event) => onApply({ ...filters, days: event.target.value })}>
            {WINDOWS.map((days) => (
              <option key={days} value={days}>{`Last ${days} days`}</option>
            ))}
          </select>
        </label>
        <label>
          Team
          <input type="text" value={team} placeholder="every team I see" onChange={(event) => setTeam(event.target.value)} />
        </label>
        <button type="submit" className="primary">
          Show
        </button>
      </form>
    </search>
  );
}

function Dashboard({ filters }: { filters: Filters }) {
  const days = Number(filters.days);
  const overview = useResource(async () => answer(await client.GET('/metrics/overview', { params: { query: { days } } })), []);
  const soc = useResource(
    async () => answer(await client.GET('/metrics/soc', { params: { query: filters.team ? { days, team: filters.team } : { days } } })),
    [],
  );
  const gate = useResource(async () => answer(await client.GET('/metrics/gate', { params: { query: { days } } })), []);
  return (
    <>
      <section className="panel" aria-labelledby="overview-title">
        <h2 id="overview-title">Now</h2>
        <ErrorNote error={overview.error} />
        {!overview.data && !overview.error && <Loading what="the overview" />}
        {overview.data && (
          <dl className="tiles" data-testid="metrics-overview">
            <div>
              <dt>Open cases</dt>
              <dd>{overview.data.open_cases.total}</dd>
            </div>
            {Object.entries(overview.data.open_cases.by_severity).map(([severity, count]) => (
              <div key={severity}>
                <dt>{`Open, ${severity}`}</dt>
                <dd>{count}</dd>
              </div>
            ))}
            <div>
              <dt>MTTA</dt>
              <dd>{meanText(overview.data.mtta_seconds)}</dd>
            </div>
            <div>
              <dt>MTTR</dt>
              <dd>{meanText(overview.data.mttr_seconds)}</dd>
            </div>
            <div>
              <dt>SLA at risk</dt>
              <dd>{overview.data.sla_at_risk}</dd>
            </div>
            <div>
              <dt>SLA breached</dt>
              <dd>{overview.data.sla_breached}</dd>
            </div>
          </dl>
        )}
      </section>
      <ErrorNote error={soc.error} />
      {!soc.data && !soc.error && <Loading what="the weekly report" />}
      {soc.data && <WeeklyReport soc={soc.data} />}
      <section className="panel" aria-labelledby="gate-title">
        <h2 id="gate-title">Approval gates</h2>
        <ErrorNote error={gate.error} />
        {gate.data && (
          <dl className="tiles" data-testid="metrics-gate">
            <div>
              <dt>Approved and executed</dt>
              <dd>{gate.data.approved_executions}</dd>
            </div>
            <div>
              <dt>Denied</dt>
              <dd>{gate.data.denied}</dd>
            </div>
            <div>
              <dt>Dry runs</dt>
              <dd>{gate.data.dry_runs}</dd>
            </div>
          </dl>
        )}
      </section>
    </>
  );
}

/** The weekly report: totals, the three charts, by severity and team, top rules, AI. */
function WeeklyReport({ soc }: { soc: SocMetrics }) {
  const charts = useMemo(
    () => ({
      alerts: alertVolumeChart(soc),
      volume: volumeChart(soc),
      response: responseTimeChart(soc),
      runs: runOutcomeChart(soc),
      automation: automationChart(soc),
    }),
    [soc],
  );
  const { totals } = soc;
  const runsTotal = Object.values(totals.runs_finished).reduce((sum, n) => sum + n, 0);
  return (
    <>
      <section className="panel" aria-labelledby="weekly-title">
        <h2 id="weekly-title">{`${soc.from.slice(0, 10)} to ${soc.to.slice(0, 10)}${soc.team ? `, team ${soc.team}` : ''}`}</h2>
        <dl className="tiles" data-testid="metrics-totals">
          <div>
            <dt>Alerts received</dt>
            <dd>{totals.alerts_received}</dd>
          </div>
          <div>
            <dt>Opened</dt>
            <dd>{totals.opened}</dd>
          </div>
          <div>
            <dt>Closed</dt>
            <dd>{totals.closed}</dd>
          </div>
          <div>
            <dt>MTTA</dt>
            <dd>{meanText(totals.mtta_seconds)}</dd>
          </div>
          <div>
            <dt>MTTR</dt>
            <dd>{meanText(totals.mttr_seconds)}</dd>
          </div>
          <div>
            <dt>Runs finished</dt>
            <dd>{`${runsTotal} (${totals.runs_finished.failed} failed)`}</dd>
          </div>
          <div>
            <dt>Automation rate</dt>
            <dd>{rateText(totals.automation_rate)}</dd>
          </div>
          <div>
            <dt>Approvals decided</dt>
            <dd>{totals.approvals_decided}</dd>
          </div>
          <div>
            <dt>Approval turnaround</dt>
            <dd>{meanText(totals.approval_turnaround_seconds)}</dd>
          </div>
        </dl>
        <div className="metrics-charts">
          <MetricsChart chart={charts.alerts} testId="chart-alerts" />
          <MetricsChart chart={charts.volume} testId="chart-volume" />
          <MetricsChart chart={charts.response} testId="chart-response" />
          <MetricsChart chart={charts.automation} testId="chart-automation" />
          <MetricsChart chart={charts.runs} testId="chart-runs" wide />
        </div>
      </section>
      <div className="metrics-columns">
        <FlowTable
          title="By severity"
          name="Severity"
          rows={Object.entries(soc.by_severity).map(([severity, row]) => ({ ...row, name: severity }))}
          empty="No severities configured."
        />
        <FlowTable
          title="By team"
          name="Team"
          rows={soc.by_team.map((row) => ({ ...row, name: row.team ?? 'org-wide' }))}
          empty="No team's cases in this window."
        />
        <section className="panel" aria-labelledby="top-rules-title">
          <h2 id="top-rules-title">Top rules</h2>
          {soc.top_rules.length === 0 ? (
            <p className="muted">No alerts in this window.</p>
          ) : (
            <table aria-label="Top rules">
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Alerts</th>
                  <th scope="col">Cases</th>
                </tr>
              </thead>
              <tbody>
                {soc.top_rules.map((rule) => (
                  <tr key={rule.rule_id}>
                    <th scope="row" title={rule.rule_id}>
                      {rule.title}
                    </th>
                    <td>{rule.alerts}</td>
                    <td>{rule.cases}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section className="panel" aria-labelledby="ai-title">
          <h2 id="ai-title">AI</h2>
          <dl className="facts" data-testid="metrics-ai">
            <dt>Triage agreement</dt>
            <dd>
              {soc.ai_triage_agreement.total_feedback === 0
                ? 'no analyst has judged a verdict'
                : `${rateText(soc.ai_triage_agreement.agreement_rate)} of ${soc.ai_triage_agreement.total_feedback} judgements`}
            </dd>
            <dt>Calls</dt>
            <dd>{`${soc.ai_spend.invocations} answered, ${soc.ai_spend.refusals} refused`}</dd>
            <dt>Tokens</dt>
            <dd>{`${thousands(soc.ai_spend.total_tokens)} (${thousands(soc.ai_spend.prompt_tokens)} prompt, ${thousands(soc.ai_spend.completion_tokens)} completion)`}</dd>
            {soc.ai_spend.by_feature.map((feature) => (
              <div key={feature.feature} className="facts-row">
                <dt>{feature.feature}</dt>
                <dd>{`${thousands(feature.total_tokens)} tokens in ${feature.invocations} calls`}</dd>
              </div>
            ))}
          </dl>
        </section>
      </div>
    </>
  );
}

/** A row of a flow table: what it counts (a severity, a team) and its cases opened and closed with their mean times. */
type FlowRow = { name: string; opened: number; closed: number; mtta_seconds: number | null; mttr_seconds: number | null };

/** Cases opened and closed with MTTA and MTTR, one row per severity or team. */
function FlowTable({ title, name, rows, empty }: { title: string; name: string; rows: FlowRow[]; empty: string }) {
  const id = `${title.toLowerCase().replace(/\W+/g, '-')}-title`;
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <table aria-label={title}>
          <thead>
            <tr>
              <th scope="col">{name}</th>
              <th scope="col">Opened</th>
              <th scope="col">Closed</th>
              <th scope="col">MTTA</th>
              <th scope="col">MTTR</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.name}>
                <th scope="row">{row.name}</th>
                <td>{row.opened}</td>
                <td>{row.closed}</td>
                <td>{meanText(row.mtta_seconds)}</td>
                <td>{meanText(row.mttr_seconds)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
