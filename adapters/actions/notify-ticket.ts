/**
 * `notify.ticket_a` and `notify.ticket_b` (SPEC.md "Action registry entry", "Ticket link";
 * docs/configuration.md "Tickets"): open a ticket in one of the two ticketing products
 * through its public REST API and link it to the run's case (`ticket.linked`, in
 * `record`: appended with the step's end), so `GET /cases/<id>/tickets` lists it.
 *
 * - ticket_a follows Jira Cloud's REST API v3: `POST <base_url>/rest/api/3/issue` with
 *   `fields {project: {key}, summary, issuetype: {name}, description (ADF), labels?,
 *   priority?}`, HTTP Basic `config.email` + API token (the secret); answered 201
 *   `{id, key, self}`.
 * - ticket_b follows ServiceNow's Table API: `POST <base_url>/api/now/table/<table>` with
 *   `{short_description, description, urgency?, impact?, correlation_id}`, HTTP Basic
 *   `config.username` + password (the secret); answered 201 `{result: {sys_id, number}}`.
 *
 * Neither product takes an idempotency key, so a step retried after the ticket was
 * created can open a second one; the step is not retried on a 4xx.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import type { TicketProvider } from '../../domain/tickets/links.ts';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import {
  basic,
  configText,
  joinUrl,
  readCappedText,
  REDACTED,
  requireConnection,
  sendOutbound,
  statusFailure,
  vendorMessage,
  type OutboundFetch,
} from './outbound-http.ts';

const text = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));

const ticketAInput = v.strictObject({
  title: text(255),
  description: v.optional(v.pipe(v.string(), v.maxLength(30_000))),
  project_key: v.optional(v.pipe(text(50), v.regex(/^[A-Z][A-Z0-9_]+$/, 'must be a project key such as SEC'))),
  issue_type: v.optional(text(100)),
  labels: v.optional(v.pipe(v.array(v.pipe(text(255), v.regex(/^\S+$/, 'must have no spaces'))), v.maxLength(20))),
  priority: v.optional(text(100)),
});
type TicketAInput = v.InferOutput<typeof ticketAInput>;

const ticketBInput = v.strictObject({
  title: text(160),
  description: v.optional(v.pipe(v.string(), v.maxLength(30_000))),
  urgency: v.optional(v.picklist(['1', '2', '3'])),
  impact: v.optional(v.picklist(['1', '2', '3'])),
  table: v.optional(v.pipe(text(80), v.regex(/^[a-z0-9_]+$/, 'must be a table name such as incident'))),
});
type TicketBInput = v.InferOutput<typeof ticketBInput>;

const ticketOutput = v.object({
  ticket_id: v.string(),
  remote_id: v.string(),
  url: v.nullable(v.string()),
  link_id: v.nullable(v.string()),
  linked_case_id: v.nullable(v.string()),
});
type TicketOutput = v.InferOutput<typeof ticketOutput>;

type TicketRequest = {
  url: URL;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  read: (body: unknown) => { remoteId: string; remoteKey: string; url: string | null } | null;
};

/** Plain text as an Atlassian Document Format document, one paragraph per line (Jira descriptions and comments). */
export const adf = (plain: string) => ({
  type: 'doc',
  version: 1,
  content: plain.split('\n').map((line) => ({ type: 'paragraph', content: line === '' ? [] : [{ type: 'text', text: line }] })),
});

function ticketARequest(step: TicketAInput, context: ActionContext): TicketRequest {
  const connection = requireConnection('notify.ticket_a', context, 'ticket_a');
  const email = configText(connection.config, 'email');
  const project = step.project_key ?? configText(connection.config, 'project_key');
  if (!email) throw new ActionFailure('connection_invalid', `notify.ticket_a: connection '${connection.name}' needs config.email`, false);
  if (!project) throw new ActionFailure('input_invalid', 'notify.ticket_a: project_key is required (or config.project_key on the connection)', false);
  const base = connection.base_url.replace(/\/+$/, '');
  return {
    url: joinUrl('notify.ticket_a', connection.base_url, 'rest/api/3/issue'),
    headers: { authorization: basic(email, connection.secret ?? ''), accept: 'application/json', 'content-type': 'application/json' },
    body: {
      fields: {
        project: { key: project },
        summary: step.title,
        issuetype: { name: step.issue_type ?? configText(connection.config, 'issue_type') ?? 'Task' },
        ...(step.description !== undefined && { description: adf(step.description) }),
        ...(step.labels && { labels: step.labels }),
        ...(step.priority && { priority: { name: step.priority } }),
      },
    },
    read: (body) => {
      const b = body as { id?: unknown; key?: unknown } | null;
      return typeof b?.id === 'string' && typeof b.key === 'string'
        ? { remoteId: b.id, remoteKey: b.key, url: `${base}/browse/${encodeURIComponent(b.key)}` }
        : null;
    },
  };
}

