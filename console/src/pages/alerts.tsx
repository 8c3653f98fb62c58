/**
 * The alert inbox (`/alerts`, and `/alerts/<id>`, the `href` the API gives an alert, which
 * shows that alert above the list, read with `GET /alerts/<id>` whatever page it is on, and
 * highlights it in the list): `GET /alerts` newest first, filtered by status, severity and
 * source (kept in the URL query with the page offset), a page at a time with the total.
 * Each alert, or the alerts selected on the page, can be escalated, linked or dismissed
 * (alerts/actions.tsx); the outcome is shown per alert. Re-read on `alert.updated`.
 */
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, NavLink, useNavigate, useParams, useSearchParams } from 'react-router';
import { AlertActions } from '../alerts/actions.tsx';
import type { Outcome } from '../alerts/types.ts';
import { answer, client } from '../api.ts';
import type { Alert, AlertDetail, AlertStatus } from '../api-shapes.ts';
import { caseSeverities } from '../config.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { SavedViews } from '../saved-views.tsx';
import { useShortcut } from '../shortcuts.tsx';
import { Ago, Badge, Checkbox, ErrorNote, FilterChoice, ListPager, Loading } from '../ui.tsx';
import { useUrlFilters } from '../url-filters.ts';

type Filters = { status: AlertStatus | ''; severity: string; source: string };

const PAGE_SIZE = 50;
/** The alert statuses `GET /alerts` filters by. */
const ALERT_STATUSES: AlertStatus[] = ['new', 'linked', 'dismissed'];
const isAlertStatus = (value: string): value is AlertStatus => ALERT_STATUSES.some((status) => status === value);
/** `value` as a status filter: a status the API knows, else none. */
const statusFilter = (value: string): Filters['status'] => (isAlertStatus(value) ? value : '');

const filtersOf = (params: URLSearchParams): Filters => ({
  status: statusFilter(params.get('status') ?? ''),
  severity: params.get('severity') ?? '',
  source: params.get('source') ?? '',
});

/** The alert inbox page. */
export function AlertsPage() {
  const { id } = useParams();
  const { filters, offset, apply, key } = useUrlFilters(filtersOf);
  return (
    <>
      <h1>Alert inbox</h1>
      <AlertFilters filters={filters} onApply={apply} />
      <SavedViews resource="alerts" filters={filters} onApply={(next) => apply(next)} />
      <Inbox key={key} filters={filters} offset={offset} current={id ?? null} onPage={(next) => apply(filters, next)} />
    </>
  );
}

/** The filter form: the selects apply at once, the source when submitted. */
function AlertFilters({ filters, onApply }: { filters: Filters; onApply: (filters: Filters) => void }) {
  const [source, setSource] = useState(filters.source);
  useEffect(() => setSource(filters.source), [filters.source]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...filters, source: source.trim() });
  };
  return (
    <search aria-label="Filter alerts">
      <form className="filters" onSubmit={submit}>
        <FilterChoice
          label="Status"
          value={filters.status}
          options={ALERT_STATUSES}
          onChange={(status) => onApply({ ...filters, status: statusFilter(status) })}
        />
        <FilterChoice label="Severity" value={filters.severity} options={caseSeverities} onChange={(severity) => onApply({ ...filters, severity })} />
        <label>
          Source
          <input type="text" value={source} onChange={(event) => setSource(event.target.value)} />
        </label>
        <button type="submit" className="primary">
          Filter
        </button>
        <button type="button" onClick={() => onApply({ status: '', severity: '', source: '' })}>
          Clear filters
        </button>
      </form>
    </search>
  );
}

