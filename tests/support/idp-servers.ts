/**
 * Local stand-ins of the two identity provider APIs the shipped identity packs follow
 * (SPEC.md shipped packs `idp_user_suspend_a` and `idp_user_disable_b`;
 * packs/idp_user_suspend_a.yaml, packs/idp_user_disable_b.yaml), on node:http at
 * 127.0.0.1 with a free port. Each checks the caller's credential, keeps its users' state
 * (tests may read and change it) and records every request in order.
 *
 * Okta Management API shape (`startOktaStandIn`), from ../shared/fixtures/vendors/okta/:
 * - `Authorization: SSWS <token>`; anything else: 401 E0000011 "Invalid token provided".
 * - A user is addressed by its id (exact) or its login (ignoring case), as Okta's `{id}`
 *   path parameter takes both.
 * - `POST /api/v1/users/<id>/lifecycle/suspend`: an ACTIVE user becomes SUSPENDED, 200
 *   `{}`; any other status: 400 E0000001 "Api validation failed: Cannot suspend a user
 *   that is not active". `.../unsuspend`: a SUSPENDED user becomes ACTIVE, 200 `{}`; any
 *   other status: 400 E0000001 "Api validation failed: Cannot unsuspend a user that is not
 *   suspended" (our wording: the published examples give only "Api validation failed:
 *   {0}"). An unknown user: 404 E0000007 "Not found: Resource not found: <id> (User)".
 * - `GET /api/v1/users/<id>`: 200 GET_user.200.example.json with this user's id, status
 *   and login; 404 E0000007 when unknown.
 * - Errors are errors.components.json's `{errorCode, errorSummary, errorLink, errorId,
 *   errorCauses}` with `{0}` filled in and a fresh errorId; any other route is 404
 *   E0000007 "Not found: <path>".
 *
 * Microsoft Graph v1.0 users shape (`startGraphUsersStandIn`):
 * - `Authorization: Bearer <token>` that `accepts` takes (tokens minted by
 *   oauth2-server.ts); anything else: 401 `InvalidAuthenticationToken`.
 * - A user is addressed by its object id or its userPrincipalName (ignoring case).
 * - `PATCH /v1.0/users/<id>` with a JSON object: `accountEnabled` must be a JSON boolean
 *   (the text "false" is 400 `Request_BadRequest`, as Graph refuses it); the user takes
 *   it, 204 with no body. An unknown user: 404 `Request_ResourceNotFound`.
 * - `GET /v1.0/users/<id>[?$select=a,b]`: 200 `{"@odata.context", ...}` with the selected
 *   fields of `{id, displayName, userPrincipalName, accountEnabled}` (all without
 *   `$select`); 404 `Request_ResourceNotFound` when unknown.
 * - Errors are `{error: {code, message, innerError: {date, request-id,
 *   client-request-id}}}`; any other route 400 `BadRequest`.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { readFixtureJson } from './fixtures.ts';
import { jsonAnswer, listenRecording, type RecordingServer } from './recording-server.ts';

// ---------------------------------------------------------------------------------------
// Okta

export type OktaStatus = 'ACTIVE' | 'SUSPENDED' | 'STAGED' | 'PROVISIONED' | 'RECOVERY' | 'PASSWORD_EXPIRED' | 'LOCKED_OUT' | 'DEPROVISIONED';
export type OktaUser = { id: string; login: string; status: OktaStatus };
export type OktaStandIn = RecordingServer & { users: Map<string, OktaUser> };

type OktaError = { errorCode: string; errorSummary: string; errorLink: string; errorId: string; errorCauses: unknown[] };
type OktaErrors = Record<'ErrorResourceNotFound404' | 'ErrorApiValidationFailed400', OktaError>;

/** The published GET user example, the shape every user read answers. */
const oktaUserExample = () => readFixtureJson<Record<string, any>>('vendors', 'okta', 'GET_user.200.example.json');

