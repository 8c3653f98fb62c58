/**
 * The containment page (`/effects`): what is blocked or contained now, by which adapter
 * and policy version, until when (each TTL counting down), what failed to apply or to be
 * reversed, and the release of an active effect (effects/effect-list.tsx). By default it
 * shows what is in force or stuck (active, reversing, reversal failed); the filters
 * (status, target type and target, and a case or run from a link) live in the URL.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { EffectList, type EffectFilters, IN_FORCE_OR_STUCK } from '../effects/effect-list.tsx';
import { TARGET_TYPES } from '../settings/policy-fields.ts';
import { FilterChoice } from '../ui.tsx';
import { useUrlFilters } from '../url-filters.ts';

const EFFECT_STATUSES = ['pending', 'degraded', 'failed', 'active', 'reversing', 'reversal_failed', 'reversed'];
/** The status filter's value for every status; absent from the URL means in force or stuck. */
const ANY = 'any';

type PageFilters = { status: string; target_type: string; target: string; case_id: string; run_id: string };

const filtersOf = (params: URLSearchParams): PageFilters => ({
  status: params.get('status') ?? IN_FORCE_OR_STUCK,
  target_type: params.get('target_type') ?? '',
  target: params.get('target') ?? '',
  case_id: params.get('case_id') ?? '',
  run_id: params.get('run_id') ?? '',
});

const isTargetType = (value: string): value is NonNullable<EffectFilters['target_type']> => TARGET_TYPES.some((type) => type === value);

/** The page's filters as `GET /effects` takes them. */
const queryOf = (f: PageFilters): EffectFilters => ({
  status: f.status === ANY ? undefined : f.status,
  target_type: isTargetType(f.target_type) ? f.target_type : undefined,
  target: f.target || undefined,
  case_id: f.case_id || undefined,
  run_id: f.run_id || undefined,
});

export function EffectsPage() {
  const { filters, offset, apply, key } = useUrlFilters(filtersOf, { status: IN_FORCE_OR_STUCK });
  return (
    <>
      <h1>Containment</h1>
      <EffectFilterForm filters={filters} onApply={apply} />
      <EffectList key={key} filters={queryOf(filters)} offset={offset} onPage={(next) => apply(filters, next)} />
    </>
  );
}

function EffectFilterForm({ filters, onApply }: { filters: PageFilters; onApply: (filters: PageFilters) => void }) {
  const [target, setTarget] = useState(filters.target);
  useEffect(() => setTarget(filters.target), [filters.target]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...filters, target: target.trim() });
  };
  const statusLabel = filters.status === IN_FORCE_OR_STUCK ? 'in force or stuck' : filters.status;
  return (
    <search aria-label="Filter effects">
      <form className="filters" onSubmit={submit}>
        <label>
          Status
          <select value={filters.status} onChange={(event) => onApply({ ...filters, status: event.target.value })}>
            <option value={IN_FORCE_OR_STUCK}>In force or stuck</option>
            <option value={ANY}>Any</option>
            {EFFECT_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        <FilterChoice label="Target type" value={filters.target_type} options={TARGET_TYPES} onChange={(type) => onApply({ ...filters, target_type: type })} />
        <label>
          Target
          <input type="text" value={target} placeholder="needs a target type" onChange={(event) => setTarget(event.target.value)} />
        </label>
        <button type="submit" className="primary">
          Filter
        </button>
        <button type="button" onClick={() => onApply({ status: IN_FORCE_OR_STUCK, target_type: '', target: '', case_id: '', run_id: '' })}>
          Clear filters
        </button>
      </form>
      {(filters.case_id || filters.run_id) && (
        <p>
          {`Effects (${statusLabel}) of `}
          {filters.case_id ? <Link to={`/cases/${filters.case_id}`}>one case</Link> : <Link to={`/runs/${filters.run_id}`}>one run</Link>} only.{' '}
          <button type="button" onClick={() => onApply({ ...filters, case_id: '', run_id: '' })}>
            Show every effect
          </button>
        </p>
      )}
    </search>
  );
}