/** One page of the inbox with its selection, bulk actions and pager; the alert the URL names above it. */
function Inbox({ filters, offset, current, onPage }: { filters: Filters; offset: number; current: string | null; onPage: (offset: number) => void }) {
  const list = useResource(
    async () =>
      answer(
        await client.GET('/alerts', {
          params: { query: { ...filters, status: filters.status || undefined, include_total: 'true', limit: PAGE_SIZE, offset } },
        }),
      ),
    [filters.status, filters.severity, filters.source, offset],
    (frame) => frame.type === 'alert.updated',
  );
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // The default role matrix: viewers read only. The API decides either way; this spares a
  // viewer controls that would answer 403.
  const canAct = useMe().role !== 'viewer';
  const settled = (outcomes: Outcome[]) => {
    const succeeded = new Set(outcomes.filter((outcome) => outcome.error === null).map((outcome) => outcome.alert.id));
    setSelected((previous) => new Set([...previous].filter((id) => !succeeded.has(id))));
    list.reload();
  };
  const panel = current && <CurrentAlert key={current} id={current} canAct={canAct} onDone={settled} />;
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const items = list.data?.items ?? [];
  const at = items.findIndex((alert) => alert.id === current);
  const open = (step: number) => {
    const next = items[at === -1 ? 0 : Math.min(items.length - 1, Math.max(0, at + step))];
    if (next) navigate({ pathname: `/alerts/${next.id}`, search: params.toString() });
  };
  useShortcut('j', 'Open the next alert of the page', () => open(1));
  useShortcut('k', 'Open the previous alert of the page', () => open(-1));
  if (!list.data)
    return list.error ? (
      <>
        {panel}
        <ErrorNote error={list.error} />
      </>
    ) : (
      <>
        {panel}
        <Loading what="alerts" />
      </>
    );
  const alerts = list.data.items;
  const picked = alerts.filter((alert) => selected.has(alert.id));
  return (
    <>
      <ErrorNote error={list.error} />
      {panel}
      {canAct && (
        <section className="panel alert-panel" aria-labelledby="bulk-heading">
          <h2 id="bulk-heading">{`Selected alerts (${picked.length})`}</h2>
          <AlertActions alerts={picked} onDone={settled} />
        </section>
      )}
      {alerts.length === 0 ? (
        <p>No alerts match these filters.</p>
      ) : (
        <AlertTable alerts={alerts} selected={canAct ? selected : null} current={current} onSelect={setSelected} />
      )}
      <ListPager noun="Alerts" offset={offset} pageSize={PAGE_SIZE} page={list.data} onPage={onPage} />
    </>
  );
}

/**
 * The alert the URL names (`GET /alerts/<id>`): its details, the case holding it, its
 * observables, the payload it arrived with, and its actions; or why it is not shown.
 * Focused when it opens.
 */
function CurrentAlert({ id, canAct, onDone }: { id: string; canAct: boolean; onDone: (outcomes: Outcome[]) => void }) {
  const [params] = useSearchParams();
  const detail = useResource(
    async () => answer(await client.GET('/alerts/{id}', { params: { path: { id } } })),
    [id],
    (frame) => frame.type === 'alert.updated' && frame.alert_id === id,
  );
  const heading = useRef<HTMLHeadingElement>(null);
  const loaded = detail.data !== null;
  useEffect(() => {
    if (loaded) heading.current?.focus();
  }, [loaded]);
  const close = <Link to={{ pathname: '/alerts', search: params.toString() }}>Close the details</Link>;
  if (!detail.data) {
    return (
      <section className="panel alert-panel" aria-label="The alert this address names">
        {detail.error ? <ErrorNote error={detail.error} /> : <Loading what="the alert" />}
        {close}
      </section>
    );
  }
  const alert = detail.data;
  return (
    <section className="panel alert-panel" aria-labelledby="current-alert-heading" data-testid="alert-detail">
      <div className="row alert-panel-top">
        <h2 id="current-alert-heading" ref={heading} tabIndex={-1}>
          {alert.title}
        </h2>
        {close}
      </div>
      <AlertFacts alert={alert} />
      {canAct && (
        <AlertActions
          alerts={[alert]}
          shortcuts
          onDone={(outcomes) => {
            detail.reload();
            onDone(outcomes);
          }}
        />
      )}
      <AlertObservables observables={alert.observables} />
      <details className="alert-payload">
        <summary>The payload as it arrived</summary>
        <pre data-testid="alert-payload">{JSON.stringify(alert.payload, null, 2)}</pre>
      </details>
    </section>
  );
}

