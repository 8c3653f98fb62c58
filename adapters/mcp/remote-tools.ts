/**
 * Outbound MCP, discovery only (SPEC.md "Connection" mcp keys and "outbound MCP"): the
 * tool list a remote MCP server advertises, read with the official SDK's client over
 * Streamable HTTP through the guarded edge, with the connection's secret as the bearer
 * credential. What the server advertises (names, read-only hints) is never authority:
 * `config.allowed_tools` and `config.read_only_tools` are.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { refusalIn, type OutboundFetch } from '../actions/outbound-http.ts';

/** One advertised tool: its name and the server's read-only hint (null: not given). */
export type RemoteTool = { name: string; read_only_hint: boolean | null };

/** At most this many pages of `tools/list` are read, so a server cannot keep the caller paging forever. */
const MAX_PAGES = 50;

/**
 * Connects (initialize), reads every page of `tools/list` and closes. Throws a final
 * ActionFailure: 'connection_invalid' (no base_url), 'target_refused' (the edge refused
 * the host), or 'mcp_error' naming the host (unreachable, refused credential, not an MCP
 * server); never the secret.
 */
export async function listRemoteTools(connection: ResolvedConnection, outbound: OutboundFetch, signal: AbortSignal): Promise<RemoteTool[]> {
  if (!connection.base_url) throw new ActionFailure('connection_invalid', `mcp: connection '${connection.name}' has no base_url`, false);
  const url = new URL(connection.base_url);
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: (input, init) => outbound(String(input), { ...init, redirect: 'manual', signal }),
    requestInit: { headers: connection.secret === null ? {} : { authorization: `Bearer ${connection.secret}` } },
  });
  const client = new Client({ name: 'svc-connection-probe', version: '1' });
  try {
    await client.connect(transport);
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
  } catch (error) {
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
