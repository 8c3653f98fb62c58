/**
 * Connection probes of the chat, ticket and pager kinds (SPEC.md "Actions and
 * connections": `POST /connections/<id>/test` is non-effectful; docs/configuration.md
 * "Connections"). Each sends one read with the credential the actions use, built with the
 * actions' own helpers, or, where the vendor has no read call for that credential, checks
 * the configuration and that the host answers, sending nothing that could deliver:
 *
 * - chat_a (Slack Web API): `POST <base_url>/auth.test` with the bot token, an empty form
 *   body; Slack answers 200 `{ok: true, team_id, user_id, bot_id}` or `{ok: false, error}`.
 * - chat_b (Teams incoming webhook): the secret must be a webhook URL on the `base_url`
 *   origin, then an unsigned HEAD of `base_url`; the webhook URL itself gets no request.
 * - ticket_a (Jira Cloud REST v3): `GET <base_url>/rest/api/3/myself`, HTTP Basic
 *   `config.email` + API token; 200 `{accountId, active, ...}`.
 * - ticket_b (ServiceNow Table API): `GET <base_url>/api/now/table/<config.table, default
 *   incident>?sysparm_limit=1&sysparm_fields=sys_id`, HTTP Basic `config.username` +
 *   password; 200 `{result: [...]}`.
 * - pager_a (PagerDuty Events API v2): a routing key can only send events, so the key must
 *   look like an integration key (32 letters and digits), then an unsigned HEAD of
 *   `base_url` without the key; a wrong key of the right shape is not detectable.
 * - pager_b (Opsgenie): `GET <base_url>/v2/account` with `Authorization: GenieKey <key>`;
 *   200 `{data: {name, ...}}`.
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { chatAEndpoint } from '../actions/notify-chat-a.ts';
import { chatBWebhookUrl } from '../actions/notify-chat-b.ts';
import { genieKey } from '../actions/notify-pager.ts';
import { basic, configText, joinUrl, requireConnection, type OutboundFetch } from '../actions/outbound-http.ts';
import { probeRead, probeSecret, probeStatus } from './probe-http.ts';

/** What a probe reports on success (the `details` of SPEC.md's probe answer). */
type Details = Record<string, unknown>;

/** Slack `auth.test` errors that mean the bot token itself is refused. */
const refusedTokenErrors = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive', 'no_permission']);

/** An Events API v2 integration (routing) key: 32 letters and digits. */
const ROUTING_KEY = /^[A-Za-z0-9]{32}$/;

const label = (kind: string) => `${kind} connection test`;
const field = (body: unknown, key: string): unknown => (body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** chat_a: Slack's `auth.test` with the bot token. Fails `auth_failed` for a refused token, `chat_api_error` for any other Slack error. */
export async function probeChatA(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Details> {
  const action = label('chat_a');
  const { url, token } = chatAEndpoint(action, { connection }, 'auth.test');
  const { body } = await probeRead(
    action,
    outbound,
    url,
    { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '' },
    signal,
  );
  if (field(body, 'ok') !== true) {
    const error = text(field(body, 'error'))?.slice(0, 100) ?? 'unknown_error';
    if (refusedTokenErrors.has(error)) throw new ActionFailure('auth_failed', `${action}: ${url.host} refused the bot token: ${error}`, false);
    throw new ActionFailure('chat_api_error', `${action}: ${url.host} answered auth.test with ${error}`, error === 'ratelimited');
  }
  return {
    host: url.host,
    team_id: text(field(body, 'team_id')),
    user_id: text(field(body, 'user_id')),
    bot_id: text(field(body, 'bot_id')),
    signing_secret_configured: connection.secret !== null,
  };
}

/** chat_b: the webhook URL secret checked against `base_url`, then an unsigned HEAD of `base_url` (never the webhook URL). */
export async function probeChatB(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Details> {
  const action = label('chat_b');
  chatBWebhookUrl(action, { connection });
  const base = requireConnection(action, { connection }, 'chat_b').base_url;
  const { host, status } = await probeStatus(action, outbound, joinUrl(action, base), { method: 'HEAD' }, signal, false);
  return { host, status, webhook_url_on_origin: true, delivered: false };
}

/** ticket_a: Jira's `GET /rest/api/3/myself` as `config.email` with the API token. */
export async function probeTicketA(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Details> {
  const action = label('ticket_a');
  const { base_url: base } = requireConnection(action, { connection }, 'ticket_a');
  const email = configText(connection.config, 'email');
  if (!email) throw new ActionFailure('connection_invalid', `${action}: connection '${connection.name}' needs config.email`, false);
  const url = joinUrl(action, base, 'rest/api/3/myself');
  const { body } = await probeRead(
    action,
    outbound,
    url,
    { method: 'GET', headers: { authorization: basic(email, probeSecret(action, connection, 'API token')), accept: 'application/json' } },
    signal,
  );
  const accountId = text(field(body, 'accountId'));
  if (accountId === null) throw new ActionFailure('bad_response', `${action}: ${url.host} answered /myself without an accountId`, false);
  return { host: url.host, account_id: accountId, active: field(body, 'active') === true };
}

/** ticket_b: one row (its sys_id only) of the connection's table through ServiceNow's Table API. */
export async function probeTicketB(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Details> {
  const action = label('ticket_b');
  const { base_url: base } = requireConnection(action, { connection }, 'ticket_b');
  const username = configText(connection.config, 'username');
  if (!username) throw new ActionFailure('connection_invalid', `${action}: connection '${connection.name}' needs config.username`, false);
  const table = configText(connection.config, 'table') ?? 'incident';
  const url = joinUrl(action, base, `api/now/table/${encodeURIComponent(table)}`, { sysparm_limit: 1, sysparm_fields: 'sys_id' });
  const { body } = await probeRead(
    action,
    outbound,
    url,
    { method: 'GET', headers: { authorization: basic(username, probeSecret(action, connection, 'password')), accept: 'application/json' } },
    signal,
  );
  if (!Array.isArray(field(body, 'result')))
    throw new ActionFailure('bad_response', `${action}: ${url.host} answered the table read without a result list`, false);
  return { host: url.host, table, readable: true };
}

/** pager_a: the routing key's shape, then an unsigned HEAD of `base_url` that carries no key and no event. */
export async function probePagerA(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Details> {
  const action = label('pager_a');
  const { base_url: base } = requireConnection(action, { connection }, 'pager_a');
  if (!ROUTING_KEY.test(probeSecret(action, connection, 'routing key'))) {
    throw new ActionFailure(
      'connection_invalid',
      `${action}: the routing key of connection '${connection.name}' is not a 32-character Events API v2 integration key`,
      false,
    );
  }
  const { host, status } = await probeStatus(action, outbound, joinUrl(action, base), { method: 'HEAD' }, signal, false);
  return { host, status, routing_key_format: 'events_v2', delivered: false };
}

/** pager_b: Opsgenie's `GET /v2/account` with the API key. */
export async function probePagerB(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Details> {
  const action = label('pager_b');
  const { base_url: base } = requireConnection(action, { connection }, 'pager_b');
  const url = joinUrl(action, base, 'v2/account');
  const { body } = await probeRead(
    action,
    outbound,
    url,
    { method: 'GET', headers: { authorization: genieKey(probeSecret(action, connection, 'API key')), accept: 'application/json' } },
    signal,
  );
  return { host: url.host, account: text(field(field(body, 'data'), 'name')) };
}
