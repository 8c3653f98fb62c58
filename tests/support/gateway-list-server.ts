/**
 * A stand-in for a DNS gateway's block lists, in the shape of Cloudflare's API v4 Zero
 * Trust (Gateway) lists at account scope, the vendor the `dns_gateway_list` pack follows:
 * `PATCH /client/v4/accounts/<account>/gateway/lists/<list>` with `{append: [{value,
 * description?}], remove: [value]}` answers the v4 envelope with the list (`{id, name,
 * description, type, count, created_at, updated_at}`); `Authorization: Bearer <token>`,
 * else 403 code 10000 `authentication error`. Our choices where no source says: appending
 * a value the list already holds is 400 with code 10009 and a message naming it (public
 * integrations report "duplicate items" as a 400); removing a value the list lacks removes
 * nothing and succeeds; an unknown list is 404 code 7003. Every request is recorded.
 */
import { jsonAnswer, listenRecording, type RecordingServer } from './recording-server.ts';

export type GatewayListServer = RecordingServer & {
  /** The values list `id` holds now. */
  values: (id: string) => string[];
};

export async function startGatewayListServer(options: { token: string; account: string; list: string }): Promise<GatewayListServer> {
  const items = new Map<string, { value: string; description: string }>();
  const created = `${new Date().toISOString().slice(0, 19)}Z`;
  const server = await listenRecording((req, body, res) => {
    const answer = (status: number, result: unknown, errors: { code: number; message: string }[] = []) =>
      jsonAnswer(res, status, { result, success: errors.length === 0, errors, messages: [] });
    if (req.headers.authorization !== `Bearer ${options.token}`) return answer(403, null, [{ code: 10000, message: 'authentication error' }]);
    const match = /^\/client\/v4\/accounts\/([^/]+)\/gateway\/lists\/([^/?]+)$/.exec(req.url ?? '');
    if (!match || req.method !== 'PATCH') return answer(404, null, [{ code: 7000, message: 'No route for that URI' }]);
    if (match[1] !== options.account || match[2] !== options.list) return answer(404, null, [{ code: 7003, message: 'list not found' }]);
    let patch: { append?: { value?: unknown; description?: unknown }[]; remove?: unknown[] };
    try {
      patch = JSON.parse(body) as typeof patch;
    } catch {
      return answer(400, null, [{ code: 10400, message: 'the body is not JSON' }]);
    }
    const append = patch.append ?? [];
    const remove = patch.remove ?? [];
    if (!Array.isArray(append) || !Array.isArray(remove) || append.some((i) => typeof i?.value !== 'string') || remove.some((v) => typeof v !== 'string')) {
      return answer(400, null, [{ code: 10400, message: 'append takes [{value, description}] and remove takes [value]' }]);
    }
    const duplicate = append.find((i) => items.has(String(i.value)));
    if (duplicate) return answer(400, null, [{ code: 10009, message: `duplicate item: ${String(duplicate.value)} is already in the list` }]);
    for (const value of remove) items.delete(String(value));
    for (const item of append) items.set(String(item.value), { value: String(item.value), description: String(item.description ?? '') });
    answer(200, {
      id: options.list,
      name: 'svc blocked domains',
      description: 'Domains the incident-response service blocks',
      type: 'DOMAIN',
      count: items.size,
      created_at: created,
      updated_at: `${new Date().toISOString().slice(0, 19)}Z`,
    });
  });
  return { ...server, values: (id) => (id === options.list ? [...items.keys()] : []) };
}
