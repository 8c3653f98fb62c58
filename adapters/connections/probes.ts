/**
 * `POST /connections/<id>/test` (SPEC.md "Actions and connections"): a non-effectful
 * probe for every connection kind. Nothing is sent that a peer would act on:
 * - `http`, oauth2: mints a fresh token at `token_url` (and caches it for the actions);
 *   header auth: a GET of `base_url` with the credential; 401/403 and 5xx fail.
 * - `webhook`: a HEAD of `base_url` without signing anything (a POST would deliver); any
 *   answer below 500 shows the receiver is reachable.
 * - `ssh`: connect, host-key check and key authentication, then close; no channel.
 * - `email_smtp`: connect, TLS as configured and AUTH, then QUIT; no mail.
 * - `mcp`: initialize and `tools/list` (every page), then close; no tool is called. Reports
 *   the allowlisted tools the server does not advertise.
 * - `detector`, `pipeline`: the read their adapters make, one item at most (suite-probes.ts).
 * - `chat_a`, `ticket_a`, `ticket_b`, `pager_b`: one read call of the vendor API with the
 *   stored credential; `chat_b` and `pager_a`, whose credential can only deliver, a check of
 *   the credential's form and an unsigned HEAD of `base_url` (vendor-probes.ts).
 * - `imap`: connect, TLS as configured, LOGIN, LOGOUT (imap-probe.ts).
 * - `mailbox_graph`: an app-only Graph token and a read of the mailbox's inbox folder (graph-probe.ts).
 * - `object_storage`: a SigV4-signed ListObjectsV2 of at most one key (s3-probe.ts).
 * Every HTTP probe goes through the guarded edge; failures carry the ActionFailure's
 * type and message, which name host and status, never a secret.
 */
import * as v from 'valibot';
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { httpAuth } from '../actions/http-request.ts';
import { probeSmtp } from '../actions/notify-email.ts';
import { oauth2Settings, type TokenSource } from '../actions/oauth2-token.ts';
import { joinUrl, type OutboundFetch } from '../actions/outbound-http.ts';
import { probeSsh } from '../actions/ssh-command.ts';
import type { DetectorClient } from '../detector/client.ts';
import type { ExchangeClient } from '../exchange/client.ts';
import { listRemoteTools, toolAuthority } from '../mcp/remote-tools.ts';
import { probeMailboxGraph } from './graph-probe.ts';
import { type ConnectionKind, isConnectionKind } from './kinds.ts';
import { probeImap } from './imap-probe.ts';
import { probeStatus } from './probe-http.ts';
import { probeObjectStorage } from './s3-probe.ts';
import { probeDetector, probePipeline } from './suite-probes.ts';
import { probeChatA, probeChatB, probePagerA, probePagerB, probeTicketA, probeTicketB } from './vendor-probes.ts';
import { systemClock } from '../shared/clock.ts';

/** What a probe reports: `ok`, the kind-specific facts it checked, and on failure the error's type and message. */
export const probeResultSchema = v.strictObject({
  ok: v.boolean(),
  kind: v.string(),
  probe: v.string(),
  latency_ms: v.pipe(v.number(), v.integer()),
  details: v.record(v.string(), v.unknown()),
  error: v.nullable(v.strictObject({ type: v.string(), message: v.string() })),
});

export type ProbeResult = v.InferOutput<typeof probeResultSchema>;

/** The guarded edge, the oauth2 token source, the workload exchange and detector client (for `detector`), the probe deadline in ms, and the clock in epoch ms. */
export type ProbeDeps = {
  outbound: OutboundFetch;
  tokens: TokenSource;
  exchange: ExchangeClient;
  detector: DetectorClient;
  timeoutMs: number;
  now?: () => number;
  /** SVC_OUTBOUND_CA_FILE's PEM text: IMAP and SMTP probes trust it besides Node's roots. */
  extraCa?: string | null;
};

export type ConnectionProbes = ReturnType<typeof createConnectionProbes>;

type Probe = { name: string; run: (connection: ResolvedConnection, signal: AbortSignal) => Promise<Record<string, unknown>> };

