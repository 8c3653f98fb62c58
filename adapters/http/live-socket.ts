/**
 * `WS /ws` (SPEC.md "Live updates and inbox"; docs/operations.md "Live updates"): a plain
 * `ws` server on the HTTP server's upgrade event (not @hono/node-ws as well: docs/architecture.md "Live updates").
 *
 * The upgrade request is authenticated like any route: `Authorization: Bearer <token>`
 * bound to `GET /ws`, a `read` permission and, on exchange tokens, `svc:cases:read`; a
 * refusal answers the API's error shape over plain HTTP and no socket opens. The caller's
 * case scope is fixed for the session, which the server ends after `sessionMaxMs` (close
 * 4001) so changed grants take effect on reconnect. Frames of one connection are handled
 * in order.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Kysely } from 'kysely';
import type { WebSocket, WebSocketServer } from 'ws';
import { DomainError } from '../../domain/shared/errors.ts';
import { canSeeCase, type ScopedCase } from '../../projections/cases/case-scope.ts';
import { findCase } from '../../projections/cases/cases.queries.ts';
import type { Database } from '../../projections/database.ts';
import { caseScopeOf } from '../identity/case-scope.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import type { Principal } from '../identity/principal.ts';
import type { UserDirectory } from '../identity/users.ts';
import type { TokenVerifier } from '../identity/verifier.ts';
import { MAX_INBOUND_FRAME_BYTES, parseInbound, type InboundFrame } from '../live/frames.ts';
import type { LiveHub } from '../live/hub.ts';
import type { Clock } from '../shared/clock.ts';
import { authenticateBearer, checkPermission, pathBelow } from './auth.ts';

/** What the `/ws` server needs from the running service, passed by runtime/wiring/api.ts. */
export type LiveSocketDeps = {
  db: Kysely<Database>;
  basePath: string;
  verifier: TokenVerifier;
  users: UserDirectory;
  permissions: PermissionMatrix;
  hub: LiveHub;
  heartbeatSeconds: number;
  /** Longest session before the server closes it (4001), ms (SVC_WS_SESSION_MAX_S). */
  sessionMaxMs: number;
  logError: (error: unknown, context: Record<string, unknown>) => void;
  /** The service clock (adapters/shared/clock.ts): the `at` of a `pong`. */
  now: Clock;
};

const reasons: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error' };

