/**
 * `svc dev gateway`: a local reverse proxy that plays the suite's gateway in dev
 * identity mode, minting a request-bound assertion per request (CONTRACTS.md
 * sections 2 and 4).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type RequestOptions,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream';
import { pathBelow } from '../../adapters/http/auth.ts';
import { devAssertionClaims, devAssertionTtlSeconds } from '../../adapters/identity/dev-claims.ts';
import { mintDevToken, type DevIdentity } from '../../adapters/identity/dev-identity.ts';
import type { Grant } from '../../adapters/identity/principal.ts';
import { devPerson, loadDevIdentity } from './dev-token.ts';

export type DevGatewayOptions = {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The service's origin, optionally with a path prefix; http only. */
  target: URL;
  /** SVC_BASE_PATH of the service: stripped from the forwarded path to compute `htu`. */
  basePath: string;
  audience: string;
  identity: DevIdentity;
  person: { email: string; name: string; grants: Grant[] };
};

export type DevGateway = { url: string; close: () => Promise<void> };

// RFC 9110 section 7.6.1 connection-specific fields, never forwarded by a proxy.
const hopByHop = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/**
 * Starts the gateway: each request is forwarded to `target` with its method, path,
 * query, body and headers, minus `Authorization`, `Host` and hop-by-hop headers,
 * plus `Authorization: Bearer <assertion>` freshly minted for `person` (new `jti`,
 * 60 s lifetime, `htm` the method, `htu` the path below `basePath`). The answer is
 * streamed back; an unreachable target answers 502. A WebSocket upgrade (the console's
 * `WS /ws`) is forwarded the same way, with its assertion bound to `GET`, and once the
 * service switches protocols the two sockets are joined; a refused upgrade's answer is
 * passed back as it came.
 *
 * @example const gw = await startDevGateway({ host: '127.0.0.1', port: 0, ... }); await fetch(`${gw.url}/auth/me`)
 */
