/**
 * Webhook intake (SPEC.md "Webhook intake", CONTRACTS.md section 5). `POST
 * /webhooks/detector` takes the native detector shape, authenticated by the bootstrap
 * secret or the token of an enabled `detector` webhook source. `POST /webhooks/<slug>`
 * takes what a registered source sends, with its token: a `detector` source the native
 * shape, a `generic` source any JSON object (or an array of 1..500) mapped through its
 * `field_map` (domain/webhook-sources/generic.ts). Tokens come in `X-Svc-Token` or
 * `Authorization: Bearer` and compare in constant time; an unknown or disabled slug and a
 * wrong token answer the same 401. A `pager_a` source authenticates by the
 * `X-Pager-Signature` of the raw body instead (adapters/webhook-sources/pager-signature.ts),
 * and `pager_a` / `pager_b` events acknowledge the case a page was sent for, answering 202
 * with `page_ack` (adapters/commands/page-acks.ts). `ticket_a` / `ticket_b` events (Jira
 * webhooks, a ServiceNow business rule) bring a ticket's status and comments onto the cases
 * linked to it (adapters/commands/ticket-mirror.ts), answering 202 with `ticket` and, when
 * a status could not be applied, `ticket_status_sync`. A `mailbox` source takes one
 * normalized email or an array of 1..500 (adapters/webhook-sources/mailbox-email.ts), each
 * an alert (domain/webhook-sources/mailbox.ts). Alerts answer 202 with what happened to
 * each.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import type { IncomingAlert } from '../../domain/alerts/intake.ts';
import { webhookSourceActor } from '../commands/audit.ts';
import { DomainError, ValidationFailed } from '../../domain/shared/errors.ts';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';
import { assertNever } from '../../domain/shared/messages.ts';
import { mapGenericAlert } from '../../domain/webhook-sources/generic.ts';
import { mapMailboxAlert, type MailboxEmail } from '../../domain/webhook-sources/mailbox.ts';
import { mailboxBody } from '../webhook-sources/mailbox-email.ts';
import { intakeResultSchema, withObservables } from '../commands/intake.ts';
import { pageAckSchema } from '../commands/page-acks.ts';
import { ticketUpdateResultSchema, ticketUpdateSchema } from '../commands/ticket-mirror.ts';
import { isWebhookSourceType, type ResolvedWebhookSource, type WebhookSourceType } from '../webhook-sources/store.ts';
import { pagerASignatureValid } from '../webhook-sources/pager-signature.ts';
import { parseTicketAWebhook, parseTicketBWebhook } from '../webhook-sources/ticket-events.ts';
import type { HttpDeps } from './deps.ts';
import { detectorIncoming, detectorIntakeSchema, type DetectorAlert } from '../commands/detector-alert.ts';
import { jsonGuard, parseBody, requireJson, validate, type TextRepairs } from './validation.ts';
import type { JsonPath } from '../../domain/shared/json-text.ts';
import { errorBodySchema, jsonAnswer } from './openapi.ts';
import { jsonRecord } from '../shared/shapes.ts';

const digest = (s: string): Buffer => hash('sha256', s, 'buffer');

/** The webhook token of a request: `X-Svc-Token`, else a Bearer token. */
export function webhookToken(header: (name: string) => string | undefined): string | null {
  const direct = header('x-svc-token');
  if (direct) return direct;
  const auth = header('authorization');
  const match = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return match?.[1] ?? null;
}

const unauthenticated = () => new DomainError('unauthenticated', 401, 'missing or invalid webhook token');

/** An authenticated source of a type SPEC.md lists, each of which has its intake below. */
type IntakeSource = ResolvedWebhookSource & { type: WebhookSourceType };

/** A JSON object, or an array of 1..500 of them: what a generic source may send. */
const jsonObject = jsonRecord(v.unknown());
const genericBody = v.union([v.pipe(v.array(jsonObject), v.minLength(1), v.maxLength(500)), jsonObject]);

