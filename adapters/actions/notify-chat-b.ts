/**
 * `notify.chat_b` (SPEC.md "Action registry entry"; docs/configuration.md "Chat"): a
 * message to a channel of the chat_b product (Microsoft Teams) through its incoming
 * webhook (or a Workflows webhook), as an Adaptive Card.
 *
 * The webhook URL carries its own credential, so it is the connection's secret; the
 * connection's `base_url` names the origin it must point to, and a secret URL on another
 * origin is refused, so what an admin reads in the connection is where messages go.
 * A legacy incoming webhook answers 200 with the body `1`, a Workflows webhook 202 with
 * none; a 2xx with any other body is Teams reporting a failed delivery.
 */
import * as v from 'valibot';
import { jsonRecord } from '../shared/shapes.ts';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from './outbound-http.ts';

const NAME = 'notify.chat_b';

const input = v.strictObject({
  text: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(28_000)),
  title: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))),
  facts: v.optional(
    v.pipe(
      jsonRecord(v.string()),
      v.check((f) => Object.keys(f).length <= 20, 'must have at most 20 facts'),
    ),
  ),
  link: v.optional(
    v.strictObject({
      title: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
      url: v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//, 'must be an http(s) URL')),
    }),
  ),
});
type ChatBInput = v.InferOutput<typeof input>;

/** The Adaptive Card message of `step`, in the envelope Teams webhooks take. */
export function adaptiveCardMessage(step: ChatBInput) {
  const body = [
    ...(step.title ? [{ type: 'TextBlock', text: step.title, weight: 'Bolder', size: 'Medium', wrap: true }] : []),
    { type: 'TextBlock', text: step.text, wrap: true },
    ...(step.facts ? [{ type: 'FactSet', facts: Object.entries(step.facts).map(([title, value]) => ({ title, value })) }] : []),
  ];
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          ...(step.link && { actions: [{ type: 'Action.OpenUrl', title: step.link.title, url: step.link.url }] }),
        },
      },
    ],
  };
}

/** The webhook URL (the secret), checked to lie on the connection's `base_url` origin; failures name `action`. */
export function chatBWebhookUrl(action: string, context: Pick<ActionContext, 'connection'>): URL {
  const connection = requireConnection(action, context, 'chat_b');
  const secret = connection.secret;
  if (!secret) throw new ActionFailure('connection_missing', `${action}: connection '${connection.name}' has no webhook URL secret`, false);
  const url = URL.canParse(secret) ? new URL(secret) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new ActionFailure('connection_invalid', `${action}: the secret of connection '${connection.name}' is not a webhook URL`, false);
  if (url.origin !== new URL(connection.base_url).origin) {
    throw new ActionFailure('connection_invalid', `${action}: the webhook URL of connection '${connection.name}' is not on its base_url origin`, false);
  }
  return url;
}

/** `notify.chat_b` over `fetchImpl` (the guarded outbound fetch); output `{status, delivered: true}`. */
export function createNotifyChatB(fetchImpl: OutboundFetch): ActionDefinition<ChatBInput, { status: number; delivered: true }> {
  return {
    name: NAME,
    connectionKind: 'chat_b',
    risk: 'notify',
    input,
    output: v.object({ status: v.pipe(v.number(), v.integer()), delivered: v.literal(true) }),
    async execute(step, context) {
      const url = chatBWebhookUrl(NAME, context);
      const response = await sendOutbound(
        NAME,
        fetchImpl,
        url,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(adaptiveCardMessage(step)) },
        context.signal,
      );
      const text = (await readCappedText(NAME, response, url, context.signal)).trim();
      if (!response.ok) throw statusFailure(NAME, url, response.status);
      if (text !== '' && text !== '1')
        throw new ActionFailure('delivery_failed', `${NAME}: ${url.host} did not deliver the message: ${text.slice(0, 300)}`, /429|throttl/i.test(text));
      return { status: response.status, delivered: true };
    },
    async preview(step, context) {
      const url = chatBWebhookUrl(NAME, context);
      return { method: 'POST', url: `${url.origin}/${REDACTED}`, body: adaptiveCardMessage(step) };
    },
  };
}
