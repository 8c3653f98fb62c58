/**
 * `notify.pager_a` and `notify.pager_b` (SPEC.md "Action registry entry", "Webhook
 * intake"; docs/configuration.md "Pagers"): page on-call people through the two paging
 * products' public APIs.
 *
 * - pager_a follows PagerDuty's Events API v2: `POST <base_url>/v2/enqueue` with the
 *   connection's secret as `routing_key`, answered 202 `{status, message, dedup_key}`.
 * - pager_b follows Opsgenie's Alert API: `POST <base_url>/v2/alerts` with
 *   `Authorization: GenieKey <secret>`, answered 202 `{result, took, requestId}`.
 *
 * In a run bound to a case the key (`dedup_key` / `alias`) defaults to `svc-case-<case_id>`
 * and an explicit key is kept; after the pager accepted the page it is linked to the case
 * (`case.page_linked`, in `record`: appended with the step's end), so the pager's
 * acknowledgement webhook finds the case. The pagers de-duplicate by key, so a retried
 * step pages once and links once.
 */
import * as v from 'valibot';
import { jsonRecord } from '../shared/shapes.ts';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { joinUrl, readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, vendorMessage, type OutboundFetch } from './outbound-http.ts';

/** The Authorization value of the pager_b API (Opsgenie's `GenieKey` scheme) for API key `key`. */
export const genieKey = (key: string) => `GenieKey ${key}`;

/** The key a page of a case-bound run gets unless the step names one. */
export const defaultPageKey = (caseId: string) => `svc-case-${caseId}`;

const text = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));
const details = jsonRecord(v.unknown());

/** Our severities onto the Events API's (`critical`, `error`, `warning`, `info`). */
const pagerASeverity = { critical: 'critical', high: 'error', medium: 'warning', low: 'info' } as const;

const pagerAInput = v.strictObject({
  summary: text(1024),
  severity: v.optional(v.picklist(['critical', 'high', 'medium', 'low']), 'high'),
  dedup_key: v.optional(text(255)),
  event_action: v.optional(v.picklist(['trigger', 'acknowledge', 'resolve']), 'trigger'),
  source: v.optional(text(255), 'svc'),
  component: v.optional(text(255)),
  group: v.optional(text(255)),
  class: v.optional(text(255)),
  custom_details: v.optional(details),
});
export type PagerAInput = v.InferOutput<typeof pagerAInput>;

const pagerBInput = v.strictObject({
  message: text(130),
  alias: v.optional(text(512)),
  description: v.optional(v.pipe(v.string(), v.maxLength(15_000))),
  priority: v.optional(v.picklist(['P1', 'P2', 'P3', 'P4', 'P5']), 'P3'),
  tags: v.optional(v.pipe(v.array(text(50)), v.maxLength(20))),
  details: v.optional(jsonRecord(v.string())),
  entity: v.optional(text(512)),
  source: v.optional(text(100), 'svc'),
  note: v.optional(v.pipe(v.string(), v.maxLength(25_000))),
});
export type PagerBInput = v.InferOutput<typeof pagerBInput>;

/** `key` is null only for a pager_b alert sent without an alias outside a case (the pager then keys it itself and does not say how). */
const pageOutput = v.object({ key: v.nullable(v.string()), linked_case_id: v.nullable(v.string()), status: v.pipe(v.number(), v.integer()) });
export type PageOutput = v.InferOutput<typeof pageOutput>;

/** The key of a page: the step's, else the case default; null without either (the pager then picks one). */
const keyOf = (explicit: string | undefined, context: ActionContext) => explicit ?? (context.caseId === null ? null : defaultPageKey(context.caseId));

type PageRequest = {
  url: URL;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  shown: Record<string, unknown>;
  key: string | null;
  connection: string;
};

function pagerARequest(name: string, step: PagerAInput, context: ActionContext): PageRequest {
  const connection = requireConnection(name, context, 'pager_a');
  const key = keyOf(step.dedup_key, context);
  if (key === null && step.event_action !== 'trigger')
    throw new ActionFailure('input_invalid', `${name}: ${step.event_action} needs a dedup_key (or a run bound to a case)`, false);
  const payload = {
    summary: step.summary,
    source: step.source,
    severity: pagerASeverity[step.severity],
    timestamp: context.now().toISOString(),
    ...(step.component && { component: step.component }),
    ...(step.group && { group: step.group }),
    ...(step.class && { class: step.class }),
    ...(step.custom_details && { custom_details: step.custom_details }),
  };
  const body = { event_action: step.event_action, ...(key !== null && { dedup_key: key }), ...(step.event_action === 'trigger' && { payload }), client: 'svc' };
  return {
    url: joinUrl(name, connection.base_url, 'v2/enqueue'),
    headers: { 'content-type': 'application/json' },
    body: { routing_key: connection.secret ?? '', ...body },
    shown: { routing_key: REDACTED, ...body },
    key,
    connection: connection.name,
  };
}

