/**
 * `POST /connections/<id>/test` (SPEC.md "Actions and connections"): a non-effectful
 * probe per connection kind. Nothing is sent that a peer would act on:
 * - `http`, oauth2: mints a fresh token at `token_url` (and caches it for the actions);
 *   header auth: a GET of `base_url` with the credential; 401/403 and 5xx fail.
 * - `webhook`: a HEAD of `base_url` without signing anything (a POST would deliver); any
 *   answer below 500 shows the receiver is reachable.
 * - `ssh`: connect, host-key check and key authentication, then close; no channel.
 * - `email_smtp`: connect, TLS as configured and AUTH, then QUIT; no mail.
 * - `mcp`: initialize and `tools/list` (every page), then close; no tool is called. Reports
 *   the allowlisted tools the server does not advertise.
 * Other kinds answer 501 `probe_not_implemented` until their integrations exist.
 * Every HTTP probe goes through the guarded edge; failures carry the ActionFailure's
 * type and message, which name host and status, never a secret.
 */
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { httpAuth } from '../actions/http-request.ts';
import { probeSmtp } from '../actions/notify-email.ts';
import { oauth2Settings, type TokenSource } from '../actions/oauth2-token.ts';
import { joinUrl, sendOutbound, type OutboundFetch } from '../actions/outbound-http.ts';
import { probeSsh } from '../actions/ssh-command.ts';
import { listRemoteTools } from '../mcp/remote-tools.ts';
import { DomainError } from '../../domain/shared/errors.ts';

/** What a probe reports: `ok`, the kind-specific facts it checked, and on failure the error's type and message. */
export type ProbeResult = {
  ok: boolean;
  kind: string;
  probe: string;
  latency_ms: number;
  details: Record<string, unknown>;
  error: { type: string; message: string } | null;
};

export type ProbeDeps = { outbound: OutboundFetch; tokens: TokenSource; timeoutMs: number; now?: () => number };

export type ConnectionProbes = ReturnType<typeof createConnectionProbes>;

type Probe = { name: string; run: (connection: ResolvedConnection, signal: AbortSignal) => Promise<Record<string, unknown>> };

/**
 * The probe runner. `probe` never throws for a failing peer (that is `ok: false`); it
 * throws DomainError 501 `probe_not_implemented` for a kind without a probe.
 */
export function createConnectionProbes(deps: ProbeDeps) {
  const now = deps.now ?? Date.now;
  const probes: Record<string, (connection: ResolvedConnection) => Probe> = {
    http: (connection) =>
      connection.config.auth === 'oauth2_client_credentials'
        ? { name: 'oauth2_token', run: (c, signal) => mintToken(deps.tokens, c, signal) }
        : { name: 'http_get', run: (c, signal) => httpStatus(deps.outbound, 'http', c, 'GET', signal) },
    webhook: () => ({ name: 'http_head', run: (c, signal) => httpStatus(deps.outbound, 'webhook', c, 'HEAD', signal) }),
    ssh: () => ({ name: 'ssh_auth', run: probeSsh }),
    email_smtp: () => ({ name: 'smtp_auth', run: probeSmtp }),
    mcp: () => ({ name: 'mcp_tools', run: (c, signal) => mcpTools(deps.outbound, c, signal) }),
  };
  return {
    async probe(connection: ResolvedConnection): Promise<ProbeResult> {
      const make = probes[connection.kind];
      if (!make) throw new DomainError('probe_not_implemented', 501, `connections of kind ${connection.kind} have no probe yet`, { kind: connection.kind });
      const { name, run } = make(connection);
      const started = now();
      const signal = AbortSignal.timeout(deps.timeoutMs);
      const result = (ok: boolean, details: Record<string, unknown>, error: ProbeResult['error']): ProbeResult => ({
        ok,
        kind: connection.kind,
        probe: name,
        latency_ms: Math.max(0, Math.round(now() - started)),
        details,
        error,
      });
      try {
        return result(true, await run(connection, signal), null);
      } catch (error) {
        if (error instanceof ActionFailure) return result(false, {}, { type: error.type, message: error.message });
        if (signal.aborted) return result(false, {}, { type: 'timeout', message: `the probe did not finish within ${deps.timeoutMs} ms` });
        throw error;
      }
    },
  };
}

async function mintToken(tokens: TokenSource, connection: ResolvedConnection, signal: AbortSignal): Promise<Record<string, unknown>> {
  const settings = oauth2Settings('connection test', connection);
  const minted = await tokens.token('connection test', connection, signal, true);
  return { token_host: new URL(settings.tokenUrl).host, token_minted: true, expires_in: minted.expires_in };
}

async function mcpTools(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Record<string, unknown>> {
  const tools = await listRemoteTools(connection, outbound, signal);
  const advertised = new Set(tools.map((t) => t.name));
  const allowed = Array.isArray(connection.config.allowed_tools) ? connection.config.allowed_tools.filter((t): t is string => typeof t === 'string') : [];
  return { host: new URL(connection.base_url ?? '').host, advertised_tools: tools.length, allowed_not_advertised: allowed.filter((t) => !advertised.has(t)) };
}

/** The connection's base URL answered: 5xx fails, and for `http` 401/403 (credential refused); anything else passes. */
async function httpStatus(outbound: OutboundFetch, kind: 'http' | 'webhook', connection: ResolvedConnection, method: 'GET' | 'HEAD', signal: AbortSignal): Promise<Record<string, unknown>> {
  const action = `${kind} connection test`;
  if (!connection.base_url) throw new ActionFailure('connection_invalid', `${action}: connection '${connection.name}' has no base_url`, false);
  const url = joinUrl(action, connection.base_url);
  const auth = kind === 'http' ? httpAuth(connection) : null;
  const headers: Record<string, string> = auth?.kind === 'header' && auth.value !== null ? { [auth.header]: auth.value } : {};
  const response = await sendOutbound(action, outbound, url, { method, headers }, signal);
  await response.body?.cancel();
  const status = response.status;
  // A webhook receiver that verifies signatures refuses the unsigned HEAD: that still shows it is there.
  if (kind === 'http' && (status === 401 || status === 403)) throw new ActionFailure('auth_failed', `${action}: ${url.host} refused the credential with status ${status}`, false);
  if (status >= 500) throw new ActionFailure('http_status', `${action}: ${url.host} answered status ${status}`, true);
  return { host: url.host, status };
}
