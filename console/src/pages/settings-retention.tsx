/**
 * Retention (`/settings/retention`; SPEC.md "Retention"; docs/operations.md "Retention"):
 * how long closed cases are kept and what the sweeper last did, from `GET /retention`.
 * The window is configuration (`SVC_RETENTION_*`), so the page reads it and says where it
 * comes from; an override outside its bounds leaves no window (`retention_days: null`) and
 * the page says why. Realm administrators only; anyone else sees the refusal in words.
 */
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { useResource } from '../resource.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { Ago, ErrorNote, Loading } from '../ui.tsx';

type Retention = paths['/retention']['get']['responses'][200]['content']['application/json'];

const CAUSE_WORDS: Record<NonNullable<Retention['policy']['cause']>, string> = {
  override_below_min: 'the override is below the minimum',
  override_above_max: 'the override is above the maximum',
};

/** The window in words: its days and where they come from, or why there is none. */
function windowWords(policy: Retention['policy']): string {
  if (!policy.enabled) return 'Off: closed cases are kept until deleted (SVC_RETENTION_ENABLED=false).';
  if (policy.retention_days === null) {
    const why = policy.cause ? CAUSE_WORDS[policy.cause] : 'no window could be set';
    return `No window: ${why} (SVC_RETENTION_DAYS=${policy.override_days ?? 'unset'}), so nothing is purged.`;
  }
  const from = policy.provenance === 'override' ? 'set by SVC_RETENTION_DAYS' : 'the default, SVC_RETENTION_DEFAULT_DAYS';
  return `Closed cases are purged ${policy.retention_days} days after closing (${from}).`;
}

export function RetentionPage() {
  const state = useResource(async () => answer(await client.GET('/retention')), []);
  return (
    <>
      <SettingsNav />
      <h1>Retention</h1>
      <ErrorNote error={state.error} />
      {!state.data && !state.error && <Loading what="the retention policy" />}
      {state.data && <RetentionState value={state.data} />}
    </>
  );
}

function RetentionState({ value }: { value: Retention }) {
  const { policy } = value;
  return (
    <>
      <section className="panel" aria-labelledby="retention-policy-title">
        <h2 id="retention-policy-title">Policy</h2>
        <p data-testid="retention-window">{windowWords(policy)}</p>
        <dl className="facts">
          <dt>Bounds</dt>
          <dd>{`${policy.min_days} to ${policy.max_days} days (default ${policy.default_days})`}</dd>
          <dt>Data class</dt>
          <dd className="mono">{`${policy.class} of ${policy.resource} in realm ${policy.realm}`}</dd>
          <dt>Sweep</dt>
          <dd>{`every ${policy.sweep_interval_hours} hours, at most ${policy.batch_limit} cases at a time`}</dd>
        </dl>
      </section>
      <section className="panel" aria-labelledby="retention-sweep-title">
        <h2 id="retention-sweep-title">Sweeper</h2>
        <dl className="facts">
          <dt>Last sweep</dt>
          <dd>{value.last_sweep_at ? <Ago at={value.last_sweep_at} /> : 'not yet'}</dd>
          <dt>Purged</dt>
          <dd>{`${value.last_deleted} cases in the last sweep, ${value.total_deleted} in all`}</dd>
          <dt>Backlog</dt>
          <dd>{value.backlog ? 'yes: the last sweep hit its batch limit, the next one goes on' : 'none'}</dd>
          <dt>Last error</dt>
          <dd>
            {value.last_error ? (
              <span className="error">
                {value.last_error} {value.last_error_at && <Ago at={value.last_error_at} />}
              </span>
            ) : (
              'none'
            )}
          </dd>
        </dl>
      </section>
    </>
  );
}
