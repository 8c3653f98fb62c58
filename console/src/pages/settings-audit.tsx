/**
 * The audit log (`/settings/audit`; SPEC.md "Audit"): the install's hash-chained record of
 * who changed what (settings, connections, sources, runbooks, packs, the response policy,
 * AI use, containment reversals), oldest first as `GET /audit` pages it, filtered by action
 * and target; the filters and the page's cursor (`after`, the last index of the page
 * before) are kept in the URL. The chain badge is `GET /audit/verify`, the whole chain
 * recomputed. Realm administrators only; anyone else sees the API's refusal in words.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { answer, client } from '../api.ts';
import type { paths } from '../api-types.ts';
import { useResource } from '../resource.ts';
import { SettingsNav } from '../settings/settings-nav.tsx';
import { Ago, ErrorNote, FilterChoice, Loading } from '../ui.tsx';
import { useUrlFilters } from '../url-filters.ts';

type AuditQuery = NonNullable<paths['/audit']['get']['parameters']['query']>;
type AuditAction = NonNullable<AuditQuery['action']>;
type AuditEntry = paths['/audit']['get']['responses'][200]['content']['application/json']['items'][number];

const PAGE_SIZE = 100;

/** The audited actions (SPEC.md "Audit"), for the filter: a record so that an action the API adds fails the console's type check until listed. */
const AUDIT_ACTIONS = Object.keys({
  'ai.invocation': true,
  'ai.refusal': true,
  'ai.settings.updated': true,
  'ai.triage': true,
  'case.acknowledge': true,
  'case.merge': true,
  'chat.identity_link': true,
  'chat.identity_unlink': true,
  'connection.create': true,
  'connection.delete': true,
  'connection.destination_changed': true,
  'connection.rotate': true,
  'connection.update': true,
  'custom_action.create': true,
  'custom_action.disable': true,
  'custom_action.enable': true,
  'custom_action.execute': true,
  'custom_action.update': true,
  'custom_field.create': true,
  'custom_field.delete': true,
  'custom_field.update': true,
  'effect.reverse': true,
  'integration_pack.install': true,
  'integration_pack.test': true,
  'integration_pack.upgrade': true,
  'mcp.tool_called': true,
  'response_policy.publish': true,
  'retention.case_purge': true,
  'runbook.disable': true,
  'runbook.enable': true,
  'runbook.save': true,
  'runbook.sync': true,
  'ticket.status_sync': true,
  'webhook_source.create': true,
  'webhook_source.delete': true,
  'webhook_source.rotate_token': true,
  'webhook_source.update': true,
} satisfies Record<AuditAction, true>) as AuditAction[];

type Filters = { action: string; target_type: string; target_id: string; after: string };

const filtersOf = (params: URLSearchParams): Filters => ({
  action: params.get('action') ?? '',
  target_type: params.get('target_type') ?? '',
  target_id: params.get('target_id') ?? '',
  after: params.get('after') ?? '',
});

export function AuditPage() {
  const { filters, apply, key } = useUrlFilters(filtersOf);
  return (
    <>
      <SettingsNav />
      <h1>Audit log</h1>
      <p className="muted">Every change to the install's settings and every AI use, oldest first, each entry hashed onto the one before.</p>
      <ChainState />
      <AuditFilters filters={filters} onApply={apply} />
      <AuditList key={key} filters={filters} onAfter={(after) => apply({ ...filters, after })} />
    </>
  );
}

/** The chain verification badge: the whole chain recomputed on each visit. */
function ChainState() {
  const verify = useResource(async () => answer(await client.GET('/audit/verify')), []);
  if (verify.error) return <ErrorNote error={verify.error} />;
  if (!verify.data) return <Loading what="the chain check" />;
  const { valid, checked, first_broken_index } = verify.data;
  return (
    <p role="status">
      {valid ? (
        <span className="badge status-succeeded" data-testid="audit-chain">{`Chain verified: ${checked} entries`}</span>
      ) : (
        <span className="badge status-failed" data-testid="audit-chain">{`Chain broken at entry ${first_broken_index ?? '?'}`}</span>
      )}
    </p>
  );
}

