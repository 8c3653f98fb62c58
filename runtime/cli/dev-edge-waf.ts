/**
 * `svc dev edge-waf [--port 8787] [--token <t>]`: serves (and prints each answer it sends:
 * method, path, status) the local stand-in of the
 * Cloudflare API v4 IP Access Rules (dev-standins/edge-waf.ts; SPEC.md "Managed
 * containment actions", "Shipped adapter packs": edge_waf) on 127.0.0.1 until SIGINT or
 * SIGTERM, to point an `http` connection with bearer auth at.
 *
 * The bearer token is `--token`, else the environment's SVC_DEV_EDGE_WAF_TOKEN; with
 * neither it refuses to start (no built-in secret). Throws on a bad port or no token, which
 * `svc` prints as `svc: <message>` with exit status 1.
 */
import { startEdgeWafStandIn, ZONE_RULES_PATH } from './dev-standins/edge-waf.ts';

/** The options of `svc dev edge-waf`: a port (0 picks a free one) and the token. Throws an Error saying what is wrong. */
export function parseDevEdgeWafArgs(values: { port: number; token?: string }, env: NodeJS.ProcessEnv): { port: number; token: string } {
  const port = values.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (0 to 65535), not ${JSON.stringify(port)}`);
  const token = values.token ?? env.SVC_DEV_EDGE_WAF_TOKEN ?? '';
  if (token === '') {
    throw new Error('a token is required (--token, or SVC_DEV_EDGE_WAF_TOKEN), the bearer token the stand-in accepts');
  }
  return { port, token };
}

/** Runs `svc dev edge-waf`: prints one line with the stand-in's URL and the zone rules path, and serves until SIGINT or SIGTERM. */
export async function runDevEdgeWaf(values: { port: number; token?: string }, env: NodeJS.ProcessEnv): Promise<void> {
  const { port, token } = parseDevEdgeWafArgs(values, env);
  const standIn = await startEdgeWafStandIn({ port, host: '127.0.0.1', token, onAnswer: (a) => process.stdout.write(`${JSON.stringify(a)}\n`) });
  process.stdout.write(`edge-waf stand-in (Cloudflare API v4 IP Access Rules) listening on ${standIn.url}: rules at ${standIn.url}${ZONE_RULES_PATH}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await standIn.close();
}
