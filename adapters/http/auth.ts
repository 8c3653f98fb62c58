/**
 * Authentication and authorization middleware for every non-webhook route
 * (SPEC.md "Authentication"; CONTRACTS.md section 2).
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/shared/errors.ts';
import { hasPermission, type PermissionMatrix } from '../identity/permissions.ts';
import type { Permission, Principal } from '../identity/principal.ts';
import { scopeCovers } from '../identity/scopes.ts';
import type { UserDirectory } from '../identity/users.ts';
import { unauthenticated, type TokenVerifier } from '../identity/verifier.ts';
import type { AppEnv } from './context.ts';

const bearer = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/**
 * The caller of a request bound to `request` (method, and path below the base path without
 * the query) from its `Authorization: Bearer <JWT>` header, with the person's user row
 * resolved. Shared by the HTTP routes and the WebSocket upgrade (live-socket.ts).
 *
 * @throws DomainError 401 `unauthenticated` when the header is missing or garbled or
 *   the verifier refuses the token.
 */
export async function authenticateBearer(
  header: string | undefined,
  request: { method: string; path: string },
  deps: { verifier: TokenVerifier; users: UserDirectory },
): Promise<Principal> {
  if (header === undefined) throw unauthenticated('missing bearer token');
  const token = bearer.exec(header)?.[1];
  if (token === undefined) throw unauthenticated('malformed authorization header');
  return deps.users.resolve(await deps.verifier.verify(token, request));
}

/**
 * The `env` key under which an in-process caller hands the app a principal it already
 * verified. A module-private Symbol: no HTTP request can name it, since the Node server
 * passes `{incoming, outgoing}` as the env of every request it serves.
 */
const handedOverPrincipal = Symbol('svc.in-process-principal');

/**
 * The `env` for `app.fetch(request, env)` of a request made inside this process on behalf
 * of `principal` (the MCP tool server, adapters/mcp-server/dispatch.ts): authenticate()
 * takes the principal as the caller instead of verifying a bearer token, and every route
 * check after it runs as for that caller.
 */
export function inProcessEnv(principal: Principal): { readonly [handedOverPrincipal]: Principal } {
  return { [handedOverPrincipal]: principal };
}

function handedOver(env: unknown): Principal | undefined {
  return typeof env === 'object' && env !== null && handedOverPrincipal in env ? (env as ReturnType<typeof inProcessEnv>)[handedOverPrincipal] : undefined;
}

/**
 * Middleware: authenticateBearer on the request, then `c.get('principal')` is the caller;
 * for a request made in process with inProcessEnv, the principal handed over.
 */
export function authenticate(deps: { verifier: TokenVerifier; users: UserDirectory; basePath: string }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = handedOver(c.env);
    if (principal !== undefined) {
      c.set('principal', principal);
      return next();
    }
    // The raw URL path, not Hono's decoded one: `htu` is minted from the path as sent.
    const path = pathBelow(new URL(c.req.url).pathname, deps.basePath);
    c.set('principal', await authenticateBearer(c.req.header('authorization'), { method: c.req.method, path }, deps));
    await next();
  };
}

/**
 * For a route that creates something in `team` (null: org-wide), which the route-level
 * requirePermission cannot know: the principal must hold `permission` there.
 * @throws DomainError 403 `forbidden` with params `{permission, team}`.
 */
export function requireTeamPermission(principal: Principal, permission: Permission, team: string | null, matrix: PermissionMatrix): void {
  if (!hasPermission(principal, permission, matrix, team)) {
    throw new DomainError('forbidden', 403, `permission ${permission} required in that team`, { permission, team });
  }
}

/**
 * Refuses the request with 403 `forbidden` unless the principal holds `permission`
 * through any of its grants (team scoping of the data is the route's job), or through a
 * realm grant when `team` is null (install-wide data: audit, retention, diagnostics), and
 * its token scope covers `scope` (assertions have no scope limit). Identity `service`
 * tokens are refused here: they are accepted only on peer routes, which use their
 * own check.
 *
 * @throws DomainError 401 when no principal was authenticated, 403 `forbidden` otherwise.
 */
export function requirePermission(permission: Permission, scope: string, matrix: PermissionMatrix, team?: null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = c.get('principal');
    // Guards a route mounted without authenticate(): refuse rather than fail open.
    if (principal === undefined) throw unauthenticated('missing bearer token');
    checkPermission(principal, permission, scope, matrix, team);
    await next();
  };
}

/**
 * The check of requirePermission on an authenticated `principal` (also the WebSocket
 * upgrade's): identity service tokens are refused, `permission` must be held (install-wide
 * when `team` is null), and a token scope must cover `scope`.
 *
 * @throws DomainError 403 `forbidden`.
 */
export function checkPermission(principal: Principal, permission: Permission, scope: string, matrix: PermissionMatrix, team?: null): void {
  if (principal.tokenUse === 'service') {
    throw new DomainError('forbidden', 403, 'service tokens are accepted on peer routes only');
  }
  if (!hasPermission(principal, permission, matrix, team)) {
    throw new DomainError('forbidden', 403, team === null ? `permission ${permission} required install-wide` : `permission ${permission} required`, {
      permission,
    });
  }
  if (!scopeCovers(principal.scopes, scope)) {
    throw new DomainError('forbidden', 403, `token scope does not cover ${scope}`, { scope });
  }
}

/**
 * Admits only the identity service's own token (`token_use: service`) whose scope
 * includes `scope` exactly: the peer routes SPEC.md gives to identity ("Authentication").
 *
 * @throws DomainError 401 when no principal was authenticated, 403 `forbidden` otherwise.
 */
export function requirePeerService(scope: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    checkPeerService(c.get('principal'), scope);
    await next();
  };
}

/**
 * The check of requirePeerService on the request's principal, for a route that needs more
 * of the caller afterwards (the account-section write); returns the principal.
 * @throws DomainError 401 when no principal was authenticated, 403 `forbidden` otherwise.
 */
export function checkPeerService(principal: Principal | undefined, scope: string): Principal {
  if (principal === undefined) throw unauthenticated('missing bearer token');
  if (principal.tokenUse !== 'service') throw new DomainError('forbidden', 403, "this peer route accepts the identity service's token only");
  if (!(principal.scopes ?? []).includes(scope)) throw new DomainError('forbidden', 403, `token scope does not cover ${scope}`, { scope });
  return principal;
}

/** `path` with the `basePath` prefix removed (`/` when nothing is left); unchanged when it lies outside it. */
export function pathBelow(path: string, basePath: string): string {
  const base = basePath.replace(/\/+$/, '');
  if (base === '' || (path !== base && !path.startsWith(`${base}/`))) return path;
  return path.slice(base.length) || '/';
}
