/**
 * The probe of an `imap` connection (SPEC.md "Actions and connections";
 * docs/configuration.md "Connections"), with imapflow: connect to `config.host`:`config.port`,
 * TLS as `config.tls` says (`implicit`: TLS from the first byte; `starttls`: the upgrade is
 * required before LOGIN; `none`: clear text, for a relay on a trusted network), LOGIN (or
 * AUTHENTICATE PLAIN, as the server offers) as `config.username` with the secret, then
 * LOGOUT. Besides CAPABILITY, ID and NAMESPACE nothing is sent: no mailbox is selected, no
 * message read, flagged or moved. Certificates are checked against Node's bundled roots and
 * SVC_OUTBOUND_CA_FILE's CA (`extraCa`).
 *
 * Like SMTP relays and SSH hosts, IMAP servers are admin-configured and not behind the HTTP
 * SSRF guard. Failures: `auth_failed` (final), `auth_unavailable` (retryable: the server
 * answered UNAVAILABLE), `tls_failed` (final: no STARTTLS, or a certificate not trusted),
 * `network_error` (retryable), `timeout`; messages name host and port only, never the password.
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { configText } from '../actions/outbound-http.ts';
import { probeSecret } from './probe-http.ts';
import { trustedCa } from '../outbound/trusted-ca.ts';

const ACTION = 'imap connection test';

/** How long connecting and the greeting may take, ms (the probe's own deadline usually ends it sooner). */
const CONNECT_TIMEOUT_MS = 10_000;

type ImapTarget = { host: string; port: number; tls: 'implicit' | 'starttls' | 'none'; username: string };

function imapTarget(connection: ResolvedConnection): ImapTarget {
  const host = configText(connection.config, 'host');
  const username = configText(connection.config, 'username');
  const tls = connection.config.tls ?? 'implicit';
  const port = connection.config.port ?? (tls === 'implicit' ? 993 : 143);
  if (!host || !username || (tls !== 'implicit' && tls !== 'starttls' && tls !== 'none') || typeof port !== 'number') {
    throw new ActionFailure(
      'connection_invalid',
      `${ACTION}: connection '${connection.name}' needs config.host, config.username, and a valid config.tls and config.port`,
      false,
    );
  }
  return { host, port, tls, username };
}

/** imap: connect, TLS as configured, authenticate, log out. */
export async function probeImap(connection: ResolvedConnection, signal: AbortSignal, extraCa: string | null): Promise<Record<string, unknown>> {
  const target = imapTarget(connection);
  const where = `${target.host}:${target.port}`;
  // Loaded on first use, not at every start of the service (docs/operations.md "The compiled build").
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: target.host,
    port: target.port,
    secure: target.tls === 'implicit',
    ...(extraCa !== null && { tls: { ca: trustedCa(extraCa) } }),
    ...(target.tls !== 'implicit' && { doSTARTTLS: target.tls === 'starttls' }),
    auth: { user: target.username, pass: probeSecret(ACTION, connection, 'password') },
    verifyOnly: true,
    logger: false,
    clientInfo: { name: 'svc-connection-probe' },
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: CONNECT_TIMEOUT_MS,
  });
  // An 'error' event without a listener would end the process; the failure also rejects connect().
  client.on('error', () => {});
  const abort = () => client.close();
  signal.addEventListener('abort', abort, { once: true });
  try {
    await client.connect();
  } catch (error) {
    throw imapFailure(error, where, signal);
  } finally {
    signal.removeEventListener('abort', abort);
    client.close();
  }
  return { imap: where, tls: target.tls, authenticated: true };
}

function imapFailure(error: unknown, where: string, signal: AbortSignal): ActionFailure {
  const e = (error ?? {}) as { authenticationFailed?: boolean; serverResponseCode?: unknown; tlsFailed?: boolean; code?: unknown };
  if (signal.aborted) return new ActionFailure('timeout', `${ACTION}: ${where} did not finish in time`, true, error);
  // RFC 5530: UNAVAILABLE is the server's own trouble (its password backend), not a wrong password.
  if (e.authenticationFailed && e.serverResponseCode === 'UNAVAILABLE')
    return new ActionFailure('auth_unavailable', `${ACTION}: ${where} could not check the login now (UNAVAILABLE)`, true);
  if (e.authenticationFailed) return new ActionFailure('auth_failed', `${ACTION}: ${where} refused the login`, false);
  if (e.tlsFailed || (typeof e.code === 'string' && /CERT|TLS|SSL|SELF_SIGNED|ALTNAME/.test(e.code))) {
    return new ActionFailure('tls_failed', `${ACTION}: no trusted TLS with ${where}${typeof e.code === 'string' ? ` (${e.code})` : ''}`, false);
  }
  return new ActionFailure('network_error', `${ACTION}: cannot reach ${where}${typeof e.code === 'string' ? ` (${e.code})` : ''}`, true, error);
}
