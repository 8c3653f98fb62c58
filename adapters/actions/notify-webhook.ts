/**
 * `notify.webhook`: a signed JSON POST per the Standard Webhooks scheme
 * (SPEC.md "Generic actions"; https://www.standardwebhooks.com).
 */
import { createHmac } from 'node:crypto';
import * as v from 'valibot';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { joinUrl, readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from './outbound-http.ts';

const NAME = 'notify.webhook';

export type NotifyWebhookInput = { body?: unknown; event_type?: string; path?: string };
export type NotifyWebhookOutput = { status: number; webhook_id: string; delivered: true };

const input = v.object({
  body: v.optional(v.unknown()),
  event_type: v.optional(v.pipe(v.string(), v.minLength(1))),
  path: v.optional(v.string()),
});

/**
 * The `webhook-signature` value: 'v1,' + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)).
 * `timestamp` is unix seconds; `body` the exact serialized body sent. The key is the
 * base64-decoded rest of a `whsec_` secret, else the secret's UTF-8 bytes. Throws an Error
 * (which never quotes the secret) for an empty secret or a `whsec_` secret that is not base64.
 */
export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', webhookKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The `webhook-id` of one message: `msg_` and its delivery id (ActionContext.deliveryId).
 * Per Standard Webhooks it is the same when the same message is sent again, so a receiver
 * can drop the repeat a step's `retries` send and the redelivery after a worker crash
 * between sending and recording (the step's next attempt, in the same pass); a goto pass
 * re-entering the step and each `for_each` item are new messages with their own id.
 */
export function webhookId(deliveryId: string): string {
  return `msg_${deliveryId}`;
}

/**
 * Builds the action around `fetchImpl`. With `event_type`, the body follows the Standard
 * Webhooks payload shape `{type, timestamp, data}`; without it, `body` is sent as is
 * (an object `{}` when absent). 2xx succeeds; any other status, network error or timeout
 * is an ActionFailure, retryable for 5xx, 429, network errors and timeouts.
 */
export function createNotifyWebhook(fetchImpl: OutboundFetch): ActionDefinition<NotifyWebhookInput, NotifyWebhookOutput> {
  return {
    name: NAME,
    connectionKind: 'webhook',
    risk: 'notify',
    input,
    output: v.object({ status: v.pipe(v.number(), v.integer()), webhook_id: v.string(), delivered: v.literal(true) }),
    async execute(step, context) {
      const request = buildRequest(step, context);
      const secret = context.connection?.secret;
      if (!secret) throw new ActionFailure('connection_missing', `${NAME}: connection '${request.connectionName}' has no signing secret`, false);
      let signature: string;
      try {
        // While a rotation overlaps, sign with both secrets (Standard Webhooks takes a space-separated list), so a receiver still on the old one verifies.
        const previous = context.connection?.previous_secret;
        signature = [secret, ...(previous ? [previous] : [])]
          .map((k) => signStandardWebhook(k, request.headers['webhook-id'], request.timestamp, request.body))
          .join(' ');
      } catch (error) {
        throw new ActionFailure('connection_invalid', `${NAME}: connection '${request.connectionName}': ${(error as Error).message}`, false);
      }
      const response = await sendOutbound(
        NAME,
        fetchImpl,
        request.url,
        {
          method: 'POST',
          headers: { ...request.headers, 'webhook-signature': signature },
          body: request.body,
        },
        context.signal,
      );
      // The receiver's answer is not used; read (capped) so the connection is released.
      await readCappedText(NAME, response, request.url, context.signal);
      if (response.status < 200 || response.status > 299) throw statusFailure(NAME, request.url, response.status);
      return { status: response.status, webhook_id: request.headers['webhook-id'], delivered: true };
    },
    async preview(step, context) {
      const request = buildRequest(step, context);
      return {
        method: 'POST',
        url: request.url.toString(),
        headers: { ...request.headers, 'webhook-signature': REDACTED },
        body: request.payload,
      };
    },
  };
}

function buildRequest(step: NotifyWebhookInput, context: ActionContext) {
  const connection = requireConnection(NAME, context, 'webhook');
  const now = context.now();
  const timestamp = Math.floor(now.getTime() / 1000);
  const payload = step.event_type === undefined ? (step.body ?? {}) : { type: step.event_type, timestamp: now.toISOString(), data: step.body ?? null };
  return {
    connectionName: connection.name,
    url: joinUrl(NAME, connection.base_url, step.path),
    timestamp,
    payload,
    body: JSON.stringify(payload),
    headers: {
      'content-type': 'application/json',
      'webhook-id': webhookId(context.deliveryId),
      'webhook-timestamp': String(timestamp),
    },
  };
}

function webhookKey(secret: string): Uint8Array {
  if (!secret.startsWith('whsec_')) {
    if (secret === '') throw new Error('the webhook secret is empty');
    return Buffer.from(secret, 'utf8');
  }
  const encoded = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new Error('a whsec_ webhook secret must be base64 after the prefix');
  return new Uint8Array(Buffer.from(encoded, 'base64'));
}
