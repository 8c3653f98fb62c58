/**
 * `POST, GET /peer/v1/mcp` (SPEC.md "Peer endpoints"): the MCP tool server over the
 * Streamable HTTP transport of the official SDK (its web-standard transport: Request in,
 * Response out), stateless: a new server and transport per request, JSON answers, no
 * session id (adapters/mcp-server/server.ts).
 *
 * The caller must present an exchange-issued, audience-bound actor envelope (SPEC.md
 * "Authentication"; CONTRACTS.md section 2: "MCP needs `act`"): authenticate() has
 * verified the token (issuer, key, `aud = SVC_AUDIENCE`, lifetime; 401 otherwise); here it
 * must be `token_use: exchange` (else 403 `mcp_envelope_required`) and carry an `act`
 * actor (else 403 `mcp_actor_required`), before any MCP handling. Scope, role, team and
 * case visibility are then checked per tool call by the REST route it runs.
 *
 * GET answers 405 with `Allow: POST`: a stateless server has nothing to push, and the
 * transport's own GET would hold an SSE stream open that nothing ever writes to (the
 * Streamable HTTP spec allows 405 for a server that offers no SSE stream).
 */
import { Hono } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Catalogue, ToolServerDeps } from './mcp-server/server.ts';
import type { Principal } from '../identity/principal.ts';
import { unauthenticated } from '../identity/verifier.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { jsonAnswer } from './openapi.ts';

/** A JSON-RPC 2.0 message (MCP's wire format); its members beyond `jsonrpc` are the SDK's business. */
const jsonRpcMessage = v.looseObject({ jsonrpc: v.literal('2.0') });
/** One message or a batch. */
const jsonRpcBatch = v.union([jsonRpcMessage, v.array(jsonRpcMessage)]);
/** A JSON-RPC error answered before any request was read: `id` null. */
const jsonRpcError = v.looseObject({ jsonrpc: v.literal('2.0'), error: v.looseObject({ code: v.number(), message: v.string() }), id: v.null() });

const rpcError = (status: 400 | 405, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/**
 * The caller of a `/peer/v1/mcp` request, if it holds an actor envelope.
 * @throws DomainError 401 when no principal was authenticated, 403 `mcp_envelope_required` or `mcp_actor_required`.
 */
export function envelopeActor(principal: Principal | undefined): Principal {
  if (principal === undefined) throw unauthenticated('missing bearer token');
  if (principal.tokenUse !== 'exchange') {
    throw new DomainError('mcp_envelope_required', 403, 'the MCP tool server takes an exchange-issued actor envelope only', { token_use: principal.tokenUse });
  }
  if (principal.workload === null || principal.userId === null) {
    throw new DomainError('mcp_actor_required', 403, 'the exchange token carries no act actor: MCP acts for a person');
  }
  return principal;
}

/** What the MCP route reads of the service (adapters/http/deps.ts), plus the app it dispatches into and its OpenAPI document. */
export type McpRouteDeps = Pick<HttpDeps, 'audit' | 'waitFor' | 'logError' | 'mcpIdempotency'> & Pick<ToolServerDeps, 'app' | 'openApi'>;

/** The `/peer/v1/mcp` routes; mount behind `authenticate()`. */
export function mcpRoutes(deps: McpRouteDeps) {
  const serverDeps: ToolServerDeps = { ...deps, idempotency: deps.mcpIdempotency };
  let catalogue: Promise<Catalogue> | null = null;
  return new Hono<AppEnv>()
    .post(
      '/peer/v1/mcp',
      describeRoute({
        summary: 'MCP tool server (Streamable HTTP, stateless, JSON answers): initialize, tools/list, tools/call',
        tags: ['peer'],
        requestBody: {
          required: true,
          description: 'A JSON-RPC request, notification or response of MCP, or a batch of them',
          content: { 'application/json': { schema: resolver(jsonRpcBatch) } },
        },
        responses: {
          200: jsonAnswer(jsonRpcBatch, 'The JSON-RPC answers of the requests sent'),
          202: { description: 'Only notifications or responses were sent: accepted, no body' },
          400: jsonAnswer(jsonRpcError, 'Not JSON, or not JSON-RPC'),
          406: jsonAnswer(jsonRpcError, 'Accept must list application/json and text/event-stream'),
          415: jsonAnswer(jsonRpcError, 'Content-Type must be application/json'),
        },
      }),
      async (c) => {
        const principal = envelopeActor(c.get('principal'));
        // The JSON guard may have read the body already (adapters/http/validation.ts): hand the transport the parsed message.
        let parsedBody: unknown;
        if (/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
          try {
            parsedBody = await c.req.json();
          } catch {
            return rpcError(400, -32700, 'Parse error: Invalid JSON');
          }
        }
        // The MCP SDK is loaded on the first call, not at every start (docs/operations.md "The compiled build").
        const [{ buildCatalogue, createToolServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
          import('./mcp-server/server.ts'),
          import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
        ]);
        catalogue ??= buildCatalogue(deps.openApi);
        const server = createToolServer(serverDeps, await catalogue, principal, new URL(c.req.url).origin);
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        try {
          return await transport.handleRequest(c.req.raw, parsedBody === undefined ? {} : { parsedBody });
        } finally {
          await server.close();
        }
      },
    )
    .get(
      '/peer/v1/mcp',
      describeRoute({
        summary: 'No server-sent event stream: this stateless MCP server answers 405 (Allow: POST)',
        tags: ['peer'],
        responses: { 405: jsonAnswer(jsonRpcError, 'Method not allowed: send MCP requests with POST') },
      }),
      (c) => {
        envelopeActor(c.get('principal'));
        return rpcError(405, -32000, 'Method not allowed: this MCP server offers no SSE stream; POST requests instead', { allow: 'POST' });
      },
    );
}