/** The action filter applies at once; the target's type and id when submitted. Any change starts from the first page. */
function AuditFilters({ filters, onApply }: { filters: Filters; onApply: (filters: Filters) => void }) {
  const [targetType, setTargetType] = useState(filters.target_type);
  const [targetId, setTargetId] = useState(filters.target_id);
  useEffect(() => setTargetType(filters.target_type), [filters.target_type]);
  useEffect(() => setTargetId(filters.target_id), [filters.target_id]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...filters, target_type: targetType.trim(), target_id: targetId.trim(), after: '' });
  };
  return (
    <search aria-label="Filter the audit log">
      <form className="filters" onSubmit={submit}>
        <FilterChoice label="Action" value={filters.action} options={AUDIT_ACTIONS} onChange={(action) => onApply({ ...filters, action, after: '' })} />
        <label>
          Target type
          <input type="text" value={targetType} placeholder="connection" onChange={(event) => setTargetType(event.target.value)} />
        </label>
        <label>
          Target id
          <input type="text" value={targetId} onChange={(event) => setTargetId(event.target.value)} />
        </label>
        <button type="submit" className="primary">
          Filter
        </button>
        <button type="button" onClick={() => onApply({ action: '', target_type: '', target_id: '', after: '' })}>
          Clear filters
        </button>
      </form>
    </search>
  );
}

/** `after` from the URL as the API takes it: a whole number from -1, else none. */
const cursorOf = (after: string): number | undefined => (/^-?\d{1,16}$/.test(after) && Number(after) >= -1 ? Number(after) : undefined);

/** Who did it, in words: a person by email, else the kind of caller and what it came through. */
const actorWords = (actor: AuditEntry['actor']): string =>
  actor.email ?? `${actor.kind}${actor.subject ? ` ${actor.subject}` : ''}${actor.via ? ` via ${actor.via}` : ''}`;

/** One page of entries from the cursor, and the way to the next page and back to the first. */
function AuditList({ filters, onAfter }: { filters: Filters; onAfter: (after: string) => void }) {
  const after = cursorOf(filters.after);
  const page = useResource(async () => {
    const query: AuditQuery = { limit: PAGE_SIZE };
    if (filters.action) query.action = filters.action as AuditAction;
    if (filters.target_type) query.target_type = filters.target_type;
    if (filters.target_id) query.target_id = filters.target_id;
    if (after !== undefined) query.after = after;
    return answer(await client.GET('/audit', { params: { query } }));
  }, []);
  if (page.error) return <ErrorNote error={page.error} />;
  if (!page.data) return <Loading what="the audit log" />;
  const { items, next_after } = page.data;
  return (
    <>
      {items.length === 0 ? (
        <p>No audit entries here.</p>
      ) : (
        <table aria-label="Audit entries">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Who</th>
              <th scope="col">Target</th>
              <th scope="col">Team</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {items.map((entry) => (
              <tr key={entry.id} data-testid="audit-row">
                <td className="mono" title={`hash ${entry.hash}`}>
                  {entry.index}
                </td>
                <td>
                  <Ago at={entry.at} />
                </td>
                <td className="mono">{entry.action}</td>
                <td>{actorWords(entry.actor)}</td>
                <td className="mono">{entry.target ? `${entry.target.type} ${entry.target.id}` : <span className="muted">none</span>}</td>
                <td>{entry.team ?? <span className="muted">install</span>}</td>
                <td>
                  <details>
                    <summary>{`${Object.keys(entry.detail).length} fields`}</summary>
                    <pre className="json">{JSON.stringify(entry.detail, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="row pager" aria-label="Audit pages">
        <button type="button" disabled={after === undefined} onClick={() => onAfter('')}>
          First page
        </button>
        <button type="button" disabled={next_after === null} onClick={() => onAfter(String(next_after))}>
          Next page
        </button>
      </nav>
    </>
  );
}
