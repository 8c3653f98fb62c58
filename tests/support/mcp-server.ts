/**
 * A real MCP server built with the official SDK (McpServer over stateless Streamable
 * HTTP) on 127.0.0.1, for outbound MCP tests. It advertises `tools` (name and read-only
 * hint), wants `Authorization: Bearer <token>` (401 otherwise) and records tool calls
 * (which a discovery probe must never make).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** One tool call as the server saw it: the tool, its arguments and the request's `_meta`. */
export type SeenToolCall = { name: string; args: Record<string, unknown>; meta: Record<string, unknown> | undefined };

export type TestMcpServer = { url: string; toolCalls: () => number; seen: SeenToolCall[]; close: () => Promise<void> };

/**
 * Starts the server. Each tool takes any arguments and answers `done` with the arguments
 * as structured content, or, with `fails`, an `isError` answer saying `tool broke`.
 */
export async function startMcpServer(token: string, tools: { name: string; readOnly: boolean; fails?: boolean }[]): Promise<TestMcpServer> {
  const seen: SeenToolCall[] = [];
  const build = () => {
    const mcp = new McpServer({ name: 'test-mcp', version: '1.0.0' });
    for (const tool of tools) {
      mcp.registerTool(
        tool.name,
        { description: `test tool ${tool.name}`, annotations: { readOnlyHint: tool.readOnly }, inputSchema: z.object({}).passthrough() },
        async (args, extra) => {
          seen.push({ name: tool.name, args: args as Record<string, unknown>, meta: extra._meta as Record<string, unknown> | undefined });
          if (tool.fails) return { content: [{ type: 'text', text: 'tool broke' }], isError: true };
          return { content: [{ type: 'text', text: 'done' }], structuredContent: { echo: args } };
        },
      );
    }
    return mcp;
  };
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body: unknown = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const mcp = build();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      mcp
        .connect(transport)
        .then(() => transport.handleRequest(req, res, body))
        .catch(() => res.headersSent || res.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    toolCalls: () => seen.length,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
