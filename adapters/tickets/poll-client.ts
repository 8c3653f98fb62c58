/**
 * Reading a linked ticket's current state for polling (SPEC.md "Ticket mirroring": when
 * webhooks do not arrive the worker polls each link), in the neutral shape of
 * domain/tickets/mirror.ts, through ticket-api.ts.
 *
 * - ticket_a (Jira Cloud REST v3): `GET <base_url>/rest/api/3/issue/<id>?fields=status,comment`;
 *   status `fields.status.name`, comments `fields.comment.comments` (ADF bodies).
 * - ticket_b (ServiceNow Table API): `GET <base_url>/api/now/table/task/<sys_id>` (every
 *   ticket table, incident, problem, change and catalog task, extends `task`, so the
 *   link need not remember its table) for `number` and `state`, and
 *   `GET <base_url>/api/now/table/sys_journal_field?sysparm_query=element_id=<sys_id>^element=comments^ORDERBYDESCsys_created_on`
 *   for the newest 100 additional comments (work notes are not read).
 */
import * as v from 'valibot';
import type { RemoteTicketUpdate } from '../../domain/tickets/mirror.ts';
import type { ResolvedConnection } from '../actions/action.ts';
import type { OutboundFetch } from '../actions/outbound-http.ts';
import { adfText, capped, snowText, snowValue } from '../webhook-sources/ticket-events.ts';
import { ticketApi, type RemoteLink } from './ticket-api.ts';

/** Most comments read per poll (the newest). */
const MAX_COMMENTS = 100;

const jiraIssue = v.object({
  id: v.string(),
  key: v.string(),
  fields: v.object({
    status: v.optional(v.nullable(v.object({ name: v.string() }))),
    comment: v.optional(
      v.nullable(
        v.object({
          comments: v.array(
            v.object({
              id: v.string(),
              body: v.optional(v.unknown()),
              author: v.optional(v.nullable(v.object({ displayName: v.optional(v.string()) }))),
              created: v.optional(v.string()),
            }),
          ),
        }),
      ),
    ),
  }),
});

const snowField = v.optional(v.nullable(snowValue));
const snowRecord = v.object({ result: v.object({ sys_id: snowField, number: snowField, state: snowField }) });
const snowJournal = v.object({
  result: v.array(
    v.object({
      sys_id: v.string(),
      value: v.optional(v.nullable(v.string())),
      element: v.optional(v.string()),
      sys_created_by: v.optional(v.nullable(v.string())),
      sys_created_on: v.optional(v.nullable(v.string())),
    }),
  ),
});

/** Reads the ticket of `link` through `connection`; `signal` bounds the whole poll. @throws TicketApiFailure */
export async function pollTicket(fetchImpl: OutboundFetch, connection: ResolvedConnection, link: RemoteLink, signal: AbortSignal): Promise<RemoteTicketUpdate> {
  const api = ticketApi(fetchImpl, connection, link.provider, signal);
  const get = <S extends v.GenericSchema>(path: string, query: Record<string, string>, schema: S) => api('GET', path, { query, schema });
  if (link.provider === 'ticket_a') {
    const issue = await get(`rest/api/3/issue/${encodeURIComponent(link.remote_id)}`, { fields: 'status,comment' }, jiraIssue);
    const comments = (issue.fields.comment?.comments ?? []).slice(-MAX_COMMENTS);
    return {
      provider: 'ticket_a',
      remote_id: issue.id,
      remote_key: issue.key,
      status: issue.fields.status?.name ?? null,
      comments: comments
        .map((c) => ({ id: c.id, text: capped(adfText(c.body)), author: c.author?.displayName ?? null, created_at: c.created ?? null }))
        .filter((c) => c.text !== ''),
    };
  }
  const record = await get(`api/now/table/task/${encodeURIComponent(link.remote_id)}`, { sysparm_fields: 'sys_id,number,state' }, snowRecord);
  const journal = await get(
    'api/now/table/sys_journal_field',
    {
      sysparm_query: `element_id=${link.remote_id}^element=comments^ORDERBYDESCsys_created_on`,
      sysparm_limit: String(MAX_COMMENTS),
      sysparm_fields: 'sys_id,value,element,sys_created_by,sys_created_on',
    },
    snowJournal,
  );
  return {
    provider: 'ticket_b',
    remote_id: snowText(record.result.sys_id) ?? link.remote_id,
    remote_key: snowText(record.result.number) ?? link.remote_key,
    status: snowText(record.result.state),
    comments: journal.result
      .filter((j) => (j.element ?? 'comments') === 'comments' && (j.value ?? '').trim() !== '')
      .reverse()
      .map((j) => ({ id: j.sys_id, text: capped((j.value ?? '').trim()), author: j.sys_created_by ?? null, created_at: j.sys_created_on ?? null })),
  };
}
