/**
 * The runs across cases (`/runs`): `GET /runs` newest queued first, a page at a time with
 * the total, filtered by status, runbook and case (kept in the URL query with the page
 * offset, so a filtered list can be linked to). Each run shows its runbook, case,
 * trigger, start and how long it ran (or has been running), and opens at `/runs/<id>`.
 * Re-read on `run.updated`.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { answer, client } from '../api.ts';
import type { Run } from '../api-shapes.ts';
import { duration } from '../format.ts';
import { useResource } from '../resource.ts';
import { Ago, Badge, ErrorNote, FilterChoice, ListPager, Loading, useNow } from '../ui.tsx';
import { useUrlFilters } from '../url-filters.ts';

const PAGE_SIZE = 50;
/** The run statuses (docs/architecture.md "Run path"). */
const RUN_STATUSES = ['queued', 'running', 'waiting_approval', 'succeeded', 'failed', 'denied', 'expired', 'cancelled'] as const;

type Filters = { status: string; runbook_id: string; case_id: string };

const filtersOf = (params: URLSearchParams): Filters => ({
  status: params.get('status') ?? '',
  runbook_id: params.get('runbook_id') ?? '',
  case_id: params.get('case_id') ?? '',
});

/** The run list page. */
export function RunsPage() {
  const { filters, offset, apply, key } = useUrlFilters(filtersOf);
  return (
    <>
      <h1>Runs</h1>
      <RunFilters filters={filters} onApply={apply} />
      <RunList key={key} filters={filters} offset={offset} onPage={(next) => apply(filters, next)} />
    </>
  );
}

/** The filter form: the status applies at once, the runbook when submitted; a case filter (from a link) shows with a way out. */
function RunFilters({ filters, onApply }: { filters: Filters; onApply: (filters: Filters) => void }) {
  const [runbook, setRunbook] = useState(filters.runbook_id);
  useEffect(() => setRunbook(filters.runbook_id), [filters.runbook_id]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...filters, runbook_id: runbook.trim() });
  };
  return (
    <search aria-label="Filter runs">
      <form className="filters" onSubmit={submit}>
        <FilterChoice label="Status" value={filters.status} options={RUN_STATUSES} onChange={(status) => onApply({ ...filters, status })} />
        <label>
          Runbook
          <input type="text" value={runbook} placeholder="slug" onChange={(event) => setRunbook(event.target.value)} />
        </label>
        <button type="submit" className="primary">
          Filter
        </button>
        <button type="button" onClick={() => onApply({ status: '', runbook_id: '', case_id: '' })}>
          Clear filters
        </button>
      </form>
      {filters.case_id && (
        <p>
          Runs of <Link to={`/cases/${filters.case_id}`}>one case</Link> only.{' '}
          <button type="button" onClick={() => onApply({ ...filters, case_id: '' })}>
            Show the runs of every case
          </button>
        </p>
      )}
    </search>
  );
}

/** One page of runs and its pager. */
function RunList({ filters, offset, onPage }: { filters: Filters; offset: number; onPage: (offset: number) => void }) {
  const list = useResource(
    async () =>
      answer(
        await client.GET('/runs', {
          params: {
            query: {
              status: filters.status || undefined,
              runbook_id: filters.runbook_id || undefined,
              case_id: filters.case_id || undefined,
              include_total: 'true',
              limit: PAGE_SIZE,
              offset,
            },
          },
        }),
      ),
    [filters.status, filters.runbook_id, filters.case_id, offset],
    (frame) => frame.type === 'run.updated',
  );
  if (!list.data) return list.error ? <ErrorNote error={list.error} /> : <Loading what="runs" />;
  return (
    <>
      <ErrorNote error={list.error} />
      {list.data.items.length === 0 ? <p>No runs match these filters.</p> : <RunTable runs={list.data.items} />}
      <ListPager noun="Runs" offset={offset} pageSize={PAGE_SIZE} page={list.data} onPage={onPage} />
    </>
  );
}

function RunTable({ runs }: { runs: Run[] }) {
  return (
    <table className="run-table" aria-label="Runs">
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Runbook</th>
          <th scope="col">Status</th>
          <th scope="col">Case</th>
          <th scope="col">Trigger</th>
          <th scope="col">Started</th>
          <th scope="col">Duration</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} data-testid="run-row">
            <td>
              <Link to={`/runs/${run.id}`} className="mono" aria-label={`Run ${run.id} of ${run.runbook_id}`}>
                {run.id.slice(0, 8)}
              </Link>
              {run.dry_run && <span className="muted"> (dry run)</span>}
            </td>
            <td>
              <Link to={`/runbooks/${run.runbook_id}`}>{run.runbook_id}</Link> <span className="muted">{`v${run.runbook_version}`}</span>
            </td>
            <td>
              <Badge kind="status" value={run.status} />
            </td>
            <td>{run.case_id ? <Link to={`/cases/${run.case_id}`}>View case</Link> : <span className="muted">none</span>}</td>
            <td>{run.trigger_type}</td>
            <td>
              {run.started_at ? (
                <Ago at={run.started_at} />
              ) : (
                <span className="muted">
                  queued <Ago at={run.queued_at} />
                </span>
              )}
            </td>
            <td>
              <RunDuration run={run} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** How long a run ran, or has been running (ticking); nothing before it started. */
function RunDuration({ run }: { run: Run }) {
  const now = useNow(run.started_at && !run.finished_at ? 1000 : 60_000);
  if (!run.started_at) return <span className="muted">not started</span>;
  const end = run.finished_at ? new Date(run.finished_at) : now;
  const seconds = (end.getTime() - new Date(run.started_at).getTime()) / 1000;
  return <span>{run.finished_at ? duration(seconds) : `${duration(seconds)} so far`}</span>;
}