/** Answers a refused upgrade with the API's error shape and drops the socket. */
function refuse(socket: Duplex, status: number, body: { detail: string; code: string; params: Record<string, unknown> }) {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/** The authenticated caller of an upgrade request, as a route would check it, or the refusal. */
async function authenticateUpgrade(req: IncomingMessage, deps: Pick<LiveSocketDeps, 'verifier' | 'users' | 'permissions'>): Promise<Principal> {
  const principal = await authenticateBearer(req.headers.authorization, { method: 'GET', path: '/ws' }, deps);
  checkPermission(principal, 'read', 'svc:cases:read', deps.permissions);
  return principal;
}

/** Listens for `/ws` upgrades on `server`; `close()` ends every session (1001) and stops. */
export function attachLiveSocket(server: Server, deps: LiveSocketDeps): { close: () => Promise<void> } {
  // ws loads on the first upgrade: most restarts serve none before they are ready, and it is a tenth of the start path.
  let wss: Promise<WebSocketServer> | null = null;
  const sockets = () => (wss ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_INBOUND_FRAME_BYTES })));

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = pathBelow(new URL(req.url ?? '/', 'http://upgrade').pathname, deps.basePath);
    if (path !== '/ws') return refuse(socket, 404, { detail: 'no WebSocket at this path', code: 'not_found', params: { path } });
    Promise.all([authenticateUpgrade(req, deps), sockets()]).then(
      ([principal, server]) => server.handleUpgrade(req, socket, head, (ws) => session(ws, principal)),
      (error: unknown) => {
        if (error instanceof DomainError) return refuse(socket, error.status, { detail: error.message, code: error.code, params: error.params });
        deps.logError(error, { path: '/ws' });
        refuse(socket, 500, { detail: 'internal error', code: 'internal_error', params: {} });
      },
    );
  };
  server.on('upgrade', onUpgrade);

  const session = (ws: WebSocket, principal: Principal) => {
    const send = (frame: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    };
    const scope = caseScopeOf(principal, deps.permissions);
    const remove = deps.hub.add({ scope, send });
    const viewer = principal.userId === null ? null : { user_id: principal.userId, email: principal.email, name: principal.name };
    const joined = new Map<string, ScopedCase>();
    const expiry = setTimeout(() => ws.close(4001, 'session expired: reconnect with a fresh token'), deps.sessionMaxMs);

    /** The case's visibility facts when this caller may see it, else null (absent and invisible read alike). */
    const visible = async (caseId: string): Promise<ScopedCase | null> => {
      const row = await findCase(deps.db, caseId);
      if (!row) return null;
      const scoped = { team: row.team, private: row.private, owner_id: row.owner_id, created_by_id: row.created_by_id };
      return canSeeCase(scope, scoped) ? scoped : null;
    };
    const notFound = (caseId: string) => ({ type: 'error', code: 'case_not_found', detail: 'case not found', case_id: caseId });

    const handle = async (frame: InboundFrame) => {
      if (frame.type === 'ping') return send({ type: 'pong', at: deps.now().toISOString() });
      const caseId = frame.case_id;
      if (frame.type === 'presence.leave') {
        const scoped = joined.get(caseId);
        joined.delete(caseId);
        if (scoped && viewer) await deps.hub.presence.leave(caseId, scoped, viewer);
        return send({ type: 'presence.left', case_id: caseId });
      }
      if (viewer === null) return send({ type: 'error', code: 'not_a_person', detail: 'only a person can be present on a case', case_id: caseId });
      if (frame.type === 'presence.ping' && !joined.has(caseId)) {
        return send({ type: 'error', code: 'not_joined', detail: 'send presence.join first', case_id: caseId });
      }
      // Every join and every ping checks visibility again: a case can turn private, or be purged.
      const scoped = await visible(caseId);
      if (scoped === null) {
        const was = joined.get(caseId);
        joined.delete(caseId);
        if (was) await deps.hub.presence.leave(caseId, was, viewer);
        return send(notFound(caseId));
      }
      joined.set(caseId, scoped);
      await deps.hub.presence.beat(caseId, scoped, viewer);
      if (frame.type === 'presence.join') {
        send({ type: 'presence.joined', case_id: caseId, heartbeat_interval_s: deps.heartbeatSeconds, viewers: deps.hub.presence.viewers(caseId) });
      }
    };

    let queue: Promise<void> = Promise.resolve();
    ws.on('message', (data, isBinary) => {
      queue = queue.then(async () => {
        if (isBinary) return send({ type: 'error', code: 'frame_refused', detail: 'frames are JSON text' });
        const frame = parseInbound(data.toString());
        if (frame.type === 'error') return send(frame);
        try {
          await handle(frame);
        } catch (error) {
          deps.logError(error, { path: '/ws', frame: frame.type });
          send({ type: 'error', code: 'internal_error', detail: 'internal error' });
        }
      });
    });
    ws.on('close', () => {
      clearTimeout(expiry);
      remove();
      queue = queue.then(async () => {
        for (const [caseId, scoped] of joined)
          if (viewer) await deps.hub.presence.leave(caseId, scoped, viewer).catch((error: unknown) => deps.logError(error, { path: '/ws' }));
        joined.clear();
      });
    });
    // A protocol error (an oversized frame: 1009) is already closing the socket; the listener keeps it from being thrown.
    ws.on('error', () => {});
    send({ type: 'hello', heartbeat_interval_s: deps.heartbeatSeconds, session_expires_in_s: Math.floor(deps.sessionMaxMs / 1000) });
  };

  return {
    close: async () => {
      server.off('upgrade', onUpgrade);
      const open = await wss;
      if (!open) return;
      for (const ws of open.clients) ws.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => open.close(() => resolve()));
    },
  };
}
