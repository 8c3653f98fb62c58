/**
 * A stand-in for the suite's detection product on 127.0.0.1, following the HTTP contract
 * of docs/suite-contracts.md "Detector", for callers whose bearer token the workload
 * exchange minted for audience `detector` with the route's scope (checked through
 * `grantOf`, as a real detector would check the exchange's signature):
 * - `GET /api/v1/alerts?since&limit[&cursor]` (`detector:alerts:read`): `{items,
 *   next_cursor}` from `alerts`, those detected at or after `since`, in order;
 * - `GET /api/v1/alerts/<id>` (`detector:alerts:read`): the alert;
 * - `POST /api/v1/alerts/<id>/comments` (`detector:alerts:write`): `{comment_id}`, one
 *   comment per `Idempotency-Key`;
 * - `POST /api/v1/rules/<id>/snooze` (`detector:rules:write`): `{rule_id, snoozed_until}`;
 * - `POST /api/v1/rules/<id>/exceptions` (`detector:exceptions:write`): `exceptionAnswer`.
 * Anything else is 401, 403 or 404 with the detector's `{detail}`; `failure` overrides
 * every authorized answer.
 */
import type { ServerResponse } from 'node:http';
import { startReceiver, type Received } from './receiver.ts';

export type DetectorServer = Awaited<ReturnType<typeof startDetectorServer>>;

type Grant = { audience: string | null; scope: string | null } | null;

/** A changing call the detector accepted. */
export type DetectorChange = { method: string; path: string; idempotencyKey: string | null; body: unknown };

/** Starts the detector holding `alerts` (native shape, with `detected_at`); `grantOf` tells what a token was minted for. */
export async function startDetectorServer(alerts: Record<string, unknown>[], grantOf: (token: string) => Grant) {
  const state = {
    alerts,
    /** When set, every authorized request is answered with this instead. */
    failure: null as { status: number; body: unknown } | null,
    /** Every alerts list request that was authorized, with its query. */
    pages: [] as { since: string | null; limit: number; cursor: string | null }[],
    changes: [] as DetectorChange[],
    /** Comment ids by Idempotency-Key. */
    comments: new Map<string, string>(),
    exceptionAnswer: { status: 201, body: { outcome: 'applied', exception_id: 'exc-1' } as unknown },
  };
  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const routes: { method: string; pattern: RegExp; scope: string; answer: (req: Received, url: URL, id: string, res: ServerResponse) => void }[] = [
    { method: 'GET', pattern: /^\/api\/v1\/alerts$/, scope: 'detector:alerts:read', answer: (_req, url, _id, res) => list(url, res) },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/alerts\/([^/]+)$/,
      scope: 'detector:alerts:read',
      answer: (_req, _url, id, res) => {
        const alert = state.alerts.find((a) => a.alert_id === id);
        return alert ? json(res, 200, alert) : json(res, 404, { detail: `alert ${id} not found` });
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/alerts\/([^/]+)\/comments$/,
      scope: 'detector:alerts:write',
      answer: (req, _url, id, res) => {
        const key = String(req.headers['idempotency-key'] ?? Math.random());
        if (!state.comments.has(key)) state.comments.set(key, `cmt-${id}-${state.comments.size + 1}`);
        json(res, 201, { comment_id: state.comments.get(key) });
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/rules\/([^/]+)\/snooze$/,
      scope: 'detector:rules:write',
      answer: (req, _url, id, res) =>
        json(res, 200, {
          rule_id: id,
          snoozed_until: new Date(Date.now() + Number((JSON.parse(req.body) as { duration_s: number }).duration_s) * 1000).toISOString(),
        }),
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/rules\/([^/]+)\/exceptions$/,
      scope: 'detector:exceptions:write',
      answer: (_req, _url, _id, res) => json(res, state.exceptionAnswer.status, state.exceptionAnswer.body),
    },
  ];

  const list = (url: URL, res: ServerResponse) => {
    const since = url.searchParams.get('since');
    const limit = Number(url.searchParams.get('limit'));
    const cursor = url.searchParams.get('cursor');
    state.pages.push({ since, limit, cursor });
    const matching = state.alerts.filter((a) => since === null || Date.parse(String(a.detected_at)) >= Date.parse(since));
    const offset = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    const items = matching.slice(offset, offset + limit);
    const next = offset + items.length < matching.length ? Buffer.from(String(offset + items.length)).toString('base64url') : null;
    json(res, 200, { items, next_cursor: next });
  };

  const respond = (req: Received, res: ServerResponse) => {
    const url = new URL(req.path, 'http://detector');
    const method = req.method;
    const route = routes.map((r) => ({ r, m: r.method === method ? r.pattern.exec(url.pathname) : null })).find((x) => x.m !== null);
    if (!route?.m) return json(res, 404, { detail: 'no such route' });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = token ? grantOf(token) : null;
    if (!grant) return json(res, 401, { detail: 'invalid or expired token' });
    if (grant.audience !== 'detector' || !(grant.scope ?? '').split(' ').includes(route.r.scope))
      return json(res, 403, { detail: `token lacks ${route.r.scope}` });
    if (state.failure) return json(res, state.failure.status, state.failure.body);
    if (method === 'POST')
      state.changes.push({
        method,
        path: url.pathname,
        idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
        body: JSON.parse(req.body || 'null'),
      });
    route.r.answer(req, url, decodeURIComponent(route.m[1] ?? ''), res);
  };
  const receiver = await startReceiver(respond);
  return Object.assign(state, { url: receiver.url, received: receiver.received, close: receiver.close });
}
