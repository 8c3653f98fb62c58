/**
 * Containment effects as a table (`GET /effects`, docs/containment.md "Reading effects"):
 * the target, the effect, its status (with the refusal or failure code, and the next try of
 * a failed reversal), the adapter and policy version it ran under, its TTL counting down,
 * and the case and run it came from. An approver or admin releases an active one before its
 * TTL ends (`POST /effects/<id>/release`) after confirming. Read again on `effect.updated`.
 * Used by the containment page and, narrowed to one case or run, by those pages.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useAction } from '../action.ts';
import { answer, client } from '../api.ts';
import type { Effect, EffectQuery } from '../api-shapes.ts';
import { duration } from '../format.ts';
import { useMe } from '../me.tsx';
import { useResource } from '../resource.ts';
import { Ago, Badge, ErrorNote, ListPager, Loading, useNow, Confirm } from '../ui.tsx';
import { mayApprove } from '../role-matrix.ts';

/** What the list is narrowed to: each as `GET /effects` takes it (`status` comma-separated). */
export type EffectFilters = Pick<EffectQuery, 'status' | 'target_type' | 'target' | 'case_id' | 'run_id'>;

/** The effects an approver may act on, or that stay in force or stuck: the containment page's default. */
export const IN_FORCE_OR_STUCK = 'active,reversing,reversal_failed';

const PAGE_SIZE = 50;

/**
 * A page of the effects `filters` select, `offset` in; `onPage` moves it (null: no pager,
 * the first page only, as a case or run page shows it).
 */
export function EffectList({ filters, offset = 0, onPage = null }: { filters: EffectFilters; offset?: number; onPage?: ((offset: number) => void) | null }) {
  const list = useResource(
    async () =>
      answer(
        await client.GET('/effects', {
          params: {
            query: {
              status: filters.status || undefined,
              target_type: filters.target_type || undefined,
              target: filters.target || undefined,
              case_id: filters.case_id || undefined,
              run_id: filters.run_id || undefined,
              include_total: 'true',
              limit: PAGE_SIZE,
              offset,
            },
          },
        }),
      ),
    [filters.status, filters.target_type, filters.target, filters.case_id, filters.run_id, offset],
    (frame) => frame.type === 'effect.updated',
  );
  const canRelease = mayApprove(useMe().role);
  if (!list.data) return list.error ? <ErrorNote error={list.error} /> : <Loading what="effects" />;
  return (
    <>
      <ErrorNote error={list.error} />
      {list.data.items.length === 0 ? (
        <p className="muted">No containment effects here.</p>
      ) : (
        <table className="effect-table" aria-label="Containment effects">
          <thead>
            <tr>
              <th scope="col">Target</th>
              <th scope="col">Effect</th>
              <th scope="col">Status</th>
              <th scope="col">Adapter</th>
              <th scope="col">Ends</th>
              <th scope="col">From</th>
              {canRelease && <th scope="col">Release</th>}
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((effect) => (
              <EffectRow key={effect.id} effect={effect} canRelease={canRelease} onReleased={list.reload} />
            ))}
          </tbody>
        </table>
      )}
      {onPage && <ListPager noun="Effects" offset={offset} pageSize={PAGE_SIZE} page={list.data} onPage={onPage} />}
    </>
  );
}

function EffectRow({ effect, canRelease, onReleased }: { effect: Effect; canRelease: boolean; onReleased: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const release = () =>
    action.run(
      async () => answer(await client.POST('/effects/{id}/release', { params: { path: { id: effect.id } } })),
      () => {
        setConfirming(false);
        onReleased();
      },
    );
  const what = `${effect.effect_type} of ${effect.target}`;
  return (
    <tr data-testid="effect-row">
      <td>
        <span className="muted">{effect.target_type}</span> <span className="mono">{effect.target}</span>
      </td>
      <td>{effect.effect_type}</td>
      <td>
        <Badge kind="status" value={effect.status} />
        {effect.last_error && <div className="error mono">{effect.last_error}</div>}
        {effect.status === 'reversal_failed' && effect.retry_at && (
          <div className="muted">
            {`${effect.reversal_attempts} ${effect.reversal_attempts === 1 ? 'attempt' : 'attempts'}, next `}
            <Ago at={effect.retry_at} />
          </div>
        )}
      </td>
      <td>
        {effect.adapter_id ?? <span className="muted">none</span>}
        {effect.policy_version !== null && <span className="muted">{` (policy v${effect.policy_version})`}</span>}
      </td>
      <td>
        <TtlLeft effect={effect} />
      </td>
      <td>
        {effect.case_id && <Link to={`/cases/${effect.case_id}`}>Case</Link>}
        {effect.case_id && effect.run_id && ' · '}
        {effect.run_id && <Link to={`/runs/${effect.run_id}`}>Run</Link>}
        {!effect.case_id && !effect.run_id && <span className="muted">{effect.requested_by ?? 'unknown'}</span>}
      </td>
      {canRelease && (
        <td>
          {effect.status === 'active' &&
            (confirming ? (
              <Confirm question={`Release the ${what} now?`} yes="Release now" busy={action.busy} onYes={release} onNo={() => setConfirming(false)} />
            ) : (
              <button type="button" aria-label={`Release the ${what}`} onClick={() => setConfirming(true)}>
                Release
              </button>
            ))}
          <ErrorNote error={action.error} />
        </td>
      )}
    </tr>
  );
}

/** How long until an applied effect's TTL ends (ticking each second), or when it ended. */
function TtlLeft({ effect }: { effect: Effect }) {
  const now = useNow(1000);
  if (effect.reversed_at) return <span className="muted">released or expired {<Ago at={effect.reversed_at} />}</span>;
  if (!effect.expires_at) return <span className="muted">{`TTL ${duration(effect.ttl_seconds)}, not applied`}</span>;
  const left = (new Date(effect.expires_at).getTime() - now.getTime()) / 1000;
  return <span data-testid="effect-ttl">{left > 0 ? `in ${duration(left)}` : 'ending now'}</span>;
}

/** The effects of one case or run as a panel of its page, with a link to them on the containment page. */
export function EffectsPanel({ of }: { of: { case_id: string } | { run_id: string } }) {
  const query = new URLSearchParams({ ...of, status: 'any' });
  return (
    <section className="panel" aria-labelledby="effects-title">
      <h2 id="effects-title">Containment</h2>
      <EffectList filters={of} />
      <Link to={`/effects?${query}`}>On the containment page</Link>
    </section>
  );
}
