/**
 * A stand-in for the suite's detection product on 127.0.0.1, following the HTTP contract
 * of docs/suite-contracts.md "Detector": `GET /api/v1/alerts?since&limit[&cursor]` answers
 * `{items, next_cursor}` from `alerts` (those detected at or after `since`, in order), to
 * callers whose bearer token the workload exchange minted for audience `detector` with
 * scope `detector:alerts:read` (checked through `grantOf`, as a real detector would check
 * the exchange's signature). Anything else is 401, 403 or 404 in the detector's error shape.
 */
import type { ServerResponse } from 'node:http';
import { startReceiver, type Received } from './receiver.ts';

export type DetectorServer = Awaited<ReturnType<typeof startDetectorServer>>;

type Grant = { audience: string | null; scope: string | null } | null;

/** Starts the detector holding `alerts` (native shape, with `detected_at`); `grantOf` tells what a token was minted for. */
export async function startDetectorServer(alerts: Record<string, unknown>[], grantOf: (token: string) => Grant) {
  const state = {
    alerts,
    /** When set, the alerts list answers this instead. */
    failure: null as { status: number; body: unknown } | null,
    /** Every alerts list request that was authorized, with its query. */
    pages: [] as { since: string | null; limit: number; cursor: string | null }[],
  };
  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const respond = (req: Received, res: ServerResponse) => {
    const url = new URL(req.path, 'http://detector');
    if (url.pathname !== '/api/v1/alerts') return json(res, 404, { detail: 'no such route' });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = token ? grantOf(token) : null;
    if (!grant) return json(res, 401, { detail: 'invalid or expired token' });
    if (grant.audience !== 'detector' || !(grant.scope ?? '').split(' ').includes('detector:alerts:read')) return json(res, 403, { detail: 'token lacks detector:alerts:read' });
    const since = url.searchParams.get('since');
    const limit = Number(url.searchParams.get('limit'));
    const cursor = url.searchParams.get('cursor');
    state.pages.push({ since, limit, cursor });
    if (state.failure) return json(res, state.failure.status, state.failure.body);
    const matching = state.alerts.filter((a) => since === null || Date.parse(String(a.detected_at)) >= Date.parse(since));
    const offset = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    const items = matching.slice(offset, offset + limit);
    const next = offset + items.length < matching.length ? Buffer.from(String(offset + items.length)).toString('base64url') : null;
    json(res, 200, { items, next_cursor: next });
  };
  const receiver = await startReceiver(respond);
  return Object.assign(state, { url: receiver.url, received: receiver.received, close: receiver.close });
}
