/**
 * `notify.chat_a` (SPEC.md "Action registry entry"; docs/configuration.md "Chat"): a message
 * to a channel of the chat_a product (Slack) through its Web API `chat.postMessage`, posted
 * with the connection's bot token (the connection's `secret` is the signing secret that
 * `POST /webhooks/chat-interactions` verifies). With `approval: {step_id}` the message
 * carries Approve and Deny buttons for that step's gate in this run; a press comes back
 * signed to the interactions route, which decides the gate as the linked person, with the
 * API's permission checks (adapters/http/gate-decision.ts).
 *
 * The Web API answers HTTP 200 `{ok: true, channel, ts}` or `{ok: false, error}`, and 429
 * with `Retry-After` when rate limited.
 */
import * as v from 'valibot';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { joinUrl, readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from './outbound-http.ts';

const NAME = 'notify.chat_a';

/** The `action_id`s of the gate buttons, read back by the interactions route. */
export const GATE_BUTTONS = { approve: 'svc_gate_approve', deny: 'svc_gate_deny' } as const;

/** Longest text of a section block, characters (Block Kit). */
const SECTION_MAX = 3000;

/** Web API errors another attempt may get past (Slack's documented transient ones). */
const transientErrors = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

const input = v.strictObject({
  channel: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  text: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(40_000)),
  thread_ts: v.optional(v.pipe(v.string(), v.regex(/^\d{1,12}\.\d{1,9}$/, 'must be a message ts'))),
  approval: v.optional(v.strictObject({ step_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a step id')) })),
});
type ChatAInput = v.InferOutput<typeof input>;

const output = v.object({ channel: v.string(), ts: v.string() });
type ChatAOutput = v.InferOutput<typeof output>;

/** What a gate button carries: the run and the gated step. */
export type GateButtonValue = { run_id: string; step_id: string };

/** The chat.postMessage body of `step` in run `runId`. */
export function chatAMessage(step: ChatAInput, runId: string): Record<string, unknown> {
  const base = { channel: step.channel, text: step.text, ...(step.thread_ts && { thread_ts: step.thread_ts }) };
  if (!step.approval) return base;
  const value = JSON.stringify({ run_id: runId, step_id: step.approval.step_id } satisfies GateButtonValue);
  const button = (actionId: string, label: string, style: 'primary' | 'danger') => ({
    type: 'button',
    action_id: actionId,
    text: { type: 'plain_text', text: label },
    style,
    value,
  });
  const section = step.text.length > SECTION_MAX ? `${step.text.slice(0, SECTION_MAX - 1)}…` : step.text;
  return {
    ...base,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: section } },
      {
        type: 'actions',
        block_id: `svc_gate_${step.approval.step_id}`,
        elements: [button(GATE_BUTTONS.approve, 'Approve', 'primary'), button(GATE_BUTTONS.deny, 'Deny', 'danger')],
      },
    ],
  };
}

/**
 * The URL of Web API `method` below the connection's `base_url`, and its bot token, for
 * `action` (this action, or the connection probe's `auth.test`); final failures when either is missing.
 */
export function chatAEndpoint(action: string, context: Pick<ActionContext, 'connection'>, method: string): { url: URL; token: string } {
  const connection = requireConnection(action, context, 'chat_a');
  if (!connection.bot_token) throw new ActionFailure('connection_missing', `${action}: connection '${connection.name}' has no bot_token`, false);
  return { url: joinUrl(action, connection.base_url, method), token: connection.bot_token };
}

/** `notify.chat_a` over `fetchImpl` (the guarded outbound fetch); output `{channel, ts}` of the posted message. */
export function createNotifyChatA(fetchImpl: OutboundFetch): ActionDefinition<ChatAInput, ChatAOutput> {
  return {
    name: NAME,
    connectionKind: 'chat_a',
    risk: 'notify',
    input,
    output,
    async execute(step, context) {
      const { url, token } = chatAEndpoint(NAME, context, 'chat.postMessage');
      const response = await sendOutbound(
        NAME,
        fetchImpl,
        url,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify(chatAMessage(step, context.runId)),
        },
        context.signal,
      );
      const text = await readCappedText(NAME, response, url, context.signal);
      if (!response.ok) throw statusFailure(NAME, url, response.status);
      let answer: { ok?: unknown; error?: unknown; channel?: unknown; ts?: unknown };
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        throw new ActionFailure('bad_response', `${NAME}: ${url.host} did not answer JSON`, false);
      }
      if (answer.ok !== true) {
        const error = typeof answer.error === 'string' ? answer.error.slice(0, 100) : 'unknown_error';
        throw new ActionFailure('chat_api_error', `${NAME}: ${url.host} refused the message: ${error}`, transientErrors.has(error));
      }
      if (typeof answer.channel !== 'string' || typeof answer.ts !== 'string')
        throw new ActionFailure('bad_response', `${NAME}: ${url.host} answered ok without channel and ts`, false);
      return { channel: answer.channel, ts: answer.ts };
    },
    async preview(step, context) {
      const { url } = chatAEndpoint(NAME, context, 'chat.postMessage');
      return { method: 'POST', url: url.toString(), headers: { authorization: `Bearer ${REDACTED}` }, body: chatAMessage(step, context.runId) };
    },
  };
}
