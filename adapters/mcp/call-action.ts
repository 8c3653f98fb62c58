/**
 * `mcp.call` (connection kind `mcp`, risk arbitrary; SPEC.md "Generic actions", "outbound
 * MCP"): calls one tool of a remote MCP server with the official SDK client, through the
 * guarded edge (adapters/mcp/remote-tools.ts).
 *
 * The connection is the authority, never the server: a tool outside `config.allowed_tools`
 * fails the step (`mcp_tool_not_allowed`) before anything is sent, and a tool outside
 * `config.read_only_tools` waits for a human at a gate before every live execution, manual
 * runs and `autonomous` steps included; the approval covers that tool with those arguments
 * on that connection, and `execute` decides again on the connection the call is made on.
 * The server's tool list and read-only hints are never read here.
 *
 * The call carries `_meta.idempotency_key` `svc-<delivery id>`: the same for retries and
 * crash re-executions of one pass, so a server that honours it can drop a repeat. A tool
 * answering `isError` fails the step (`mcp_tool_error`, with the tool's text, cut), so
 * `on_error` decides what follows. Output `{content, structured_content}`.
 */
import type * as v from 'valibot';
import type { OutboundFetch } from '../actions/outbound-http.ts';
import { callRemoteTool, toolAuthority } from './remote-tools.ts';
import { RISK_GATE_ROLES } from '../../domain/runs/index.ts';
import {
  ActionFailure,
  ApprovalRequired,
  approvalCovers,
  requestDigest,
  type ActionDefinition,
  type ActionGate,
  type ResolvedConnection,
} from '../actions/action.ts';
import { builtinSchemas } from '../actions/builtin-schemas.ts';

type Input = { tool: string; arguments?: Record<string, unknown> };
type Output = { content: unknown[]; structured_content: Record<string, unknown> | null };

/** Longest tool error text a step's error repeats, characters. */
const MAX_ERROR_TEXT = 500;

/** The gate a call of a tool outside `read_only_tools` opens: an approval covers this tool with these arguments on this connection. */
const gateOf = (connection: ResolvedConnection, input: Input): ActionGate => ({
  reason: 'risk',
  roles: RISK_GATE_ROLES,
  message: `MCP tool ${input.tool} on ${connection.name} is not in its read_only_tools: a person approves each call`,
  request: requestDigest({ action: 'mcp.call', connection: connection.id, tool: input.tool, arguments: input.arguments ?? {} }),
});

const errorText = (content: unknown[]): string =>
  content
    .map((c) => (c !== null && typeof c === 'object' && (c as { type?: unknown }).type === 'text' ? String((c as { text?: unknown }).text ?? '') : ''))
    .join(' ')
    .trim()
    .slice(0, MAX_ERROR_TEXT);

/** The action over the guarded edge `outbound`; `resolveConnection` reads a connection by name for the gate. */
export function createMcpCall(deps: {
  outbound: OutboundFetch;
  resolveConnection: (name: string) => Promise<ResolvedConnection | null>;
}): ActionDefinition<Input, Output> {
  const schemas = builtinSchemas['mcp.call'];
  if (!schemas) throw new Error('no built-in schemas for mcp.call');
  const requireConnection = (connection: ResolvedConnection | null): ResolvedConnection => {
    if (!connection) throw new ActionFailure('connection_missing', 'mcp.call needs with.connection naming an mcp connection', false);
    return connection;
  };
  return {
    name: 'mcp.call',
    connectionKind: 'mcp',
    risk: 'arbitrary',
    input: schemas.input as v.GenericSchema<unknown, Input>,
    output: schemas.output,
    async gate(input, context) {
      // Unknown connection or a tool it does not allow: nothing to ask a human, the step fails on it.
      const connection = context.connectionName === null ? null : await deps.resolveConnection(context.connectionName);
      if (connection?.kind !== 'mcp') return null;
      const { allowed, readOnly } = toolAuthority(connection);
      if (!allowed.includes(input.tool) || readOnly.includes(input.tool)) return null;
      return gateOf(connection, input);
    },
    execute: async (input, context) => {
      const connection = requireConnection(context.connection);
      const { allowed, readOnly } = toolAuthority(connection);
      if (!allowed.includes(input.tool)) {
        throw new ActionFailure('mcp_tool_not_allowed', `mcp: ${input.tool} is not in the allowed_tools of ${connection.name}`, false);
      }
      // Decided again on the connection this call is made on: a tool no longer read-only, or
      // a call other than the one approved, waits for a person.
      if (!readOnly.includes(input.tool)) {
        const gate = gateOf(connection, input);
        if (!approvalCovers(context.approval, gate.request)) throw new ApprovalRequired([gate]);
      }
      const { content, structured_content, is_error } = await callRemoteTool(connection, deps.outbound, context.signal, {
        clientName: 'svc-mcp-call',
        tool: input.tool,
        args: input.arguments ?? {},
        idempotencyKey: `svc-${context.deliveryId}`,
      });
      if (is_error) throw new ActionFailure('mcp_tool_error', `mcp: ${input.tool} answered an error: ${errorText(content)}`, false);
      return { content, structured_content };
    },
    preview: async (input, context) => ({ connection: context.connection?.name ?? null, tool: input.tool, arguments: input.arguments ?? {} }),
  };
}
