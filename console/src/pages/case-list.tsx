/**
 * The case list (`/cases`): the cases the caller may see, newest first, filtered on the
 * server by status, severity, owner and a key or title search (`GET /cases`). The filters
 * live in the URL query, so a filtered list can be linked and survives a reload. Rows are
 * virtualized (@tanstack/react-virtual): only the visible ones are in the DOM, and further
 * pages are read with `offset` as the user scrolls, so the list stays usable at 100,000
 * cases. A `case.updated` frame re-reads the first page, which replaces the top of the list
 * and leaves the pages below it, and the scroll position, in place.
 */
import { elementScroll, type Rect, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { type CSSProperties, type FormEvent, memo, type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { answer, client } from '../api.ts';
import type { BulkResult, Case, CasePage } from '../api-shapes.ts';
import { CaseBulkBar } from '../case-list/bulk-bar.tsx';
import { type Filters, filtersOf, firstPageKey, PAGE_SIZE, paramsOf, readFirstPage } from './case-list-query.ts';
import { caseStatuses, caseSeverities } from '../config.ts';
import { firstReadData, takeFirstRead } from '../first-reads.ts';
import { thousands } from '../format.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { mayWork } from '../role-matrix.ts';
import { SavedViews } from '../saved-views.tsx';
import { Ago, Badge, Checkbox, ErrorNote, FilterChoice, Loading } from '../ui.tsx';

/** What a row of the list shows of a case of `GET /cases`. */
type CaseSummary = Pick<Case, 'id' | 'key' | 'title' | 'severity' | 'status' | 'owner_email' | 'alert_count' | 'sla_breached' | 'created_at' | 'updated_at'>;

/** The largest `offset` the API accepts. */
const MAX_OFFSET = 100_000;
/** Every row is one line high (styles.css "Case list"), so the virtualizer need not measure. */
const ROW_HEIGHT = 36;
/** Rows rendered beyond each edge of the visible ones, so a scroll shows rows, not blank space. */
const OVERSCAN = 6;

/**
 * The scroll box's size before it is measured, as styles.css ".case-scroll" sizes it
 * (the window's height less 230 px, at least 320 px): the first render then holds the rows
 * that will show, rather than none and a second render once the box is measured.
 */
const expectedScrollRect = () => ({ width: window.innerWidth, height: Math.max(320, window.innerHeight - 230) });

/**
 * The scroll box's size as a ResizeObserver reports it, after the browser's own layout.
 * The virtualizer's default also reads `clientHeight` when the table mounts, which forces
 * a layout of the whole page in the middle of React's commit (bench/console-case-list.ts
 * measured ~100 ms of the first render there); `expectedScrollRect` stands in until then.
 */
function observeScrollRect(instance: Virtualizer<HTMLDivElement, Element>, changed: (rect: Rect) => void): () => void {
  const element = instance.scrollElement;
  if (!element) return () => undefined;
  const observer = new ResizeObserver(([entry]) => {
    if (entry) changed({ width: Math.round(entry.contentRect.width), height: Math.round(entry.contentRect.height) });
  });
  observer.observe(element);
  return () => observer.disconnect();
}

/** `held` with the rows of `page` that it does not already hold appended. */
function appendRows(held: CaseSummary[], page: CaseSummary[]): CaseSummary[] {
  const ids = new Set(held.map((row) => row.id));
  return [...held, ...page.filter((row) => !ids.has(row.id))];
}

/**
 * The list after the first page was read again: that page, then the rows held before
 * that are not on it and sort after its last row (newer cases pushed them down). A held
 * row newer than that last row but absent from the page no longer matches, and goes.
 */
function withFirstPage(first: CasePage, held: CaseSummary[]): CaseSummary[] {
  if (!first.has_more) return first.items;
  const boundary = first.items.at(-1)?.created_at ?? null;
  return appendRows(
    first.items,
    held.filter((row) => boundary === null || row.created_at === null || row.created_at <= boundary),
  );
}

/** The case list page: filters in the URL, a virtualized table of the matching cases. */
export function CaseListPage() {
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  return (
    <>
      <h1>Cases</h1>
      <CaseFilters filters={filters} onApply={(next) => setParams(paramsOf(next))} />
      <SavedViews resource="cases" filters={filters} onApply={(next) => setParams(paramsOf(next))} />
      <CaseRows key={paramsOf(filters).toString()} filters={filters} />
    </>
  );
}

/** The filter form: the selects apply at once, owner and search when submitted. */
function CaseFilters({ filters, onApply }: { filters: Filters; onApply: (filters: Filters) => void }) {
  const me = useMe();
  const [owner, setOwner] = useState(filters.owner);
  const [search, setSearch] = useState(filters.search);
  useEffect(() => setOwner(filters.owner), [filters.owner]);
  useEffect(() => setSearch(filters.search), [filters.search]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...filters, owner: owner.trim(), search: search.trim() });
  };
  return (
    <search aria-label="Filter cases">
      <form className="filters" onSubmit={submit}>
        <FilterChoice label="Status" name="status" value={filters.status} options={caseStatuses} onChange={(status) => onApply({ ...filters, status })} />
        <FilterChoice
          label="Severity"
          name="severity"
          value={filters.severity}
          options={caseSeverities}
          onChange={(severity) => onApply({ ...filters, severity })}
        />
        <label>
          Owner
          <input type="text" name="owner" value={owner} placeholder="email" onChange={(event) => setOwner(event.target.value)} />
        </label>
        {me.email && (
          <button type="button" onClick={() => onApply({ ...filters, owner: me.email ?? '' })}>
            Mine
          </button>
        )}
        <label>
          Key or title
          <input type="search" name="search" value={search} maxLength={200} onChange={(event) => setSearch(event.target.value)} />
        </label>
        <button type="submit" className="primary">
          Search
        </button>
        <button type="button" onClick={() => onApply({ status: '', severity: '', owner: '', search: '' })}>
          Clear filters
        </button>
      </form>
    </search>
  );
}