/** The observables intake extracted from an alert, as typed and as normalized. */
function AlertObservables({ observables }: { observables: AlertDetail['observables'] }) {
  if (observables.length === 0) return <p className="muted">No observables were extracted from this alert.</p>;
  return (
    <table className="alert-observables" aria-label="Observables of the alert">
      <thead>
        <tr>
          <th scope="col">Type</th>
          <th scope="col">Value</th>
          <th scope="col">Normalized</th>
        </tr>
      </thead>
      <tbody>
        {observables.map((o) => (
          <tr key={`${o.type}:${o.normalized}`}>
            <td>{o.type}</td>
            <td className="mono">{o.value}</td>
            <td className="mono">{o.normalized}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the service knows of one alert. */
function AlertFacts({ alert }: { alert: AlertDetail }) {
  return (
    <dl className="facts">
      <dt>Severity</dt>
      <dd>
        <Badge kind="severity" value={alert.severity} />
      </dd>
      <dt>Status</dt>
      <dd>
        <Badge kind="status" value={alert.status} />
      </dd>
      <dt>Case</dt>
      <dd>
        {alert.case ? (
          <Link to={`/cases/${alert.case.id}`}>{`${alert.case.key}: ${alert.case.title}`}</Link>
        ) : alert.case_id ? (
          <Link to={`/cases/${alert.case_id}`}>Open the case</Link>
        ) : (
          'In no case'
        )}
      </dd>
      <dt>Source</dt>
      <dd>
        {alert.source} <span className="mono">{alert.external_id}</span>
      </dd>
      <dt>Rule</dt>
      <dd>{alert.rule_id ?? 'none'}</dd>
      <dt>Team</dt>
      <dd>{alert.team ?? 'none (org-wide)'}</dd>
      <dt>Detected</dt>
      <dd>{alert.detected_at ? <Ago at={alert.detected_at} /> : 'unknown'}</dd>
      <dt>Received</dt>
      <dd>
        <Ago at={alert.received_at} />
        {alert.repeat_count > 0 && `, repeated ${alert.repeat_count} times, last `}
        {alert.repeat_count > 0 && <Ago at={alert.last_seen_at} />}
      </dd>
      {alert.url && (
        <>
          <dt>In the detector</dt>
          <dd>
            <a href={alert.url} target="_blank" rel="noreferrer">
              Open the original alert
            </a>
          </dd>
        </>
      )}
    </dl>
  );
}

/** The alerts of a page, each with a checkbox unless `selected` is null (no actions); "select all" covers this page only. */
function AlertTable({
  alerts,
  selected,
  current,
  onSelect,
}: {
  alerts: Alert[];
  selected: ReadonlySet<string> | null;
  current: string | null;
  onSelect: (selected: ReadonlySet<string>) => void;
}) {
  const [params] = useSearchParams();
  const search = params.size > 0 ? `?${params}` : '';
  const all = selected !== null && alerts.every((alert) => selected.has(alert.id));
  const some = selected !== null && alerts.some((alert) => selected.has(alert.id));
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    onSelect(next);
  };
  return (
    <table className="alert-table" aria-label="Alerts">
      <thead>
        <tr>
          {selected && (
            <th scope="col" className="col-check">
              <Checkbox
                label="Select all alerts on this page"
                checked={all}
                mixed={some && !all}
                onChange={(on) => onSelect(new Set(on ? alerts.map((alert) => alert.id) : []))}
              />
            </th>
          )}
          <th scope="col">Alert</th>
          <th scope="col">Severity</th>
          <th scope="col">Status</th>
          <th scope="col">Source</th>
          <th scope="col">Rule</th>
          <th scope="col">Case</th>
          <th scope="col">Received</th>
        </tr>
      </thead>
      <tbody>
        {alerts.map((alert) => (
          <AlertRow
            key={alert.id}
            alert={alert}
            search={search}
            current={alert.id === current}
            checked={selected ? selected.has(alert.id) : null}
            onCheck={(on) => toggle(alert.id, on)}
          />
        ))}
      </tbody>
    </table>
  );
}

/** One alert, with its checkbox unless `checked` is null; its title opens it at `/alerts/<id>`, keeping the filters; the alert the URL names is highlighted. */
function AlertRow({
  alert,
  search,
  current,
  checked,
  onCheck,
}: {
  alert: Alert;
  search: string;
  current: boolean;
  checked: boolean | null;
  onCheck: (on: boolean) => void;
}) {
  return (
    <tr data-testid="alert-row" className={current ? 'alert-current' : undefined}>
      {checked !== null && (
        <td>
          <Checkbox label={`Select alert ${alert.title}`} checked={checked} onChange={onCheck} />
        </td>
      )}
      <td>
        <NavLink to={`/alerts/${alert.id}${search}`} end>
          {alert.title}
        </NavLink>
        {alert.repeat_count > 0 && <span className="muted">{` (repeated ${alert.repeat_count}×)`}</span>}
      </td>
      <td>
        <Badge kind="severity" value={alert.severity} />
      </td>
      <td>
        <Badge kind="status" value={alert.status} />
      </td>
      <td>{alert.source}</td>
      <td className="mono">{alert.rule_id ?? ''}</td>
      <td>{alert.case_id ? <Link to={`/cases/${alert.case_id}`}>View case</Link> : <span className="muted">none</span>}</td>
      <td>
        <Ago at={alert.received_at} />
      </td>
    </tr>
  );
}
