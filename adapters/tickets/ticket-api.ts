/**
 * Calls to a linked ticket's product for mirroring (SPEC.md "Ticket mirroring"), over the
 * guarded outbound fetch with the link connection's HTTP Basic credentials (ticket_a:
 * `config.email` + API token; ticket_b: `config.username` + password). Failures are
 * TicketApiFailure with a class that names no secret and no ticket data (`http_status:<code>`,
 * `network_error`, `timeout`, `bad_response`, `connection_invalid`, ...), which is what
 * `last_poll_error` and the outbox's `last_error` store.
 */
import * as v from 'valibot';
import type { TicketProvider } from '../../domain/tickets/links.ts';
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { basic, configText, joinUrl, readCappedText, retryableStatus, sendOutbound, type OutboundFetch } from '../actions/outbound-http.ts';

/** A failed call; `final` when another attempt cannot help (a 4xx other than 429, a refused target, no transition). */
export class TicketApiFailure extends Error {
  constructor(
    readonly errorClass: string,
    readonly final = false,
  ) {
    super(`ticket call failed: ${errorClass}`);
    this.name = 'TicketApiFailure';
  }
}

/** A link as the product knows it. */
export type RemoteLink = { provider: TicketProvider; remote_id: string; remote_key: string };

export type TicketApi = <S extends v.GenericSchema | null>(
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  options: { query?: Record<string, string>; body?: unknown; schema: S },
) => Promise<S extends v.GenericSchema ? v.InferOutput<S> : null>;

/** The product API of `connection` for `provider`, every call bounded by `signal`. @throws TicketApiFailure `connection_invalid` */
export function ticketApi(fetchImpl: OutboundFetch, connection: ResolvedConnection, provider: TicketProvider, signal: AbortSignal): TicketApi {
  const user = configText(connection.config, provider === 'ticket_a' ? 'email' : 'username');
  const base = connection.base_url;
  if (!base || !user || connection.kind !== provider) throw new TicketApiFailure('connection_invalid', true);
  const headers = { authorization: basic(user, connection.secret ?? ''), accept: 'application/json' };
  return (async (method, path, options) => {
    try {
      const url = joinUrl('ticket mirroring', base, path, options.query);
      const init =
        options.body === undefined
          ? { method, headers }
          : { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(options.body) };
      const response = await sendOutbound('ticket mirroring', fetchImpl, url, init, signal);
      const text = await readCappedText('ticket mirroring', response, url, signal);
      if (!response.ok) throw new TicketApiFailure(`http_status:${response.status}`, !retryableStatus(response.status));
      if (options.schema === null) return null;
      const parsed = v.safeParse(options.schema, JSON.parse(text));
      if (!parsed.success) throw new TicketApiFailure('bad_response');
      return parsed.output;
    } catch (error) {
      if (error instanceof TicketApiFailure) throw error;
      if (error instanceof ActionFailure) throw new TicketApiFailure(error.type, !error.retryable);
      throw new TicketApiFailure('bad_response');
    }
  }) as TicketApi;
}