/** A pager_a v3 webhook: the event type, the agent who acted, and the incident's key. */
const pagerAEvent = v.object({
  event: v.object({
    event_type: v.pipe(v.string(), v.minLength(1)),
    agent: v.optional(v.nullable(v.object({ summary: v.optional(v.nullable(v.string())) }))),
    data: v.object({ incident_key: v.optional(v.nullable(v.string())) }),
  }),
});

/** A pager_b alert-action webhook: the action and the alert's alias and acting user. */
const pagerBEvent = v.object({
  action: v.pipe(v.string(), v.minLength(1)),
  alert: v.object({ alias: v.optional(v.nullable(v.string())), username: v.optional(v.nullable(v.string())) }),
});

/** What a pager webhook says: which page, whether it acknowledges it, and who did. */
type PagerEvent = { pager: 'pager_a' | 'pager_b'; key: string | null; acknowledging: boolean; agent: string | null; agentEmail: string | null };

/** A pager_a event; 422 when it is not the v3 webhook shape. */
function pagerAAck(raw: unknown): PagerEvent {
  const { event } = parseBody(pagerAEvent, raw);
  return {
    pager: 'pager_a',
    key: event.data.incident_key ?? null,
    acknowledging: event.event_type === 'incident.acknowledged',
    agent: event.agent?.summary ?? null,
    agentEmail: null,
  };
}

/** A pager_b alert action; 422 when it is not the alert-action shape. */
function pagerBAck(raw: unknown): PagerEvent {
  const { action, alert } = parseBody(pagerBEvent, raw);
  return {
    pager: 'pager_b',
    key: alert.alias ?? null,
    acknowledging: action === 'Acknowledge',
    agent: alert.username ?? null,
    agentEmail: alert.username ?? null,
  };
}

/** One alert's intake result, with the paths (within that alert) of the characters the intake guard replaced, if any. */
const intakeAnswerSchema = v.strictObject({ ...intakeResultSchema.entries, text_repairs: v.optional(v.array(v.array(v.union([v.string(), v.number()])))) });

/** The 202 of alert intake: one alert's result, or `{results}` in order for an array. */
const alertIntakeAnswer = v.union([intakeAnswerSchema, v.strictObject({ results: v.array(intakeAnswerSchema) })]);

/** The 202 of a registered source: alert intake, a pager's `page_ack`, or a ticket's update with the refused status changes when there are any. */
const sourceIntakeAnswer = v.union([
  ...alertIntakeAnswer.options,
  v.strictObject({ page_ack: pageAckSchema }),
  v.strictObject({ ticket: ticketUpdateSchema }),
  ticketUpdateResultSchema,
]);

const backlogAnswer = jsonAnswer(
  errorBodySchema,
  'intake_backlog: runs wait longer than SVC_INTAKE_MAX_RUN_LAG_S for a worker; nothing was taken in, retry after the Retry-After header seconds',
);

/** What the webhook routes read of the service (adapters/http/deps.ts). */
export type WebhookRouteDeps = Pick<
  HttpDeps,
  'caseConfig' | 'detectorBootstrapSecret' | 'intake' | 'maxJsonDepth' | 'pageAcks' | 'runBacklog' | 'ticketMirror' | 'waitFor' | 'webhookSources'
>;

