/**
 * A stand-in for the part of Microsoft Graph v1.0 a `mailbox_graph` connection reads, on
 * 127.0.0.1, for callers holding a bearer token that the test's OAuth2 server minted with
 * the scope Graph wants (`<this origin>/.default`, as Graph wants a token for its own
 * resource; checked through `grantOf`, as Graph checks the token's audience):
 * - `GET /v1.0/users/<id or principal name>/mailFolders/inbox` answers the folder as Graph
 *   shows it (`{id, displayName, parentFolderId, childFolderCount, unreadItemCount,
 *   totalItemCount}`, the fields of `$select` when given), 404 `ErrorInvalidUser` for a
 *   mailbox it does not hold;
 * - no or a wrong token is 401 `InvalidAuthenticationToken`; anything else 404 or 405.
 * Errors have Graph's shape `{error: {code, message}}`. Every request is recorded.
 */
import type { ServerResponse } from 'node:http';
import { startReceiver } from './receiver.ts';

type Grant = { audience: string | null; scope: string | null } | null;

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const graphError = (res: ServerResponse, status: number, code: string, message: string) => json(res, status, { error: { code, message } });

/** Starts Graph holding the inboxes of `mailboxes`; `grantOf` tells what a token was minted for. */
export async function startGraphServer(mailboxes: string[], grantOf: (token: string) => Grant) {
  let origin = '';
  const receiver = await startReceiver((r, res) => {
    const url = new URL(r.path, origin);
    const bearer = /^Bearer (.+)$/.exec(r.headers.authorization ?? '')?.[1];
    if (!bearer || grantOf(bearer)?.scope !== `${origin}/.default`)
      return graphError(res, 401, 'InvalidAuthenticationToken', 'Access token validation failure. Invalid audience.');
    const inbox = /^\/v1\.0\/users\/([^/]+)\/mailFolders\/inbox$/.exec(url.pathname);
    if (!inbox) return graphError(res, 404, 'ResourceNotFound', 'Resource not found for the segment.');
    if (r.method !== 'GET') return graphError(res, 405, 'ErrorInvalidRequest', 'The OData request is not supported.');
    const user = decodeURIComponent(inbox[1] ?? '');
    if (!mailboxes.includes(user)) return graphError(res, 404, 'ErrorInvalidUser', `The requested user '${user}' is invalid.`);
    const folder: Record<string, unknown> = {
      id: 'AAMkAGI2TGuLAAA=',
      displayName: 'Inbox',
      parentFolderId: 'AAMkAGI2AAEKAAA=',
      childFolderCount: 0,
      unreadItemCount: 2,
      totalItemCount: 7,
    };
    const select = url.searchParams.get('$select')?.split(',');
    json(res, 200, select ? Object.fromEntries(Object.entries(folder).filter(([k]) => select.includes(k))) : folder);
  });
  origin = receiver.url;
  return { ...receiver, graphRoot: `${receiver.url}/v1.0` };
}