type Loaded = { first: CasePage | null; rows: CaseSummary[]; hasMore: boolean; loading: boolean; error: Error | null };

/**
 * The cases matching `filters`: the first page through useResource (read again on
 * `case.updated`), later pages appended as the user scrolls near the end.
 */
function useCasePages(filters: Filters) {
  const first = useResource(
    () => takeFirstRead(firstPageKey(filters), () => readFirstPage(filters)),
    [filters.status, filters.severity, filters.owner, filters.search],
    (frame) => frame.type === 'case.updated',
    () => firstReadData<CasePage>(firstPageKey(filters)),
  );
  const [loaded, setLoaded] = useState<Loaded>({ first: null, rows: [], hasMore: false, loading: false, error: null });
  if (first.data && first.data !== loaded.first) {
    const onlyFirst = loaded.first === null || loaded.rows.length <= loaded.first.items.length;
    setLoaded({ ...loaded, first: first.data, rows: withFirstPage(first.data, loaded.rows), hasMore: onlyFirst ? first.data.has_more : loaded.hasMore });
  }
  const busy = useRef(false);
  const offset = loaded.rows.length;
  const loadMore = useCallback(() => {
    if (busy.current) return;
    busy.current = true;
    setLoaded((previous) => ({ ...previous, loading: true, error: null }));
    client
      .GET('/cases', { params: { query: { ...filters, limit: PAGE_SIZE, offset } } })
      .then(answer)
      .then(
        (page) => {
          busy.current = false;
          setLoaded((previous) => ({ ...previous, rows: appendRows(previous.rows, page.items), hasMore: page.has_more, loading: false }));
        },
        (error: unknown) => {
          busy.current = false;
          setLoaded((previous) => ({ ...previous, loading: false, error: error as Error }));
        },
      );
  }, [filters, offset]);
  return { first, loaded, hasMore: loaded.hasMore && offset <= MAX_OFFSET, loadMore };
}

/** How many cases match, as the API counted them (capped: "1,000 or more"). */
function Total({ page, loaded }: { page: CasePage; loaded: number }) {
  if (page.total === undefined) return null;
  const count = page.total_relation === 'gte' ? `${thousands(page.total)} or more cases` : `${thousands(page.total)} ${page.total === 1 ? 'case' : 'cases'}`;
  return (
    <p className="muted">
      <span role="status">{count} match.</span> {loaded > 0 && `${thousands(loaded)} loaded.`}
    </p>
  );
}