function pagerBRequest(name: string, step: PagerBInput, context: ActionContext): PageRequest {
  const connection = requireConnection(name, context, 'pager_b');
  const key = keyOf(step.alias, context);
  const body = {
    message: step.message,
    ...(key !== null && { alias: key }),
    ...(step.description !== undefined && { description: step.description }),
    priority: step.priority,
    ...(step.tags && { tags: step.tags }),
    ...(step.details && { details: step.details }),
    ...(step.entity && { entity: step.entity }),
    source: step.source,
    ...(step.note !== undefined && { note: step.note }),
  };
  return {
    url: joinUrl(name, connection.base_url, 'v2/alerts'),
    headers: { 'content-type': 'application/json', authorization: genieKey(connection.secret ?? '') },
    body,
    shown: body,
    key,
    connection: connection.name,
  };
}

/**
 * One pager action around `fetchImpl`. 2xx succeeds; 4xx other than 429 fails for good,
 * naming the pager's own message when it sent one; 5xx, 429, network errors and timeouts
 * are retryable. The key of a trigger pager_a chose (no key given, no case) is read back.
 */
function pagerAction<Input extends PagerAInput | PagerBInput>(
  name: 'notify.pager_a' | 'notify.pager_b',
  input: v.GenericSchema<unknown, Input>,
  build: (name: string, step: Input, context: ActionContext) => PageRequest,
  fetchImpl: OutboundFetch,
): ActionDefinition<Input, PageOutput> {
  const pager = name === 'notify.pager_a' ? 'pager_a' : 'pager_b';
  return {
    name,
    connectionKind: pager,
    risk: 'notify',
    input,
    output: pageOutput,
    async execute(step, context) {
      const request = build(name, step, context);
      if (!context.connection?.secret) throw new ActionFailure('connection_missing', `${name}: connection '${request.connection}' has no secret`, false);
      const response = await sendOutbound(
        name,
        fetchImpl,
        request.url,
        { method: 'POST', headers: request.headers, body: JSON.stringify(request.body) },
        context.signal,
      );
      const text = await readCappedText(name, response, request.url, context.signal);
      if (response.status < 200 || response.status > 299) throw statusFailure(name, request.url, response.status, vendorMessage(text));
      const key = request.key ?? readKey(text);
      if (key === null && pager === 'pager_a')
        throw new ActionFailure('response_invalid', `${name}: ${request.url.host} accepted the page but named no dedup_key`, false);
      return { key, linked_case_id: null, status: response.status };
    },
    async record(_step, sent, context) {
      if (sent.key === null || context.caseId === null || !context.cases || !context.connection) return sent;
      await context.cases.linkPage({ pager, key: sent.key, connection: context.connection.name, runId: context.runId, stepId: context.stepId });
      return { ...sent, linked_case_id: context.caseId };
    },
    async preview(step, context) {
      const request = build(name, step, context);
      const headers = { ...request.headers, ...(request.headers.authorization && { authorization: `GenieKey ${REDACTED}` }) };
      return { method: 'POST', url: request.url.toString(), headers, body: request.shown, links_case: context.caseId };
    },
  };
}

const readKey = (text: string): string | null => {
  try {
    const key = (JSON.parse(text) as { dedup_key?: unknown }).dedup_key;
    return typeof key === 'string' && key !== '' ? key : null;
  } catch {
    return null;
  }
};

/** `notify.pager_a` (Events API v2) over `fetchImpl` (the guarded outbound fetch). */
export const createNotifyPagerA = (fetchImpl: OutboundFetch) => pagerAction('notify.pager_a', pagerAInput, pagerARequest, fetchImpl);
/** `notify.pager_b` (Alert API) over `fetchImpl` (the guarded outbound fetch). */
export const createNotifyPagerB = (fetchImpl: OutboundFetch) => pagerAction('notify.pager_b', pagerBInput, pagerBRequest, fetchImpl);