/**
 * The probe runner, one probe per kind of `connectionKinds`. `probe` never throws for a
 * failing peer (that is `ok: false`). A stored kind outside that list is a fault (an
 * Error, answered 500): no request stores one, so only a hand-made row holds it.
 */
export function createConnectionProbes(deps: ProbeDeps) {
  const now = deps.now ?? (() => systemClock().getTime());
  const probes: Record<ConnectionKind, (connection: ResolvedConnection) => Probe> = {
    http: (connection) =>
      connection.config.auth === 'oauth2_client_credentials'
        ? { name: 'oauth2_token', run: (c, signal) => mintToken(deps.tokens, c, signal) }
        : { name: 'http_get', run: (c, signal) => httpStatus(deps.outbound, 'http', c, 'GET', signal) },
    webhook: () => ({ name: 'http_head', run: (c, signal) => httpStatus(deps.outbound, 'webhook', c, 'HEAD', signal) }),
    ssh: () => ({ name: 'ssh_auth', run: probeSsh }),
    email_smtp: () => ({ name: 'smtp_auth', run: (c, signal) => probeSmtp(c, signal, deps.extraCa ?? null) }),
    mcp: () => ({ name: 'mcp_tools', run: (c, signal) => mcpTools(deps.outbound, c, signal) }),
    detector: () => ({ name: 'detector_alerts', run: (c, signal) => probeDetector(deps.exchange, deps.detector, c, now(), signal) }),
    pipeline: () => ({ name: 'deploy_requests', run: (c, signal) => probePipeline(deps.outbound, c, signal) }),
    chat_a: () => ({ name: 'auth_test', run: (c, signal) => probeChatA(deps.outbound, c, signal) }),
    chat_b: () => ({ name: 'webhook_origin_head', run: (c, signal) => probeChatB(deps.outbound, c, signal) }),
    ticket_a: () => ({ name: 'myself', run: (c, signal) => probeTicketA(deps.outbound, c, signal) }),
    ticket_b: () => ({ name: 'table_read', run: (c, signal) => probeTicketB(deps.outbound, c, signal) }),
    pager_a: () => ({ name: 'routing_key_head', run: (c, signal) => probePagerA(deps.outbound, c, signal) }),
    pager_b: () => ({ name: 'account_read', run: (c, signal) => probePagerB(deps.outbound, c, signal) }),
    imap: () => ({ name: 'imap_auth', run: (c, signal) => probeImap(c, signal, deps.extraCa ?? null) }),
    mailbox_graph: () => ({ name: 'graph_mailbox_read', run: (c, signal) => probeMailboxGraph(deps.outbound, deps.tokens, c, signal) }),
    object_storage: () => ({ name: 's3_list_objects', run: (c, signal) => probeObjectStorage(deps.outbound, c, signal) }),
  };
  return {
    async probe(connection: ResolvedConnection): Promise<ProbeResult> {
      if (!isConnectionKind(connection.kind)) throw new Error(`connection '${connection.name}' has the kind '${connection.kind}', which SPEC.md does not list`);
      const { name, run } = probes[connection.kind](connection);
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
  const { allowed } = toolAuthority(connection);
  return { host: new URL(connection.base_url ?? '').host, advertised_tools: tools.length, allowed_not_advertised: allowed.filter((t) => !advertised.has(t)) };
}

/** The connection's base URL answered: 5xx fails, and for `http` 401/403 (credential refused); anything else passes. */
async function httpStatus(
  outbound: OutboundFetch,
  kind: 'http' | 'webhook',
  connection: ResolvedConnection,
  method: 'GET' | 'HEAD',
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const action = `${kind} connection test`;
  if (!connection.base_url) throw new ActionFailure('connection_invalid', `${action}: connection '${connection.name}' has no base_url`, false);
  const url = joinUrl(action, connection.base_url);
  const auth = kind === 'http' ? httpAuth(connection, action) : null;
  const headers: Record<string, string> = auth?.kind === 'header' && auth.value !== null ? { [auth.header]: auth.value } : {};
  // A webhook receiver that verifies signatures refuses the unsigned HEAD: that still shows it is there.
  return probeStatus(action, outbound, url, { method, headers }, signal, kind === 'http');
}
