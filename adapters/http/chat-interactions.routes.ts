/**
 * `POST /webhooks/chat-interactions` (SPEC.md "Webhook intake"): slash commands and
 * interactive approval callbacks of the chat_a product (Slack), form-encoded as it sends
 * them: a slash command's fields, or `payload=<JSON>` for an interaction.
 *
 * The request must carry a valid `X-Slack-Signature` over `X-Slack-Request-Timestamp` and
 * the raw body under the signing secret (the `secret`) of a chat_a connection, or the one
 * before its last rotation while the overlap lasts (adapters/chat/chat-a-signature.ts);
 * `X-Chat-Signature` / `X-Chat-Request-Timestamp` are the neutral names for the same
 * headers. A bad signature answers 401 `unauthenticated`, a stale timestamp 401
 * `stale_signature`, before the body is read for anything else.
 *
 * Answers are what the chat product expects: HTTP 200 with the ephemeral reply of a slash
 * command, and an empty 200 for an interaction, whose outcome goes to its `response_url`
 * when that lies on the connection's `config.response_origin` (default
 * `https://hooks.slack.com`). The chat product does not accept SPEC.md's 202 here.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import { checkChatASignature } from '../chat/chat-a-signature.ts';
import { chatReplySchema, createChatInteractions, type ChatResponder } from '../chat/interactions.ts';
import type { ResolvedConnection } from '../actions/action.ts';
import { CHAT_A_RESPONSE_ORIGIN } from '../connections/config-rules.ts';
import { DomainError, ValidationFailed } from '../../domain/shared/errors.ts';
import type { HttpDeps } from './deps.ts';
import { decideGateAs } from './gate-decision.ts';
import { jsonAnswer } from './openapi.ts';
import { recordAuditBy } from './audited.ts';
import { personActor } from '../commands/audit.ts';

/**
 * Both answers are 200: a slash command's reply as JSON, and an interaction's empty body,
 * which @hono/node-server labels `text/plain; charset=UTF-8`, so it is declared as that media type.
 */
const slashReplyOrEmpty = (() => {
  const reply = jsonAnswer(
    chatReplySchema,
    "A slash command's ephemeral reply (JSON); an interaction's empty body (text/plain), its outcome posted to its response_url",
  );
  return { ...reply, content: { ...reply.content, 'text/plain': { schema: { type: 'string' as const, maxLength: 0 } } } };
})();

/** How long the follow-up post to a `response_url` may take, milliseconds. */
const RESPONSE_TIMEOUT_MS = 10_000;

/** The chat_a connection whose signing secret signed the request, or why none did. */
async function signingConnection(
  deps: Pick<HttpDeps, 'connections' | 'now'>,
  raw: Uint8Array,
  timestamp: string | undefined,
  signature: string | undefined,
): Promise<ResolvedConnection> {
  let stale = false;
  const now = deps.now();
  for (const connection of await deps.connections.resolveAllOfKind('chat_a')) {
    for (const secret of [connection.secret, connection.previous_secret]) {
      if (!secret) continue;
      const check = checkChatASignature(secret, raw, timestamp, signature, now);
      if (check === 'valid') return connection;
      stale ||= check === 'stale';
    }
  }
  if (stale) throw new DomainError('stale_signature', 401, 'the chat request timestamp is more than five minutes from our clock');
  throw new DomainError('unauthenticated', 401, 'missing or invalid chat signature');
}

/** What the chat interaction route reads of the service (adapters/http/deps.ts). */
export type ChatInteractionRouteDeps = Pick<
  HttpDeps,
  'audit' | 'chatCommand' | 'chatLinks' | 'connections' | 'db' | 'logError' | 'now' | 'outbound' | 'permissions' | 'runs' | 'waitFor'
>;

export function chatInteractionRoutes(deps: ChatInteractionRouteDeps) {
  const interactions = createChatInteractions({
    links: deps.chatLinks,
    command: deps.chatCommand,
    audit: (action, user, detail) => recordAuditBy(deps, personActor(user, null), { action, target: { type: 'user', id: user.id }, detail }),
    decide: (principal, decision) => decideGateAs(deps, principal, decision),
  });

  /** Posts a reply to `responseUrl` after the answer, only on the connection's response origin; failures are logged without the URL. */
  const responderFor =
    (connection: ResolvedConnection): ChatResponder =>
    (responseUrl, reply) => {
      const origin = typeof connection.config.response_origin === 'string' ? connection.config.response_origin : CHAT_A_RESPONSE_ORIGIN;
      if (!URL.canParse(responseUrl) || new URL(responseUrl).origin !== new URL(origin).origin) {
        deps.logError(new Error('chat interaction response_url is outside the connection response_origin'), {
          route: 'chat-interactions',
          connection: connection.name,
        });
        return;
      }
      const init = {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(reply),
        redirect: 'manual' as const,
        signal: AbortSignal.timeout(RESPONSE_TIMEOUT_MS),
      };
      void deps
        .outbound(responseUrl, init)
        .then((response) => response.body?.cancel())
        .catch((error: unknown) =>
          deps.logError(new Error(`chat interaction reply failed: ${(error as Error).name}`), { route: 'chat-interactions', connection: connection.name }),
        );
    };

  return new Hono().post(
    '/webhooks/chat-interactions',
    describeRoute({
      summary: 'chat_a slash commands (identity link) and approval button callbacks, signed with the signing secret',
      tags: ['intake'],
      security: [{ chatSignature: [] }],
      responses: { 200: slashReplyOrEmpty },
    }),
    async (c) => {
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const header = (vendor: string, neutral: string) => c.req.header(vendor) ?? c.req.header(neutral);
      const connection = await signingConnection(
        deps,
        raw,
        header('x-slack-request-timestamp', 'x-chat-request-timestamp'),
        header('x-slack-signature', 'x-chat-signature'),
      );
      if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header('content-type') ?? '')) {
        throw new DomainError('unsupported_media_type', 415, 'chat interactions are application/x-www-form-urlencoded');
      }
      const form = new URLSearchParams(Buffer.from(raw).toString('utf8'));
      const payload = form.get('payload');
      if (payload !== null) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(payload);
        } catch {
          throw new ValidationFailed([{ loc: ['body', 'payload'], msg: 'is not valid JSON', type: 'json_invalid' }]);
        }
        await interactions.blockActions(parsed, responderFor(connection));
        return c.body(null, 200);
      }
      if (form.has('command')) return c.json(await interactions.slashCommand(Object.fromEntries(form)), 200);
      throw new ValidationFailed([{ loc: ['body'], msg: 'must be a slash command or an interaction payload', type: 'value_error' }]);
    },
  );
}
