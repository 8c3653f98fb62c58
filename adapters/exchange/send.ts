/**
 * One call to a suite product with a workload-exchange token (SPEC.md "Authentication":
 * short-lived, audience-bound tokens, never a stored secret), shared by every client that
 * calls a peer this way (the detector, the identity service).
 *
 * The request goes through the guarded outbound fetch with `Authorization: Bearer <token
 * for audience covering scopes>`. A 401 means the peer no longer takes the cached token:
 * it is dropped and the request sent once more with a freshly minted one; the second
 * answer is returned whatever it is. Failures are the ActionFailures of `sendOutbound` and
 * of the exchange client.
 */
import { sendOutbound, type OutboundFetch } from '../actions/outbound-http.ts';
import type { ExchangeClient } from './client.ts';

/** What to send: `init` without its authorization header, which this adds. */
export type ExchangeCall = { audience: string; scopes: readonly string[]; url: URL; init: RequestInit & { headers: Record<string, string> } };

/** The peer's answer to `call` sent as `action` within `signal`. */
export async function sendWithExchangeToken(
  action: string,
  exchange: ExchangeClient,
  outbound: OutboundFetch,
  call: ExchangeCall,
  signal: AbortSignal,
): Promise<Response> {
  for (let fresh = false; ; fresh = true) {
    const token = await exchange.token(action, call.audience, call.scopes, signal, fresh);
    const response = await sendOutbound(
      action,
      outbound,
      call.url,
      { ...call.init, headers: { ...call.init.headers, authorization: `Bearer ${token}` } },
      signal,
    );
    if (response.status !== 401 || fresh) return response;
    await response.body?.cancel();
    exchange.invalidate(call.audience, token);
  }
}
