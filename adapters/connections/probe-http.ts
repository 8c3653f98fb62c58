/**
 * The HTTP half of the connection probes (probes.ts, SPEC.md "Actions and connections"):
 * one request through the guarded outbound edge, read as a probe reads it. A probe only
 * ever sends reads (GET, or Slack's read-only `auth.test`) and unsigned HEADs without a
 * credential. Failures are ActionFailures naming the action, host and status (and the
 * vendor's own explanation when its JSON error body has one), never a credential.
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { readCappedText, sendOutbound, statusFailure, vendorMessage, type OutboundFetch } from '../actions/outbound-http.ts';

/** Largest answer a probe reads: 256 KiB (a probe asks for one record at most). */
const MAX_PROBE_BYTES = 256 * 1024;

/** A probe read's answer: the host asked, the 2xx status and the body as JSON. */
export type ProbeAnswer = { host: string; status: number; body: unknown };

/**
 * Sends the read `init` to `url` and parses the JSON answer. 401 and 403 fail with the final
 * `auth_failed` (the credential was refused, or lacks the right to read), any other non-2xx
 * with `http_status` (retryable on 5xx and 429), a 2xx that is not JSON with `bad_response`;
 * transport failures are those of `sendOutbound`.
 */
export async function probeRead(action: string, outbound: OutboundFetch, url: URL, init: RequestInit, signal: AbortSignal): Promise<ProbeAnswer> {
  const response = await sendOutbound(action, outbound, url, init, signal);
  const text = await readCappedText(action, response, url, signal, MAX_PROBE_BYTES);
  const said = response.ok ? null : vendorMessage(text);
  if (response.status === 401 || response.status === 403) throw credentialRefused(action, url, response.status, said);
  if (!response.ok) throw statusFailure(action, url, response.status, said);
  try {
    return { host: url.host, status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    throw new ActionFailure('bad_response', `${action}: ${url.host} answered HTTP ${response.status} with a body that is not JSON`, false);
  }
}

/**
 * Sends `init` to `url` and reads only the status: 5xx fails (`http_status`, retryable),
 * and with `credentialSent` 401 and 403 too (`auth_failed`); any other status passes, as
 * it shows the peer is there. The body is not read.
 */
export async function probeStatus(
  action: string,
  outbound: OutboundFetch,
  url: URL,
  init: RequestInit,
  signal: AbortSignal,
  credentialSent: boolean,
): Promise<{ host: string; status: number }> {
  const response = await sendOutbound(action, outbound, url, init, signal);
  await response.body?.cancel();
  const status = response.status;
  if (credentialSent && (status === 401 || status === 403)) throw credentialRefused(action, url, status, null);
  if (status >= 500) throw statusFailure(action, url, status);
  return { host: url.host, status };
}

/** The connection's secret, or the final ActionFailure `connection_missing` naming `what` it should be. */
export function probeSecret(action: string, connection: ResolvedConnection, what: string): string {
  if (!connection.secret) throw new ActionFailure('connection_missing', `${action}: connection '${connection.name}' has no ${what}`, false);
  return connection.secret;
}

/** The final `auth_failed` of a refused credential: host and status, and the vendor's words when it sent some. */
export function credentialRefused(action: string, url: URL, status: number, said: string | null): ActionFailure {
  return new ActionFailure('auth_failed', `${action}: ${url.host} refused the credential with status ${status}${said === null ? '' : `: ${said}`}`, false);
}
