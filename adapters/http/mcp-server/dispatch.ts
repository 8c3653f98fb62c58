/**
 * Running a tool call through the service's own REST route (SPEC.md "Peer endpoints",
 * `/peer/v1/mcp`: "role, permission, team scope and case visibility checked before
 * dispatch"). The call becomes an in-process Request to the same Hono app, handed the
 * caller's already verified principal through `inProcessEnv` (adapters/http/auth.ts), so
 * the route's `requirePermission(permission, scope)`, team check and case visibility rule
 * decide exactly as for a REST request: there is no second copy of any of them.
 *
 * The route's answer becomes the tool result: a 2xx gives its JSON object as
 * `structuredContent` and its text as content; any other status is `isError: true` with
 * the route's error body (`{detail, code, params}`, or the 422 validation body), since a
 * refusal is a result the model can read, not a protocol error. `_meta` carries the
 * route's status (`svc/status`) and, for an answer replayed from the idempotency store,
 * `svc/replayed`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { inProcessEnv } from '../auth.ts';
import type { Principal } from '../../identity/principal.ts';
import type { StoredAnswer } from './idempotency.ts';
import type { RoutedArguments } from './input-schema.ts';
import type { ToolRoute } from './tools.ts';

/** The service's HTTP app as the tool server calls it: its `fetch` and the prefix of every path (SVC_BASE_PATH). */
export type InProcessApp = { fetch: (request: Request, env: object) => Response | Promise<Response>; basePath: string };

/** Runs `tool` with `args` as `principal` through `app`; `origin` is the scheme and host of the MCP request. */
export async function dispatch(app: InProcessApp, principal: Principal, origin: string, tool: ToolRoute, args: RoutedArguments): Promise<StoredAnswer> {
  const path = tool.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(args.path[name] ?? ''));
  const url = new URL(`${app.basePath}${path}`, origin);
  for (const [name, value] of args.query) url.searchParams.append(name, value);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (args.body !== null) headers['content-type'] = 'application/json';
  const request = new Request(url, { method: tool.method, headers, ...(args.body !== null && { body: JSON.stringify(args.body) }) });
  const response = await app.fetch(request, inProcessEnv(principal));
  return { status: response.status, text: await response.text() };
}

/** The parsed JSON of an answer, or undefined when it is empty or not JSON. */
export function answerBody(answer: StoredAnswer): unknown {
  if (answer.text === '') return undefined;
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    return undefined;
  }
}

/** The MCP tool result of a route's `answer`; `replayed` marks one served from the idempotency store. */
export function toolResult(answer: StoredAnswer, replayed: boolean): CallToolResult {
  const body = answerBody(answer);
  const structured = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const ok = answer.status >= 200 && answer.status < 300;
  return {
    content: [{ type: 'text', text: answer.text === '' ? `status ${answer.status}, no body` : answer.text }],
    ...(structured !== undefined && { structuredContent: structured }),
    ...(!ok && { isError: true }),
    _meta: { 'svc/status': answer.status, ...(replayed && { 'svc/replayed': true }) },
  };
}