/** The list of the cases matching `filters`, or why there is none; with the bulk bar and a checkbox per row for a caller who may work cases. */
function CaseRows({ filters }: { filters: Filters }) {
  const { first, loaded, hasMore, loadMore } = useCasePages(filters);
  const { rows } = loaded;
  const canAct = mayWork(useMe().role);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [outcomes, setOutcomes] = useState<ReadonlyMap<string, BulkResult>>(new Map());
  const select = useCallback(
    (id: string, on: boolean) =>
      setSelected((previous) => {
        const next = new Set(previous);
        if (on) next.add(id);
        else next.delete(id);
        return next;
      }),
    [],
  );
  const settled = (results: BulkResult[]) => {
    setOutcomes(new Map(results.map((result) => [result.id, result])));
    const done = new Set(results.filter((result) => result.ok).map((result) => result.id));
    setSelected((previous) => new Set([...previous].filter((id) => !done.has(id))));
  };
  if (!first.data) return first.error ? <ErrorNote error={first.error} /> : <Loading what="cases" />;
  const keyOf = (id: string) => rows.find((row) => row.id === id)?.key ?? id;
  return (
    <>
      <ErrorNote error={first.error} />
      {canAct && <CaseBulkBar selected={rows.filter((row) => selected.has(row.id)).map((row) => row.id)} keyOf={keyOf} onDone={settled} />}
      <Total page={first.data} loaded={rows.length} />
      {rows.length === 0 ? (
        <p>No cases match these filters.</p>
      ) : (
        <CaseTable
          rows={rows}
          total={first.data.total_relation === 'eq' ? first.data.total : undefined}
          hasMore={hasMore && !loaded.error}
          onNearEnd={loadMore}
          selection={canAct ? { selected, outcomes, select, selectAll: (on) => setSelected(new Set(on ? rows.map((row) => row.id) : [])) } : null}
        />
      )}
      {loaded.loading && <Loading what="more cases" />}
      {loaded.hasMore && !hasMore && <p className="muted">{`The list stops after ${thousands(MAX_OFFSET)} cases: narrow it with the filters.`}</p>}
      {loaded.error && (
        <div className="row">
          <ErrorNote error={loaded.error} />
          <button type="button" onClick={loadMore}>
            Try again
          </button>
        </div>
      )}
    </>
  );
}

/** The selection of the table: which rows are picked, what the last bulk operation did to each, and how to change it. */
type Selection = {
  selected: ReadonlySet<string>;
  outcomes: ReadonlyMap<string, BulkResult>;
  select: (id: string, on: boolean) => void;
  selectAll: (on: boolean) => void;
};

/**
 * Keeps the rows in view where they were when rows come or go above them (newer cases on
 * a re-read first page), unless the list is scrolled to its top, where new cases should show.
 */
function useScrollAnchor(scroller: RefObject<HTMLDivElement | null>, rows: CaseSummary[], firstShown: number) {
  const anchor = useRef<{ id: string; index: number } | null>(null);
  useLayoutEffect(() => {
    const held = anchor.current;
    const element = scroller.current;
    if (!held || !element || element.scrollTop === 0) return;
    const index = rows.findIndex((row) => row.id === held.id);
    if (index >= 0 && index !== held.index) element.scrollTop += (index - held.index) * ROW_HEIGHT;
  }, [scroller, rows]);
  useEffect(() => {
    const row = rows[firstShown];
    anchor.current = row ? { id: row.id, index: firstShown } : null;
  });
}