function ticketBRequest(step: TicketBInput, context: ActionContext): TicketRequest {
  const connection = requireConnection('notify.ticket_b', context, 'ticket_b');
  const username = configText(connection.config, 'username');
  if (!username) throw new ActionFailure('connection_invalid', `notify.ticket_b: connection '${connection.name}' needs config.username`, false);
  const table = step.table ?? configText(connection.config, 'table') ?? 'incident';
  const base = connection.base_url.replace(/\/+$/, '');
  return {
    url: joinUrl('notify.ticket_b', connection.base_url, `api/now/table/${table}`),
    headers: { authorization: basic(username, connection.secret ?? ''), accept: 'application/json', 'content-type': 'application/json' },
    body: {
      short_description: step.title,
      ...(step.description !== undefined && { description: step.description }),
      ...(step.urgency && { urgency: step.urgency }),
      ...(step.impact && { impact: step.impact }),
      ...(context.caseId !== null && { correlation_id: `svc-case-${context.caseId}`, correlation_display: 'svc' }),
    },
    read: (body) => {
      const r = (body as { result?: { sys_id?: unknown; number?: unknown } } | null)?.result;
      return typeof r?.sys_id === 'string' && typeof r.number === 'string'
        ? { remoteId: r.sys_id, remoteKey: r.number, url: `${base}/nav_to.do?uri=${encodeURIComponent(`${table}.do?sys_id=${r.sys_id}`)}` }
        : null;
    },
  };
}

function ticketAction<Input>(
  name: 'notify.ticket_a' | 'notify.ticket_b',
  provider: TicketProvider,
  input: v.GenericSchema<unknown, Input>,
  build: (step: Input, context: ActionContext) => TicketRequest,
  fetchImpl: OutboundFetch,
): ActionDefinition<Input, TicketOutput> {
  return {
    name,
    connectionKind: provider,
    risk: 'notify',
    input,
    output: ticketOutput,
    async execute(step, context) {
      const request = build(step, context);
      if (!context.connection?.secret)
        throw new ActionFailure('connection_missing', `${name}: connection '${context.connection?.name ?? ''}' has no secret`, false);
      const response = await sendOutbound(
        name,
        fetchImpl,
        request.url,
        { method: 'POST', headers: request.headers, body: JSON.stringify(request.body) },
        context.signal,
      );
      const text = await readCappedText(name, response, request.url, context.signal);
      if (!response.ok) throw statusFailure(name, request.url, response.status, vendorMessage(text));
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      const ticket = request.read(body);
      if (!ticket) throw new ActionFailure('response_invalid', `${name}: ${request.url.host} created something but named no ticket id and key`, false);
      return { ticket_id: ticket.remoteKey, remote_id: ticket.remoteId, url: ticket.url, link_id: null, linked_case_id: null };
    },
    async record(_step, created, context) {
      if (context.caseId === null || !context.cases || !context.connection) return created;
      // A new id per try: a link staged in a try that lost its append was never written.
      const linkId = randomUUID();
      await context.cases.linkTicket({
        linkId,
        provider,
        connection: context.connection.name,
        remoteId: created.remote_id,
        remoteKey: created.ticket_id,
        url: created.url,
        runId: context.runId,
        stepId: context.stepId,
      });
      return { ...created, link_id: linkId, linked_case_id: context.caseId };
    },
    async preview(step, context) {
      const request = build(step, context);
      return {
        method: 'POST',
        url: request.url.toString(),
        headers: { ...request.headers, authorization: `Basic ${REDACTED}` },
        body: request.body,
        links_case: context.caseId,
      };
    },
  };
}

/** `notify.ticket_a` and `notify.ticket_b` over `fetchImpl` (the guarded outbound fetch). */
export const ticketActions = (fetchImpl: OutboundFetch): ActionDefinition[] => [
  ticketAction('notify.ticket_a', 'ticket_a', ticketAInput, ticketARequest, fetchImpl),
  ticketAction('notify.ticket_b', 'ticket_b', ticketBInput, ticketBRequest, fetchImpl),
];