export async function startDevGateway(options: DevGatewayOptions): Promise<DevGateway> {
  if (options.target.protocol !== 'http:') throw new Error('--target must be an http:// URL');
  const prefix = options.target.pathname.replace(/\/+$/, '');

  /**
   * The request to the target for `req` sent as `method`: its path below the target's
   * prefix, the client's headers minus `Authorization`, `Host` and hop-by-hop ones, and a
   * fresh assertion bound to `method` and that path.
   */
  const signedRequest = async (req: IncomingMessage, method: string): Promise<RequestOptions & { headers: OutgoingHttpHeaders }> => {
    // Parsed against a dummy origin only to normalize the path the same way the service's URL parsing does.
    const incoming = new URL(req.url ?? '/', 'http://gateway.invalid');
    const path = `${prefix}${incoming.pathname}`;
    const claims = devAssertionClaims(options.person, { method, path: pathBelow(path, options.basePath) });
    const assertion = await mintDevToken(options.identity, claims, { audience: options.audience, ttlSeconds: devAssertionTtlSeconds });
    return {
      hostname: options.target.hostname,
      port: options.target.port,
      method,
      path: `${path}${incoming.search}`,
      headers: { ...forwardable(req.headers, ['authorization', 'host']), authorization: `Bearer ${assertion}` },
    };
  };

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const upstream = httpRequest(await signedRequest(req, req.method ?? 'GET'), (answer) => {
      // The browser may have gone (a page left mid-request); since Node 24, piping into its
      // closed response throws instead of calling back with the error.
      if (res.destroyed) {
        answer.resume();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, forwardable(answer.headers, []));
      pipeline(answer, res, () => undefined);
    });
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy(error);
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`dev gateway: ${options.target.origin} unreachable: ${error.message}\n`);
    });
    pipeline(req, upstream, () => undefined);
  };

  const forwardUpgrade = async (req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> => {
    const request = await signedRequest(req, 'GET');
    const upstream = httpRequest({ ...request, headers: { ...request.headers, connection: 'Upgrade', upgrade: req.headers.upgrade ?? 'websocket' } });
    upstream.on('upgrade', (answer, service: Socket, serviceHead) => {
      const headers: [string, string][] = [];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) headers.push([answer.rawHeaders[i] ?? '', answer.rawHeaders[i + 1] ?? '']);
      client.write(responseHead(answer.statusCode ?? 101, answer.statusMessage ?? 'Switching Protocols', headers));
      if (serviceHead.length > 0) client.write(serviceHead);
      if (head.length > 0) service.write(head);
      service.on('error', () => client.destroy());
      client.on('error', () => service.destroy());
      service.pipe(client).pipe(service);
    });
    upstream.on('response', (answer) => {
      const headers = Object.entries(forwardable(answer.headers, [])).map(([name, value]): [string, string] => [name, String(value)]);
      client.write(responseHead(answer.statusCode ?? 502, answer.statusMessage ?? '', [...headers, ['connection', 'close']]));
      pipeline(answer, client, () => undefined);
    });
    upstream.on('error', (error) =>
      client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\ndev gateway: ${error.message}\n`),
    );
    upstream.end();
  };

  const server = createServer((req, res) => {
    forward(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`dev gateway: ${(error as Error).message}\n`);
    });
  });
  server.on('upgrade', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => undefined);
    forwardUpgrade(req, client, head).catch((error: unknown) =>
      client.end(`HTTP/1.1 500 Internal Server Error\r\nconnection: close\r\n\r\ndev gateway: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The options of `svc dev gateway`, as the command line parsed them (runtime/cli/main.ts). */
export type DevGatewayArgs = { host: string; port: number; target: string; email?: string; name?: string; grant?: string[] };

/**
 * Checks the options of `svc dev gateway [--host 127.0.0.1] [--port 8081]
 * [--target http://127.0.0.1:8080] --email E [--name N] --grant role[:team] [--grant ...]`.
 * `--name` defaults to the email's local part.
 *
 * @throws Error on an invalid port, target, email or grant.
 */
export function parseDevGatewayArgs(args: DevGatewayArgs): Omit<DevGatewayOptions, 'identity' | 'audience' | 'basePath'> {
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65_535) throw new Error('--port must be a port number');
  let target: URL;
  try {
    target = new URL(args.target);
  } catch {
    throw new Error('--target must be a URL such as http://127.0.0.1:8080');
  }
  const person = devPerson(args);
  return { host: args.host, port: args.port, target, person: { ...person, name: args.name ?? person.email.split('@')[0] ?? person.email } };
}

/**
 * Runs `svc dev gateway` (see parseDevGatewayArgs) with the dev identity of `env`
 * (`SVC_DATA_DIR`, `SVC_AUDIENCE`, `SVC_BASE_PATH`) until SIGINT or SIGTERM.
 *
 * @throws Error on invalid options, when dev identity is refused, or when the port is taken.
 */
export async function runDevGateway(args: DevGatewayArgs, env: NodeJS.ProcessEnv): Promise<void> {
  const parsed = parseDevGatewayArgs(args);
  const { identity, audience } = await loadDevIdentity(env);
  const gateway = await startDevGateway({ ...parsed, identity, audience, basePath: env.SVC_BASE_PATH ?? '' });
  process.stderr.write(`dev gateway ${gateway.url} -> ${parsed.target.origin} as ${parsed.person.email} (dev identity, not for production)\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void gateway.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** The status line and header lines of a raw HTTP/1.1 answer written to an upgrade's socket, ending with the blank line. */
function responseHead(status: number, message: string, headers: [string, string][]): string {
  return `${[`HTTP/1.1 ${status} ${message}`, ...headers.map(([name, value]) => `${name}: ${value}`)].join('\r\n')}\r\n\r\n`;
}

/** `headers` without hop-by-hop fields, the fields the Connection header names, and `drop`. */
function forwardable(headers: IncomingHttpHeaders, drop: string[]): IncomingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase());
  const skip = new Set([...hopByHop, ...named, ...drop]);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !skip.has(name)));
}
