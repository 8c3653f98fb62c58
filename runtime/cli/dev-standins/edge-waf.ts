/**
 * A local stand-in of the Cloudflare API v4 IP Access Rules, zone scope (the vendor the
 * `edge_waf` adapter of SPEC.md "Managed containment actions", "Shipped adapter packs",
 * follows), on node:http only. `svc dev edge-waf` serves it; tests start it directly.
 *
 * Every answer is the v4 envelope `{result, success, errors: [{code, message}], messages}`
 * as JSON. It follows the fixtures in fixtures/vendors/cloudflare/ (cloudflare-go
 * firewall_test.go mocks, and errors.observed.json for the error answers):
 * - `Authorization: Bearer <token>`; any other or none: 403 with code 10000
 *   `authentication error` (errors.observed.json `auth_error_example`).
 * - `POST /client/v4/zones/<zone_id>/firewall/access_rules/rules` with
 *   `{mode, configuration: {target: ip|ip_range, value}, notes?}`
 *   (POST_access_rule_create.request.json): 200 with the stored rule
 *   (POST_access_rule_create.200.json: a fresh 32-hex `id`, `mode`, `configuration`,
 *   `notes`, `allowed_modes`, `created_on`, `modified_on`, `scope`). A second rule for
 *   the same `configuration.value` in the zone: errors.observed.json
 *   `duplicate_on_create` (code 10009, `firewallaccessrules.api.duplicate_of_existing`).
 * - `GET .../rules/<id>`: 200 with the rule (GET_access_rule.200.json).
 * - `PATCH .../rules/<id>` with `{mode?, notes?}`: 200 with the changed rule
 *   (PATCH_access_rule.200.json).
 * - `DELETE .../rules/<id>`: 200 `{result: {id}}` (DELETE_access_rule.200.json).
 * - `GET .../rules?configuration.value=<v>&mode=<m>&page=<n>&per_page=<n>`: 200 with the
 *   zone's rules, filtered, a page of them, and `result_info {page, per_page, count,
 *   total_count}` (GET_access_rules_list.200.json).
 *
 * Our choices, where no source says: the duplicate answers HTTP 400 (the real status is
 * unconfirmed; a client classifies it by `errors[].code`/`message`, never the status); an
 * unknown rule id (or one of another zone) is 404 with code 10001 and the observed message
 * `firewallaccessrules.api.not_found` (the message is observed, the code and status are
 * ours); any other method or path is 404 with code 7000 `No route for that URI`; a body
 * that is not the JSON object a route takes (or is over 64 KiB) is 400 with code 10400 and
 * what is wrong, never a crash. `scope` is `{id: <zone_id>, type: "zone"}`: the fixtures'
 * `user` scope is the SDK mock shared by the zone, account and user paths. Timestamps are
 * RFC 3339 UTC to the second, as in the fixtures; `notes` absent is stored as `""`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The modes a rule may take, as the fixtures' `allowed_modes` list them. */
export const ALLOWED_MODES = ['whitelist', 'block', 'challenge', 'js_challenge'] as const;
export type AccessRuleMode = (typeof ALLOWED_MODES)[number];

/** One stored IP Access Rule, exactly as the API answers it. */
export type AccessRule = {
  id: string;
  notes: string;
  allowed_modes: AccessRuleMode[];
  mode: AccessRuleMode;
  configuration: { target: 'ip' | 'ip_range'; value: string };
  created_on: string;
  modified_on: string;
  scope: { id: string; type: 'zone' };
};

/** One request as received: `path` is the request target with its query, `body` the raw text ('' when none). */
export type EdgeWafRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string };

export type EdgeWafStandInOptions = {
  /** 0 or absent picks a free port. */
  port?: number;
  host?: string;
  /** The bearer token every request must carry. */
  token: string;
  /** Called with each answer sent (`svc dev edge-waf` prints them). */
  onAnswer?: (answer: { method: string; path: string; status: number }) => void;
};

/**
 * The running stand-in: `url` is its origin (a connection's `base_url`), `rules` the live
 * store keyed by rule id (its zone is `scope.id`; tests may read and change it), `requests`
 * every request received in order.
 */
export type EdgeWafStandIn = { url: string; rules: Map<string, AccessRule>; requests: EdgeWafRequest[]; close: () => Promise<void> };

/** The path of a zone's rules, with `<zone_id>` to fill in. */
export const ZONE_RULES_PATH = '/client/v4/zones/<zone_id>/firewall/access_rules/rules';

const MAX_BODY_BYTES = 64 * 1024;
const RULES_PATH = /^\/client\/v4\/zones\/([^/]+)\/firewall\/access_rules\/rules(?:\/([^/]+))?\/?$/;

type Answer = { status: number; body: unknown };
type ApiError = { code: number; message: string };

const ok = (result: unknown, extra: Record<string, unknown> = {}): Answer => ({
  status: 200,
  body: { success: true, errors: [], messages: [], result, ...extra },
});
const failure = (status: number, error: ApiError): Answer => ({ status, body: { result: null, success: false, errors: [error], messages: [] } });

