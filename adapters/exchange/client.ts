/**
 * The workload exchange client (SPEC.md "Authentication", "Peer endpoints"): short-lived,
 * audience-bound tokens for calls to suite products, never a stored secret. The protocol
 * is not shown in SPEC.md; ours (docs/suite-contracts.md "Workload exchange") is an OAuth
 * 2.0 client-credentials grant at `SVC_IDENTITY_URL` + `SVC_EXCHANGE_TOKEN_PATH`, this
 * service authenticating as `SVC_EXCHANGE_CLIENT_ID` with `SVC_EXCHANGE_CLIENT_SECRET`
 * (HTTP Basic) and sending `audience` and `scope`. Tokens are cached by the oauth2 token
 * source (until 60 s before `expires_in`, one request for concurrent callers).
 *
 * Failures are ActionFailures, so a step and a route report them alike:
 * `UNDECLARED_EXCHANGE_SCOPE` (final, before any request) for a pair outside
 * declared.ts, `exchange_not_configured` (final), `exchange_failed` (the token endpoint's
 * host, status and OAuth error code; retryable on 5xx and 429), `target_refused`.
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import type { TokenSource } from '../actions/oauth2-token.ts';
import { DECLARED_EXCHANGES, isDeclared } from './declared.ts';

/** Where and as whom to ask; `tokenUrl` is https (runtime/config.ts refuses anything else). */
export type ExchangeSettings = { tokenUrl: string; clientId: string; clientSecret: string };

export type ExchangeClient = {
  /** A bearer token for `audience` covering `scopes`: cached, or fresh when `fresh` is set. */
  token: (action: string, audience: string, scopes: readonly string[], signal: AbortSignal, fresh?: boolean) => Promise<string>;
  /** Drops `token` for `audience` from the cache (the peer refused it). */
  invalidate: (audience: string, token: string) => void;
};

/** A client for `settings` (null: the exchange is not configured) minting through `tokens`. */
export function createExchangeClient(
  settings: ExchangeSettings | null,
  tokens: TokenSource,
  declared: Readonly<Record<string, readonly string[]>> = DECLARED_EXCHANGES,
): ExchangeClient {
  // The token source caches per connection id, credential, audience and scope, so one pseudo-connection per audience keeps audiences apart.
  const grantOf = (audience: string, scopes: readonly string[], config: ExchangeSettings): ResolvedConnection => ({
    id: `exchange:${audience}`,
    kind: 'http',
    name: 'workload-exchange',
    base_url: null,
    config: { token_url: config.tokenUrl, client_id: config.clientId, client_auth: 'basic', audience, scope: [...scopes].sort().join(' ') },
    secret: config.clientSecret,
    previous_secret: null,
    bot_token: null,
  });
  return {
    async token(action, audience, scopes, signal, fresh = false) {
      if (!isDeclared(audience, scopes, declared)) {
        throw new ActionFailure(
          'UNDECLARED_EXCHANGE_SCOPE',
          `${action}: scope '${scopes.join(' ')}' for audience '${audience}' is not declared in /peer/v1/exchanges`,
          false,
        );
      }
      if (settings === null) {
        throw new ActionFailure(
          'exchange_not_configured',
          `${action}: the workload exchange is not configured (SVC_IDENTITY_URL and SVC_EXCHANGE_CLIENT_SECRET)`,
          false,
        );
      }
      try {
        return (await tokens.token(action, grantOf(audience, scopes, settings), signal, fresh)).access_token;
      } catch (error) {
        if (error instanceof ActionFailure && error.type === 'oauth2_token_error') {
          throw new ActionFailure('exchange_failed', error.message.replace('token request', 'workload exchange request'), error.retryable);
        }
        throw error;
      }
    },
    invalidate(audience, token) {
      tokens.invalidate({ id: `exchange:${audience}` }, token);
    },
  };
}
