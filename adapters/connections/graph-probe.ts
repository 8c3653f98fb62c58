/**
 * The probe of a `mailbox_graph` connection (SPEC.md "Actions and connections";
 * docs/configuration.md "Connections"): a mailbox read through Microsoft Graph with an
 * app-only token, so it shows both that the app registration can sign in and that it may
 * read the configured mailbox. Nothing is sent, moved or marked read.
 *
 * 1. The client-credentials grant at `config.token_url` (the Microsoft identity
 *    platform's `/<tenant>/oauth2/v2.0/token`) as `config.client_id` with the secret,
 *    `client_secret_post`, scope `<Graph origin>/.default`; always a fresh token.
 * 2. `GET <base_url>/users/<mailbox>/mailFolders/inbox?$select=id,totalItemCount` with
 *    that bearer token (`base_url` is the Graph root, `https://graph.microsoft.com/v1.0`).
 *    Graph answers 200 with the folder, 401/403 when the token or the app's mail
 *    permission (Mail.Read or Mail.ReadBasic.All) is refused, 404 for an unknown mailbox.
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import type { TokenSource } from '../actions/oauth2-token.ts';
import { configText, joinUrl, requireConnection, type OutboundFetch } from '../actions/outbound-http.ts';
import { graphTokenUrl } from './config-rules.ts';
import { probeRead } from './probe-http.ts';

const ACTION = 'mailbox_graph connection test';

/** mailbox_graph: a fresh app-only token, then the configured mailbox's inbox folder. */
export async function probeMailboxGraph(
  outbound: OutboundFetch,
  tokens: TokenSource,
  connection: ResolvedConnection,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const { base_url: base } = requireConnection(ACTION, { connection }, 'mailbox_graph');
  const [tenant, clientId, mailbox] = ['tenant_id', 'client_id', 'mailbox'].map((key) => configText(connection.config, key));
  if (!tenant || !clientId || !mailbox)
    throw new ActionFailure(
      'connection_invalid',
      `${ACTION}: connection '${connection.name}' needs config.tenant_id, config.client_id and config.mailbox`,
      false,
    );
  const tokenUrl = configText(connection.config, 'token_url') ?? graphTokenUrl(tenant);
  // The token source takes the grant as an oauth2 `http` connection; its own id keeps this token apart in the cache.
  const grant: ResolvedConnection = {
    ...connection,
    id: `${connection.id}:graph`,
    kind: 'http',
    config: { token_url: tokenUrl, client_id: clientId, client_auth: 'post', scope: `${new URL(base).origin}/.default` },
  };
  const minted = await tokens.token(ACTION, grant, signal, true);
  const url = joinUrl(ACTION, base, `users/${encodeURIComponent(mailbox)}/mailFolders/inbox`, { $select: 'id,totalItemCount' });
  const { body } = await probeRead(
    ACTION,
    outbound,
    url,
    { method: 'GET', headers: { authorization: `Bearer ${minted.access_token}`, accept: 'application/json' } },
    signal,
  );
  if (typeof (body as { id?: unknown } | null)?.id !== 'string')
    throw new ActionFailure('bad_response', `${ACTION}: ${url.host} answered the inbox read without a folder id`, false);
  return { token_host: new URL(tokenUrl).host, graph_host: url.host, mailbox, inbox_readable: true };
}