export function webhookRoutes(deps: WebhookRouteDeps) {
  const severities = new Set(deps.caseConfig.severities);
  const toIncoming = (a: DetectorAlert, index: number | null, sourceTeam: string | null) => {
    const mapped = detectorIncoming(a, severities, sourceTeam, ['body', ...(index === null ? [] : [index])]);
    if (!mapped.ok) throw new ValidationFailed(mapped.problems);
    return mapped.alert;
  };

  const fromGeneric = (payload: Record<string, unknown>, index: number | null, source: ResolvedWebhookSource): IncomingAlert => {
    const contentId = hash('sha256', canonicalJson(payload), 'hex');
    const mapped = mapGenericAlert(
      payload,
      { slug: source.slug, team: source.team, fieldMap: source.field_map, defaultSeverity: source.default_severity },
      deps.caseConfig.severities,
      contentId,
    );
    if (!mapped.ok) {
      throw new ValidationFailed(
        mapped.problems.map((p) => ({ loc: ['body', ...(index === null ? [] : [index]), ...p.loc], msg: p.msg, type: 'value_error' })),
      );
    }
    return withObservables(mapped.alert);
  };

  /** Digest of the normalized email, not of the body sent: keys a gateway adds or orders differently do not defeat de-duplication. */
  const fromMailbox = (email: MailboxEmail, source: ResolvedWebhookSource): IncomingAlert =>
    withObservables(
      mapMailboxAlert(email, { slug: source.slug, team: source.team, defaultSeverity: source.default_severity }, hash('sha256', canonicalJson(email), 'hex')),
    );

  /**
   * Takes the alerts in and answers 202 once the projections show them, or none of them
   * with 429 `intake_backlog` while runs wait too long for a worker. Characters the
   * intake guard replaced are recorded on each alert (`payload.svc_text_repairs`, paths
   * within that alert) and in its result (`text_repairs`).
   */
  const ingest = async (c: Context, alerts: IncomingAlert[], batch: boolean, repairs: JsonPath[] = []) => {
    await deps.runBacklog.admit();
    const results: v.InferOutput<typeof intakeAnswerSchema>[] = [];
    let position = 0;
    for (const [index, alert] of alerts.entries()) {
      const own = batch ? repairs.filter((p) => p[0] === index).map((p) => p.slice(1)) : repairs;
      const outcome = await deps.intake.ingest(own.length === 0 ? alert : { ...alert, payload: { ...alert.payload, svc_text_repairs: own } });
      results.push(own.length === 0 ? outcome.result : { ...outcome.result, text_repairs: own });
      position = Math.max(position, outcome.position);
    }
    await deps.waitFor(position);
    return c.json(batch ? { results } : results[0], 202);
  };

  /** A pager's webhook: an acknowledgement stamps the page's case once; any other event changes nothing. */
  const pageAck = async (c: Context, source: ResolvedWebhookSource, raw: unknown) => {
    const event = source.type === 'pager_a' ? pagerAAck(raw) : pagerBAck(raw);
    if (!event.acknowledging || event.key === null) return c.json({ page_ack: deps.pageAcks.ignored(event.pager, event.key) }, 202);
    const done = await deps.pageAcks.acknowledge({
      pager: event.pager,
      key: event.key,
      agent: event.agent,
      agentEmail: event.agentEmail,
      sourceSlug: source.slug,
    });
    await deps.waitFor(done.position);
    return c.json({ page_ack: done.pageAck }, 202);
  };

  /** A ticket's webhook: its status and comments onto the linked cases, once (adapters/commands/ticket-mirror.ts). */
  const ticketUpdate = async (c: Context, source: ResolvedWebhookSource, raw: unknown) => {
    const update = source.type === 'ticket_a' ? parseTicketAWebhook(raw) : parseTicketBWebhook(raw);
    const { result, position } = await deps.ticketMirror.apply(update, 'webhook', webhookSourceActor(source.slug));
    await deps.waitFor(position);
    return c.json(result.ticket_status_sync.length === 0 ? { ticket: result.ticket } : result, 202);
  };

  const detectorAlerts = (body: v.InferOutput<typeof detectorIntakeSchema>, sourceTeam: string | null) =>
    Array.isArray(body) ? body.map((a, i) => toIncoming(a, i, sourceTeam)) : [toIncoming(body, null, sourceTeam)];

  // Digests of equal length, so the comparison takes the same time whatever the token's length.
  const secretDigest = deps.detectorBootstrapSecret === null ? null : digest(deps.detectorBootstrapSecret);
  return new Hono<{ Variables: { webhookSource: IntakeSource; detectorTeam: string | null } & TextRepairs }>()
    .post(
      '/webhooks/detector',
      describeRoute({
        summary: 'Detector alert intake (one alert or an array)',
        tags: ['intake'],
        security: [{ webhookToken: [] }, { webhookBearer: [] }],
        responses: { 202: jsonAnswer(alertIntakeAnswer, 'Taken in: the result of the alert, or of each'), 429: backlogAnswer },
      }),
      async (c, next) => {
        const token = webhookToken((n) => c.req.header(n));
        if (!token) throw unauthenticated();
        const bootstrap = secretDigest !== null && timingSafeEqual(digest(token), secretDigest);
        // A team's detector source sends here too: its alerts stay in its team.
        const source = bootstrap ? null : await deps.webhookSources.detectorByToken(token);
        if (!bootstrap && source === null) throw unauthenticated();
        c.set('detectorTeam', source?.team ?? null);
        await next();
      },
      requireJson,
      jsonGuard('repair', deps.maxJsonDepth),
      validate('json', detectorIntakeSchema),
      (c) => {
        const body = c.req.valid('json');
        return ingest(c, detectorAlerts(body, c.get('detectorTeam')), Array.isArray(body), c.get('textRepairs'));
      },
    )
    .post(
      '/webhooks/:slug',
      describeRoute({
        summary: 'Intake of a registered webhook source',
        tags: ['intake'],
        security: [{ webhookToken: [] }, { webhookBearer: [] }, { pagerSignature: [] }],
        responses: {
          202: jsonAnswer(sourceIntakeAnswer, 'Taken in: alert results, a page acknowledgement, or a ticket update, by source type'),
          429: backlogAnswer,
        },
      }),
      async (c, next) => {
        const source = await deps.webhookSources.bySlug(c.req.param('slug'));
        if (!source) throw unauthenticated();
        if (source.type === 'pager_a') {
          // The vendor's own header name is accepted beside SPEC.md's neutral one.
          const header = c.req.header('x-pager-signature') ?? c.req.header('x-pagerduty-signature');
          const raw = new Uint8Array(await c.req.arrayBuffer());
          if (!pagerASignatureValid(source.signingSecret ?? '', raw, header))
            throw new DomainError('unauthenticated', 401, 'missing or invalid X-Pager-Signature');
        } else {
          const token = webhookToken((n) => c.req.header(n));
          if (!token || !source.tokenMatches(token)) throw unauthenticated();
        }
        // No request stores a type outside SPEC.md's list: a row that holds one was written by
        // hand, and is a fault to log (500), never an alert read through the generic mapping.
        if (!isWebhookSourceType(source.type)) throw new Error(`webhook source '${source.slug}' has the type '${source.type}', which SPEC.md does not list`);
        c.set('webhookSource', { ...source, type: source.type });
        await next();
      },
      requireJson,
      jsonGuard('repair', deps.maxJsonDepth),
      async (c) => {
        const source = c.get('webhookSource');
        const raw: unknown = await c.req.json();
        switch (source.type) {
          case 'pager_a':
          case 'pager_b':
            return pageAck(c, source, raw);
          case 'ticket_a':
          case 'ticket_b':
            return ticketUpdate(c, source, raw);
          case 'detector': {
            const body = parseBody(detectorIntakeSchema, raw);
            return ingest(c, detectorAlerts(body, source.team), Array.isArray(body), c.get('textRepairs'));
          }
          case 'mailbox': {
            const body = parseBody(mailboxBody, raw);
            return ingest(
              c,
              (Array.isArray(body) ? body : [body]).map((email) => fromMailbox(email, source)),
              Array.isArray(body),
              c.get('textRepairs'),
            );
          }
          case 'generic': {
            const body = parseBody(genericBody, raw);
            const alerts = Array.isArray(body) ? body.map((p, i) => fromGeneric(p, i, source)) : [fromGeneric(body, null, source)];
            return ingest(c, alerts, Array.isArray(body), c.get('textRepairs'));
          }
          default:
            return assertNever(source.type);
        }
      },
    );
}
