/**
 * Outbound MCP (SPEC.md "Connection" mcp keys and "outbound MCP"): a session with a
 * remote MCP server through the official SDK's client over Streamable HTTP and the guarded
 * edge, the connection's secret as the bearer credential; the tool list it advertises
 * (discovery), and the authority the connection itself gives. What the server advertises (names, read-only hints) is never authority:
 * `config.allowed_tools` and `config.read_only_tools` are.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { refusalIn, type OutboundFetch } from '../actions/outbound-http.ts';

/** One advertised tool: its name and the server's read-only hint (null: not given). */
export type RemoteTool = { name: string; read_only_hint: boolean | null };

/** At most this many pages of `tools/list` are read, so a server cannot keep the caller paging forever. */
const MAX_PAGES = 50;

/**
 * Connects (initialize) to the connection's server with the official SDK client over
 * Streamable HTTP through `outbound` (no redirects: a redirect would carry the bearer
 * credential elsewhere), runs `use`, and closes. Throws a final ActionFailure:
 * 'connection_invalid' (no base_url), 'target_refused' (the edge refused the host), or
 * 'mcp_error' naming the host (unreachable, refused credential, not an MCP server, an
 * error answer); never the secret. An ActionFailure `use` throws passes through.
 */
export async function withRemoteMcp<T>(
  connection: ResolvedConnection,
  outbound: OutboundFetch,
  signal: AbortSignal,
  clientName: string,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  if (!connection.base_url) throw new ActionFailure('connection_invalid', `mcp: connection '${connection.name}' has no base_url`, false);
  const url = new URL(connection.base_url);
  // Loaded on first use, not at every start of the service (docs/operations.md "The compiled build").
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const transport = new StreamableHTTPClientTransport(url, {
    // Both signals: the caller's deadline, and the transport's own, which its close() aborts to end
    // a stream the server holds open (replacing it left that stream, and the process's shutdown, hanging).
    fetch: (input, init) => outbound(String(input), { ...init, redirect: 'manual', signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal }),
    requestInit: { headers: connection.secret === null ? {} : { authorization: `Bearer ${connection.secret}` } },
  });
  const client = new Client({ name: clientName, version: '1' });
  try {
    await client.connect(transport);
    return await use(client);
  } catch (error) {
    if (error instanceof ActionFailure) throw error;
    const refusal = refusalIn(error);
    if (refusal) throw new ActionFailure('target_refused', `mcp: request refused: ${refusal.message}`, false);
    const status = (error as { code?: unknown }).code;
    const why =
      typeof status === 'number' && status >= 400 && status < 600
        ? `answered status ${status}`
        : signal.aborted
          ? 'did not answer in time'
          : 'did not answer as an MCP server';
    throw new ActionFailure('mcp_error', `mcp: ${url.host} ${why}`, false);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Reads every page of the server's `tools/list` (withRemoteMcp's failures). */
export function listRemoteTools(connection: ResolvedConnection, outbound: OutboundFetch, signal: AbortSignal): Promise<RemoteTool[]> {
  return withRemoteMcp(connection, outbound, signal, 'svc-connection-probe', async (client) => {
    const tools: RemoteTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor });
      for (const tool of result.tools)
        tools.push({ name: tool.name, read_only_hint: typeof tool.annotations?.readOnlyHint === 'boolean' ? tool.annotations.readOnlyHint : null });
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  });
}

/** What one tool call answered: its content items, its structured content (null when none) and whether the tool reported an error. */
export type ToolAnswer = { content: unknown[]; structured_content: Record<string, unknown> | null; is_error: boolean };

/**
 * Calls `tool` once with `args`, `_meta.idempotency_key` set to `idempotencyKey`, in a
 * session of its own (withRemoteMcp's failures). The caller decides on authority first.
 */
export function callRemoteTool(
  connection: ResolvedConnection,
  outbound: OutboundFetch,
  signal: AbortSignal,
  call: { clientName: string; tool: string; args: Record<string, unknown>; idempotencyKey: string },
): Promise<ToolAnswer> {
  return withRemoteMcp(connection, outbound, signal, call.clientName, async (client) => {
    const result = await client.callTool({ name: call.tool, arguments: call.args, _meta: { idempotency_key: call.idempotencyKey } }, undefined, { signal });
    const structured = result.structuredContent;
    return {
      content: Array.isArray(result.content) ? result.content : [],
      structured_content: structured !== null && typeof structured === 'object' ? (structured as Record<string, unknown>) : null,
      is_error: result.isError === true,
    };
  });
}

/** The tools a connection's `config` lets any caller invoke (`allowed_tools`) and, of those, run unattended (`read_only_tools`). */
export function toolAuthority(connection: Pick<ResolvedConnection, 'config'>): { allowed: string[]; readOnly: string[] } {
  const names = (value: unknown) => (Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : []);
  return { allowed: names(connection.config.allowed_tools), readOnly: names(connection.config.read_only_tools) };
}
