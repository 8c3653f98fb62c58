/**
 * A stand-in for the ban list's Local API as a bouncer reads it (CrowdSec's
 * `GET /v1/decisions`, shared/fixtures/vendors/crowdsec): the bouncer key in `X-Api-Key`
 * (else 403 `{"message":"access forbidden"}`), filters `ip` (an address matches a ban on
 * it and a range holding it; a range matches a ban on that range) and `type`, and the
 * answer is the list of matching decisions `{duration, id, origin, scenario, scope, type,
 * value}` or the JSON `null` when none matches. Simulated decisions are never shown to a
 * bouncer. It reads the decisions the `cscli` stand-in keeps, so a ban added over ssh is
 * what the http read sees, as on a real host.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';

export type LapiDecision = {
  id: number;
  value: string;
  scope?: string;
  scenario: string;
  duration: string;
  type: string;
  origin?: string;
  simulated?: boolean;
};

export type LapiStandIn = {
  url: string;
  /** The query strings of every read so far. */
  reads: () => string[];
  close: () => Promise<void>;
};

const covers = (decision: string, asked: string): boolean => {
  if (decision === asked) return true;
  try {
    const address = ipaddr.parse(asked);
    const [network, bits] = ipaddr.parseCIDR(decision);
    return address.kind() === network.kind() && address.match(network, bits);
  } catch {
    return false;
  }
};

export async function startLapiStandIn(options: { key: string; decisions: () => LapiDecision[] }): Promise<LapiStandIn> {
  const reads: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://lapi');
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.headers['x-api-key'] !== options.key) return answer(403, { message: 'access forbidden' });
    if (req.method !== 'GET' || url.pathname !== '/v1/decisions') return answer(404, { message: 'not found' });
    reads.push(url.search);
    const ip = url.searchParams.get('ip');
    const type = url.searchParams.get('type');
    const matching = options
      .decisions()
      .filter((d) => d.simulated !== true && (ip === null || covers(d.value, ip)) && (type === null || d.type === type))
      .map((d) => ({
        duration: d.duration,
        id: d.id,
        origin: d.origin ?? 'cscli',
        scenario: d.scenario,
        scope: d.scope ?? (d.value.includes('/') ? 'Range' : 'Ip'),
        type: d.type,
        value: d.value,
      }));
    answer(200, matching.length === 0 ? null : matching);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    reads: () => [...reads],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
