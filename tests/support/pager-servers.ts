/**
 * Local stand-ins for the two paging products' public APIs, on 127.0.0.1, that check a
 * request the way the vendor documents it and answer in the vendor's shape:
 * - pager_a (PagerDuty Events API v2): `POST /v2/enqueue`, JSON with a 32-character
 *   `routing_key`, `event_action` of trigger/acknowledge/resolve, and on trigger a
 *   `payload` with `summary` (at most 1024), `source` and a `severity` of
 *   critical/error/warning/info; answers 202 `{status, message, dedup_key}` or 400
 *   `{status: "invalid event", message, errors}`; any other request (such as the
 *   connection probe's HEAD) is answered 400 like an invalid event and changes nothing.
 * - pager_b (Opsgenie Alert API): `POST /v2/alerts` with `Authorization: GenieKey <key>`
 *   and a `message` of at most 130 characters; answers 202 `{result, took, requestId}`,
 *   401 for a wrong key, 422 for a bad body, and 422 for the alias `refuseAlias` (a
 *   refusal the service cannot foresee, as for unknown responders); and `GET /v2/account`
 *   (the connection probe's read) with the same key, 200 `{data: {name, userCount, plan},
 *   took, requestId}`.
 */
import { randomUUID } from 'node:crypto';
import { startReceiver, type Received } from './receiver.ts';

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

export async function startPagerAServer() {
  const problems = (r: Received): string[] => {
    if (r.method !== 'POST' || r.path !== '/v2/enqueue') return [`unexpected ${r.method} ${r.path}`];
    if (!String(r.headers['content-type']).startsWith('application/json')) return ['content-type must be application/json'];
    const body = JSON.parse(r.body) as Record<string, any>;
    const errors: string[] = [];
    if (typeof body.routing_key !== 'string' || body.routing_key.length !== 32) errors.push('routing_key must be a 32 character integration key');
    if (!['trigger', 'acknowledge', 'resolve'].includes(body.event_action)) errors.push('event_action is invalid');
    if (body.event_action !== 'trigger' && typeof body.dedup_key !== 'string') errors.push('dedup_key is required for acknowledge and resolve');
    if (body.event_action === 'trigger') {
      const p = body.payload ?? {};
      if (typeof p.summary !== 'string' || p.summary.length > 1024) errors.push('Length of summary is too long or missing');
      if (typeof p.source !== 'string') errors.push('payload.source is missing');
      if (!['critical', 'error', 'warning', 'info'].includes(p.severity)) errors.push('payload.severity is invalid');
    }
    return errors;
  };
  return startReceiver((r, res) => {
    const errors = problems(r);
    if (errors.length > 0) return json(res, 400, { status: 'invalid event', message: 'Event object is invalid', errors });
    const body = JSON.parse(r.body) as { dedup_key?: string };
    json(res, 202, { status: 'success', message: 'Event processed', dedup_key: body.dedup_key ?? randomUUID().replaceAll('-', '') });
  });
}

export async function startPagerBServer(apiKey: string, refuseAlias: string | null = null) {
  return startReceiver((r, res) => {
    if (r.method === 'GET' && r.path === '/v2/account') {
      if (r.headers.authorization !== `GenieKey ${apiKey}`) return json(res, 401, { message: 'Could not authenticate', took: 0.001, requestId: randomUUID() });
      return json(res, 200, {
        data: { name: 'svc-test', userCount: 3, plan: { maxUserCount: 5, name: 'Essentials', isYearly: true } },
        took: 0.002,
        requestId: randomUUID(),
      });
    }
    if (r.method !== 'POST' || r.path !== '/v2/alerts')
      return json(res, 404, { message: 'Could not find requested resource', took: 0.001, requestId: randomUUID() });
    if (r.headers.authorization !== `GenieKey ${apiKey}`) return json(res, 401, { message: 'Could not authenticate', took: 0.001, requestId: randomUUID() });
    const body = JSON.parse(r.body) as { message?: unknown; alias?: unknown; priority?: unknown };
    const valid =
      typeof body.message === 'string' &&
      body.message.length <= 130 &&
      (body.priority === undefined || /^P[1-5]$/.test(String(body.priority))) &&
      body.alias !== refuseAlias;
    if (!valid)
      return json(res, 422, {
        message: 'Request body is not processable. Please check the errors.',
        errors: { message: 'Message can not be empty or longer than 130 characters' },
        took: 0.001,
        requestId: randomUUID(),
      });
    json(res, 202, { result: 'Request will be processed', took: 0.302, requestId: randomUUID() });
  });
}
