/**
 * The service's one outbound HTTP edge (SPEC.md "Authentication", secrets paragraph): a
 * fetch that refuses link-local, private and metadata addresses (address-policy.ts),
 * except configured suite peer hosts and the exact identity exchange origin, unless
 * development turned the check off (SVC_ALLOW_PRIVATE_TARGETS).
 *
 * The check sits in the undici connector, where every new connection is made: it
 * resolves the name itself (all answers), refuses when ANY answer is not public (a name
 * with one private answer is a rebinding or split-horizon risk, not a reachable public
 * host), and hands the socket exactly the address it checked, so a second DNS answer
 * cannot slip in between check and connect. IP literals (which never reach a DNS lookup)
 * are checked there too, and also before dispatch. Each redirect hop to a new origin
 * opens a new connection, so hops are checked as well when a caller follows redirects
 * (the Fetch standard's limit of 20 hops applies; the actions never follow them).
 */
import { lookup } from 'node:dns/promises';
import { isIP, isIPv6 } from 'node:net';
import type { Agent, fetch as UndiciFetch, RequestInit as UndiciRequestInit } from 'undici';
import { classifyAddress, OutboundRefusedError } from './address-policy.ts';
import { trustedCa } from './trusted-ca.ts';

export { OutboundRefusedError } from './address-policy.ts';

/** The fetch the actions call; the runtime passes an SSRF-guarded one (SPEC.md "Authentication"). */
export type OutboundFetch = (url: string, init: RequestInit) => Promise<Response>;

export type GuardedFetchOptions = {
  /** Skip the address check entirely (development: SVC_ALLOW_PRIVATE_TARGETS). */
  allowPrivate: boolean;
  /** `host[:port]` entries whose connections skip the address check (SVC_SUITE_PEER_HOSTS); no port: the scheme's default. */
  allowedHosts: readonly string[];
  /** The exact origin (`https://id.example:8443`) of the identity service's token exchange, which skips the check; null: none. */
  exchangeOrigin: string | null;
  /** PEM certificates trusted for HTTPS besides Node's bundled roots (SVC_OUTBOUND_CA_FILE: a private PKI); omitted: the bundled roots only. */
  extraCa?: string;
};

/** An OutboundFetch with its connection pool, closed on shutdown. */
export type GuardedFetch = OutboundFetch & { close: () => Promise<void> };

type HostEntry = { hostname: string; port: number | null };
type Target = { protocol: string; hostname: string; port: string };

const HOST_ENTRY = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/\\[\]@?#]+)(?::(\d{1,5}))?$/;

/**
 * Whether `entry` is a `host[:port]` peer host entry (a name or IP literal, IPv6 in
 * brackets, port 1-65535).
 * @example isHostEntry('detector.internal:8443') // true
 */
export function isHostEntry(entry: string): boolean {
  return parseHostEntry(entry) !== null;
}

/**
 * Builds the guarded fetch. The returned function has the fetch signature; a refused
 * target rejects with an OutboundRefusedError (before dispatch: a scheme other than
 * http/https, or a refused IP literal) or a TypeError whose `cause` is one (refused at
 * connect time, e.g. a name resolving to 127.0.0.1 or a redirect hop). Throws an Error
 * for a malformed `allowedHosts` entry or `exchangeOrigin`.
 * @example const outbound = createGuardedFetch({ allowPrivate: false, allowedHosts: ['detector.internal:8443'], exchangeOrigin: null });
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const peers = options.allowedHosts.map((entry) => {
    const parsed = parseHostEntry(entry);
    if (!parsed) throw new Error('a peer host entry is not host[:port]');
    return parsed;
  });
  const exchangeOrigin = options.exchangeOrigin === null ? null : new URL(options.exchangeOrigin).origin;
  const exempt = (target: Target) => options.allowPrivate || isPeer(peers, target) || originOf(target) === exchangeOrigin;
  const ca = trustedCa(options.extraCa ?? null);
  // undici (a megabyte of code) is loaded with the first outbound call, not at every start
  // (docs/operations.md "The compiled build").
  let client: Promise<{ agent: Agent; fetch: typeof UndiciFetch }> | null = null;
  const open = () =>
    // Its default export: undici is CommonJS, and the compiled bundle gives a CommonJS
    // package imported on demand no named exports.
    (client ??= import('undici').then(({ default: { Agent, buildConnector, fetch } }) => {
      const base = buildConnector(ca === undefined ? {} : { ca });
      const agent = new Agent({
        connect: (connectOptions, callback) => {
          const target = { protocol: connectOptions.protocol, hostname: connectOptions.hostname, port: connectOptions.port };
          resolveChecked(target, exempt(target)).then(
            (address) => base(address === null ? connectOptions : { ...connectOptions, hostname: address }, callback),
            (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
          );
        },
      });
      return { agent, fetch };
    }));
  const guarded = async (url: string, init: RequestInit): Promise<Response> => {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new OutboundRefusedError(parsed.protocol, 'is not an allowed scheme (http and https only)');
    }
    const target = { protocol: parsed.protocol, hostname: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: parsed.port };
    if (isIP(target.hostname) !== 0 && !exempt(target)) refuseLiteral(target.hostname);
    const { agent, fetch } = await open();
    const response = await fetch(url, { ...(init as UndiciRequestInit), dispatcher: agent });
    // undici's Response implements the same Fetch interface as the global one.
    return response as unknown as Response;
  };
  return Object.assign(guarded, { close: async () => (client === null ? undefined : (await client).agent.close()) });
}

/**
 * The address the socket must connect to: null to connect as asked (exempt target),
 * else the checked literal or the first of the checked DNS answers.
 * Throws an OutboundRefusedError when the literal or any answer is not public.
 */
async function resolveChecked(target: Target, exempt: boolean): Promise<string | null> {
  if (exempt) return null;
  if (isIP(target.hostname) !== 0) {
    refuseLiteral(target.hostname);
    return target.hostname;
  }
  const answers = await lookup(target.hostname, { all: true, verbatim: true });
  for (const answer of answers) {
    const verdict = classifyAddress(answer.address);
    if (!verdict.allowed) throw new OutboundRefusedError(target.hostname, `resolves to a non-public address (${verdict.range})`);
  }
  const first = answers[0];
  if (!first) throw new OutboundRefusedError(target.hostname, 'has no address');
  return first.address;
}

function refuseLiteral(address: string): void {
  const verdict = classifyAddress(address);
  if (!verdict.allowed) throw new OutboundRefusedError(isIPv6(address) ? `[${address}]` : address, `is a non-public address (${verdict.range})`);
}

function parseHostEntry(entry: string): HostEntry | null {
  const match = HOST_ENTRY.exec(entry.trim());
  const host = match?.[1];
  if (!match || !host) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  try {
    return { hostname: new URL(`http://${host}`).hostname, port };
  } catch {
    return null;
  }
}

const defaultPort = (protocol: string) => (protocol === 'https:' ? 443 : 80);

function isPeer(peers: HostEntry[], target: Target): boolean {
  const hostname = new URL(`http://${bracketed(target.hostname)}`).hostname;
  const port = target.port === '' ? defaultPort(target.protocol) : Number(target.port);
  return peers.some((p) => p.hostname === hostname && (p.port ?? defaultPort(target.protocol)) === port);
}

function originOf(target: Target): string {
  return new URL(`${target.protocol}//${bracketed(target.hostname)}${target.port === '' ? '' : `:${target.port}`}`).origin;
}

const bracketed = (hostname: string) => (isIPv6(hostname) ? `[${hostname}]` : hostname);