const authenticationError = (): Answer => failure(403, { code: 10000, message: 'authentication error' });
const notFound = (): Answer => failure(404, { code: 10001, message: 'firewallaccessrules.api.not_found' });
const noRoute = (): Answer => failure(404, { code: 7000, message: 'No route for that URI' });
const duplicate = (): Answer => failure(400, { code: 10009, message: 'firewallaccessrules.api.duplicate_of_existing' });
const badRequest = (why: string): Answer => failure(400, { code: 10400, message: `bad request: ${why}` });

/** Now as RFC 3339 UTC to the second: `2014-01-01T05:20:00Z`. */
const timestamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Starts the stand-in on `host` (default 127.0.0.1) and `port`. Rejects when the port
 * cannot be bound; once listening, no request makes it throw.
 */
export async function startEdgeWafStandIn(options: EdgeWafStandInOptions): Promise<EdgeWafStandIn> {
  const host = options.host ?? '127.0.0.1';
  const expected = digest(`Bearer ${options.token}`);
  const rules = new Map<string, AccessRule>();
  const requests: EdgeWafRequest[] = [];

  const route = (method: string, target: string, authorization: string | undefined, text: string | null): Answer => {
    if (authorization === undefined || !timingSafeEqual(digest(authorization), expected)) return authenticationError();
    if (text === null) return badRequest(`the body is over ${MAX_BODY_BYTES} bytes`);
    const url = new URL(target, 'http://stand-in.invalid');
    const match = RULES_PATH.exec(url.pathname);
    const zone = match?.[1] === undefined ? null : safeDecode(match[1]);
    if (!match || zone === null) return noRoute();
    if (match[2] === undefined) {
      if (method === 'POST') return create(zone, text);
      if (method === 'GET') return list(zone, url.searchParams);
      return noRoute();
    }
    if (method !== 'GET' && method !== 'PATCH' && method !== 'DELETE') return noRoute();
    const id = safeDecode(match[2]);
    const rule = id === null ? undefined : rules.get(id);
    if (!rule || rule.scope.id !== zone) return notFound();
    if (method === 'GET') return ok(rule);
    if (method === 'PATCH') return patch(rule, text);
    rules.delete(rule.id);
    return ok({ id: rule.id });
  };

  const create = (zone: string, text: string): Answer => {
    const body = parseObject(text);
    if (typeof body === 'string') return badRequest(body);
    const mode = body.mode;
    if (!isMode(mode)) return badRequest(`mode must be one of ${ALLOWED_MODES.join(', ')}`);
    const configuration = body.configuration;
    if (!isObject(configuration) || (configuration.target !== 'ip' && configuration.target !== 'ip_range')) {
      return badRequest('configuration must be {target: ip or ip_range, value}');
    }
    const value = configuration.value;
    if (typeof value !== 'string' || value.trim() === '') return badRequest('configuration.value must be a non-empty string');
    const notes = body.notes ?? '';
    if (typeof notes !== 'string') return badRequest('notes must be a string');
    if ([...rules.values()].some((r) => r.scope.id === zone && r.configuration.value === value)) return duplicate();
    const now = timestamp();
    const rule: AccessRule = {
      id: randomBytes(16).toString('hex'),
      notes,
      allowed_modes: [...ALLOWED_MODES],
      mode,
      configuration: { target: configuration.target, value },
      created_on: now,
      modified_on: now,
      scope: { id: zone, type: 'zone' },
    };
    rules.set(rule.id, rule);
    return ok(rule);
  };

  const patch = (rule: AccessRule, text: string): Answer => {
    const body = parseObject(text);
    if (typeof body === 'string') return badRequest(body);
    const { mode = rule.mode, notes = rule.notes } = body;
    if (!isMode(mode)) return badRequest(`mode must be one of ${ALLOWED_MODES.join(', ')}`);
    if (typeof notes !== 'string') return badRequest('notes must be a string');
    const changed: AccessRule = { ...rule, mode, notes, modified_on: timestamp() };
    rules.set(rule.id, changed);
    return ok(changed);
  };

  const list = (zone: string, query: URLSearchParams): Answer => {
    const page = positive(query.get('page'), 1);
    const perPage = Math.min(positive(query.get('per_page'), 20), 1000);
    const value = query.get('configuration.value');
    const mode = query.get('mode');
    const matching = [...rules.values()].filter(
      (r) => r.scope.id === zone && (value === null || r.configuration.value === value) && (mode === null || r.mode === mode),
    );
    const result = matching.slice((page - 1) * perPage, page * perPage);
    return ok(result, { result_info: { page, per_page: perPage, count: result.length, total_count: matching.length } });
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.on('finish', () => options.onAnswer?.({ method: req.method ?? '', path: req.url ?? '', status: res.statusCode }));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const method = req.method ?? 'GET';
      const target = req.url ?? '/';
      requests.push({ method, path: target, headers: req.headers, body: text });
      const answer = route(method, target, req.headers.authorization, size > MAX_BODY_BYTES ? null : text);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    rules,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const isMode = (value: unknown): value is AccessRuleMode => typeof value === 'string' && (ALLOWED_MODES as readonly string[]).includes(value);

/** The body as a JSON object, or what is wrong with it. */
function parseObject(text: string): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'the body is not JSON';
  }
  return isObject(parsed) ? parsed : 'the body is not a JSON object';
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function positive(text: string | null, fallback: number): number {
  const n = Number(text);
  return text !== null && Number.isInteger(n) && n >= 1 ? n : fallback;
}