/** Starts the Okta stand-in for `users`, taking `Authorization: SSWS <token>`. */
export async function startOktaStandIn(token: string, users: OktaUser[]): Promise<OktaStandIn> {
  const store = new Map(users.map((u) => [u.id, { ...u }]));
  const errors = readFixtureJson<OktaErrors>('vendors', 'okta', 'errors.components.json');
  const oktaError = (res: ServerResponse, status: number, shape: OktaError, detail: string | null) =>
    jsonAnswer(res, status, {
      ...shape,
      errorSummary: detail === null ? shape.errorSummary : shape.errorSummary.replace('{0}', detail),
      errorId: `oae${randomUUID().replace(/-/g, '').slice(0, 19)}`,
    });
  const find = (key: string) => store.get(key) ?? [...store.values()].find((u) => u.login.toLowerCase() === key.toLowerCase());
  const userView = (user: OktaUser) => {
    const example = oktaUserExample();
    return {
      ...example,
      id: user.id,
      status: user.status,
      profile: { ...example.profile, login: user.login, email: user.login },
      _links: { self: { href: `https://example.okta.com/api/v1/users/${user.id}` } },
    };
  };

  const listening = await listenRecording((req, _body, res) => {
    if (req.headers.authorization !== `SSWS ${token}`) {
      return jsonAnswer(res, 401, {
        errorCode: 'E0000011',
        errorSummary: 'Invalid token provided',
        errorLink: 'E0000011',
        errorId: `oae${randomUUID().replace(/-/g, '').slice(0, 19)}`,
        errorCauses: [],
      });
    }
    const path = new URL(req.url ?? '/', 'http://okta').pathname;
    const lifecycle = /^\/api\/v1\/users\/([^/]+)\/lifecycle\/(suspend|unsuspend)$/.exec(path);
    const read = /^\/api\/v1\/users\/([^/]+)$/.exec(path);
    const key = decodeURIComponent(lifecycle?.[1] ?? read?.[1] ?? '');
    const notFound = () => oktaError(res, 404, errors.ErrorResourceNotFound404, `Resource not found: ${key} (User)`);
    if (req.method === 'POST' && lifecycle) {
      const user = find(key);
      if (!user) return notFound();
      if (lifecycle[2] === 'suspend') {
        if (user.status !== 'ACTIVE') return oktaError(res, 400, errors.ErrorApiValidationFailed400, 'Cannot suspend a user that is not active');
        user.status = 'SUSPENDED';
      } else {
        if (user.status !== 'SUSPENDED') return oktaError(res, 400, errors.ErrorApiValidationFailed400, 'Cannot unsuspend a user that is not suspended');
        user.status = 'ACTIVE';
      }
      return jsonAnswer(res, 200, {});
    }
    if (req.method === 'GET' && read) {
      const user = find(key);
      return user ? jsonAnswer(res, 200, userView(user)) : notFound();
    }
    oktaError(res, 404, errors.ErrorResourceNotFound404, path);
  });
  return Object.assign(listening, { users: store });
}

// ---------------------------------------------------------------------------------------
// Microsoft Graph

export type GraphUser = { id: string; displayName: string; userPrincipalName: string; accountEnabled: boolean };
export type GraphUsersStandIn = RecordingServer & { users: Map<string, GraphUser> };

const graphError = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  jsonAnswer(
    res,
    status,
    { error: { code, message, innerError: { date: new Date().toISOString().slice(0, 19), 'request-id': randomUUID(), 'client-request-id': randomUUID() } } },
    headers,
  );

/** Starts the Graph users stand-in for `users`, taking a bearer token when `accepts` does. */
export async function startGraphUsersStandIn(accepts: (token: string) => boolean, users: GraphUser[]): Promise<GraphUsersStandIn> {
  const store = new Map(users.map((u) => [u.id, { ...u }]));
  const find = (key: string) => store.get(key.toLowerCase()) ?? [...store.values()].find((u) => u.userPrincipalName.toLowerCase() === key.toLowerCase());
  const listening = await listenRecording((req, body, res) => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer) return graphError(res, 401, 'InvalidAuthenticationToken', 'Access token is empty.', { 'www-authenticate': 'Bearer' });
    if (!accepts(bearer)) return graphError(res, 401, 'InvalidAuthenticationToken', 'Access token validation failure.', { 'www-authenticate': 'Bearer' });
    const url = new URL(req.url ?? '/', 'http://graph');
    const match = /^\/v1\.0\/users\/([^/]+)$/.exec(url.pathname);
    if (!match) return graphError(res, 400, 'BadRequest', `Resource not found for the segment '${url.pathname.split('/').pop() ?? ''}'.`);
    const key = decodeURIComponent(match[1] ?? '');
    const user = find(key);
    if (!user && (req.method === 'PATCH' || req.method === 'GET')) {
      return graphError(
        res,
        404,
        'Request_ResourceNotFound',
        `Resource '${key}' does not exist or one of its queried reference-property objects are not present.`,
      );
    }
    if (req.method === 'PATCH' && user) {
      let patch: unknown;
      try {
        patch = JSON.parse(body);
      } catch {
        return graphError(
          res,
          400,
          'BadRequest',
          'Unable to read JSON request payload. Please ensure Content-Type header is set and payload is of valid JSON format.',
        );
      }
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch))
        return graphError(res, 400, 'BadRequest', 'Empty Payload. JSON content expected.');
      const enabled = (patch as Record<string, unknown>).accountEnabled;
      if (enabled !== undefined && typeof enabled !== 'boolean') {
        return graphError(res, 400, 'Request_BadRequest', "Invalid value specified for property 'accountEnabled' of resource 'User'.");
      }
      if (typeof enabled === 'boolean') user.accountEnabled = enabled;
      return res.writeHead(204).end();
    }
    if (req.method === 'GET' && user) {
      const select = url.searchParams.get('$select');
      const fields = select ? select.split(',').map((f) => f.trim()) : ['id', 'displayName', 'userPrincipalName', 'accountEnabled'];
      const view = Object.fromEntries(fields.filter((f) => Object.hasOwn(user, f)).map((f) => [f, user[f as keyof GraphUser]]));
      const context = select ? `users(${fields.join(',')})/$entity` : 'users/$entity';
      return jsonAnswer(res, 200, { '@odata.context': `https://graph.microsoft.com/v1.0/$metadata#${context}`, ...view });
    }
    graphError(res, 405, 'Request_BadRequest', `Specified HTTP method is not allowed for the request target.`);
  });
  return Object.assign(listening, { users: store });
}
