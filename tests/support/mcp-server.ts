/**
 * A real MCP server built with the official SDK (McpServer over stateless Streamable
 * HTTP) on 127.0.0.1, for outbound MCP tests. It advertises `tools` (name and read-only
 * hint), wants `Authorization: Bearer <token>` (401 otherwise) and counts tool calls,
 * which a discovery probe must never make.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export type TestMcpServer = { url: string; toolCalls: () => number; close: () => Promise<void> };

export async function startMcpServer(token: string, tools: { name: string; readOnly: boolean }[]): Promise<TestMcpServer> {
  let calls = 0;
  const build = () => {
    const mcp = new McpServer({ name: 'test-mcp', version: '1.0.0' });
    for (const tool of tools) {
      mcp.registerTool(tool.name, { description: `test tool ${tool.name}`, annotations: { readOnlyHint: tool.readOnly } }, async () => {
        calls++;
        return { content: [{ type: 'text', text: 'done' }] };
      });
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
    toolCalls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