/** The virtualized table: the tbody's ::before and ::after (styles.css) stand in for the rows above and below the visible ones. */
function CaseTable({
  rows,
  total,
  hasMore,
  onNearEnd,
  selection,
}: {
  rows: CaseSummary[];
  total: number | undefined;
  hasMore: boolean;
  onNearEnd: () => void;
  selection: Selection | null;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const placed = useRef(false);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
    initialRect: expectedScrollRect(),
    observeElementRect: observeScrollRect,
    scrollToFn: (offset, options, instance) => {
      // A new scroll box is at its top already; scrolling it there on mount would force a layout mid-commit, as above.
      const first = !placed.current;
      placed.current = true;
      if (first && offset === 0 && !options.adjustments) return;
      elementScroll(offset, options, instance);
    },
  });
  const visible = virtualizer.getVirtualItems();
  useScrollAnchor(scroller, rows, visible[0]?.index ?? 0);
  const last = visible.at(-1)?.index ?? 0;
  useEffect(() => {
    if (hasMore && last >= rows.length - PAGE_SIZE / 4) onNearEnd();
  }, [hasMore, last, rows.length, onNearEnd]);
  const above = visible[0]?.start ?? 0;
  const below = virtualizer.getTotalSize() - (visible.at(-1)?.end ?? 0);
  const rowCount = total ?? (hasMore ? -1 : rows.length);
  return (
    <div className="case-scroll" ref={scroller}>
      <table className="case-table" aria-label="Cases" aria-rowcount={rowCount === -1 ? -1 : rowCount + 1}>
        <thead>
          <tr aria-rowindex={1}>
            {selection && (
              <th scope="col" className="col-check">
                <Checkbox
                  label="Select every loaded case"
                  checked={selection.selected.size > 0 && rows.every((row) => selection.selected.has(row.id))}
                  mixed={selection.selected.size > 0 && !rows.every((row) => selection.selected.has(row.id))}
                  onChange={selection.selectAll}
                />
              </th>
            )}
            <th scope="col" className="col-key">
              Key
            </th>
            <th scope="col">Title</th>
            <th scope="col" className="col-badge">
              Severity
            </th>
            <th scope="col" className="col-badge">
              Status
            </th>
            <th scope="col" className="col-owner">
              Owner
            </th>
            <th scope="col" className="col-number">
              Alerts
            </th>
            <th scope="col" className="col-sla">
              SLA breached
            </th>
            <th scope="col" className="col-time">
              Updated
            </th>
            <th scope="col" className="col-time">
              Opened
            </th>
          </tr>
        </thead>
        <tbody style={{ '--above': `${above}px`, '--below': `${below}px` } as CSSProperties}>
          {visible.map((item) => {
            const row = rows[item.index];
            return (
              row && (
                <CaseRow
                  key={row.id}
                  row={row}
                  rowIndex={item.index + 2}
                  checked={selection ? selection.selected.has(row.id) : null}
                  outcome={selection?.outcomes.get(row.id) ?? null}
                  onCheck={selection?.select ?? null}
                />
              )
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * One case; its key is the link to the case page. With a checkbox (`checked` not null), it
 * shows what the last bulk operation did to it. Memoized: a scroll re-renders only the rows
 * that come into view.
 */
const CaseRow = memo(function CaseRow({
  row,
  rowIndex,
  checked,
  outcome,
  onCheck,
}: {
  row: CaseSummary;
  rowIndex: number;
  checked: boolean | null;
  outcome: BulkResult | null;
  onCheck: ((id: string, on: boolean) => void) | null;
}) {
  return (
    <tr data-testid="case-row" aria-rowindex={rowIndex}>
      {checked !== null && onCheck && (
        <td className="col-check">
          <Checkbox label={`Select ${row.key}`} checked={checked} onChange={(on) => onCheck(row.id, on)} />
          {outcome && <BulkMark outcome={outcome} />}
        </td>
      )}
      <td>
        <Link to={`/cases/${row.id}`}>{row.key}</Link>
      </td>
      <td title={row.title}>{row.title}</td>
      <td>
        <Badge kind="severity" value={row.severity} />
      </td>
      <td>
        <Badge kind="status" value={row.status} />
      </td>
      <td title={row.owner_email ?? undefined}>{row.owner_email ?? <span className="muted">unassigned</span>}</td>
      <td className="col-number">{row.alert_count}</td>
      <td>{row.sla_breached ? <span className="badge sla-breached">yes</span> : <span className="muted">no</span>}</td>
      <td>{row.updated_at ? <Ago at={row.updated_at} /> : <span className="muted">never</span>}</td>
      <td>{row.created_at ? <Ago at={row.created_at} /> : <span className="muted">unknown</span>}</td>
    </tr>
  );
});

/** What the last bulk operation did to a row: a mark, with the API's reason in words when it failed. */
function BulkMark({ outcome }: { outcome: BulkResult }) {
  return outcome.ok ? (
    <span className="bulk-mark" title="done" data-testid="bulk-done">
      <span aria-hidden="true">✓</span>
      <span className="visually-hidden">done</span>
    </span>
  ) : (
    <span className="bulk-mark outcome-failed" title={outcome.message ?? outcome.code ?? 'not done'} data-testid="bulk-failed">
      <span aria-hidden="true">✗</span>
      <span className="visually-hidden">{`failed: ${outcome.message ?? outcome.code ?? 'not done'}`}</span>
    </span>
  );
}
