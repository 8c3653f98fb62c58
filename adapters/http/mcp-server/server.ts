/**
 * The MCP tool server (SPEC.md "Peer endpoints", `POST, GET /peer/v1/mcp`), on the official
 * SDK's low-level `Server`: one per HTTP request (the transport is stateless), acting for
 * the one caller whose actor envelope the route accepted (adapters/http/mcp.routes.ts).
 *
 * - `tools/list`: every tool of tools.ts with the input schema of its route (input-schema.ts).
 * - `tools/call`: the arguments are routed to path, query and body; an effectful tool's
 *   `idempotency_key` is claimed first (idempotency.ts: a repeat replays the first answer,
 *   other arguments under the same key are refused); then the call runs through the REST
 *   route in process (dispatch.ts), which checks role, permission, token scope, team and
 *   case visibility as it does for REST. Refusals are tool results with `isError: true`.
 * - Every `tools/call`, an unknown tool included, writes exactly one audit entry
 *   `mcp.tool_called` (SPEC.md "Audit entry") by the envelope's actor (via its workload),
 *   target the case, run, alert or runbook the path names, detail `{tool, outcome: ok |
 *   refused | error, status, code?, idempotency_key?, replayed?, workload}`; never an
 *   argument's value beyond that id. `initialize` and `tools/list` are not audited.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { DomainError } from '../../../domain/shared/errors.ts';
import type { AuditTarget } from '../../../domain/audit/events.ts';
import { auditActorOf } from '../../commands/audit.ts';
import { recordAuditBy } from '../audited.ts';
import type { HttpDeps } from '../deps.ts';
import { errorBody } from '../errors.ts';
import type { Principal } from '../../identity/principal.ts';
import { answerBody, dispatch, toolResult, type InProcessApp } from './dispatch.ts';
import { argumentsDigest, claimKey, type IdempotencyStore, type StoredAnswer } from './idempotency.ts';
import { routeArguments, toolInput, type OpenApiDocument, type RoutedArguments, type ToolInput } from './input-schema.ts';
import { isEffectful, toolRoutes, type ToolRoute } from './tools.ts';

/** What the tool server needs: the app it dispatches into, its OpenAPI document, the idempotency store, the audit log. */
export type ToolServerDeps = Pick<HttpDeps, 'audit' | 'waitFor' | 'logError'> & {
  app: InProcessApp;
  /** The service's `/openapi.json` document (built once, on first use). */
  openApi: () => Promise<unknown>;
  idempotency: IdempotencyStore;
};

type Entry = { route: ToolRoute; input: ToolInput };
/** The tools with their inputs, built once per process from the OpenAPI document. */
export type Catalogue = { version: string; tools: Tool[]; byName: ReadonlyMap<string, Entry> };

const INSTRUCTIONS =
  'Tools of the svc incident-response service, acting as you with your own grants. A tool that changes something ' +
  'requires idempotency_key: repeat a call with the same key to get its first answer again without acting twice. ' +
  "A refusal (permission, visibility, validation) is a tool result with isError true and the service's error body.";

/** Builds the catalogue from `openApi`; throws when a tool's route is missing from it or malformed (tools.ts is wrong). */
export async function buildCatalogue(openApi: ToolServerDeps['openApi']): Promise<Catalogue> {
  const doc = (await openApi()) as OpenApiDocument & { info?: { version?: string } };
  const entries = toolRoutes.map((route) => ({ route, input: toolInput(route, doc) }));
  return {
    version: doc.info?.version ?? '0',
    tools: entries.map(({ route, input }) => ({
      name: route.name,
      description: route.description,
      inputSchema: input.schema,
      annotations: { readOnlyHint: !isEffectful(route), idempotentHint: true, openWorldHint: false },
    })),
    byName: new Map(entries.map((e) => [e.route.name, e])),
  };
}

type Outcome = { answer: StoredAnswer; replayed: boolean; key: string | null };

const refusal = (error: DomainError): StoredAnswer => ({ status: error.status, text: JSON.stringify(errorBody(error.detail, error.code, error.params)) });
const internalError: StoredAnswer = { status: 500, text: JSON.stringify(errorBody('internal error', 'internal_error')) };

/** The case, run, alert or runbook the tool's path names first, when the argument given for it looks like an id (never free text). */
function targetOf(route: ToolRoute, given: Record<string, unknown>): AuditTarget | null {
  const match = /^\/([a-z]+)s\/:([A-Za-z0-9_]+)/.exec(route.path);
  const id = match?.[2] === undefined ? undefined : given[match[2]];
  return match?.[1] !== undefined && typeof id === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(id) ? { type: match[1], id } : null;
}

/**
 * A tool server for one HTTP request made by `principal` (an exchange token with an actor);
 * `origin` is that request's scheme and host, which in-process calls reuse.
 */
export function createToolServer(deps: ToolServerDeps, catalogue: Catalogue, principal: Principal, origin: string): Server {
  const server = new Server({ name: 'svc', version: catalogue.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  const run = async (entry: Entry, given: Record<string, unknown>): Promise<Outcome> => {
    let args: RoutedArguments | null = null;
    try {
      args = routeArguments(entry.input, given);
      if (args.key === null) return { answer: await dispatch(deps.app, principal, origin, entry.route, args), replayed: false, key: null };
      const call = { subject: principal.subject, tool: entry.route.name, key: args.key, digest: argumentsDigest(args.rest) };
      const begun = await claimKey(deps.idempotency, call, 'idempotency_key');
      if (begun.kind === 'replay') return { answer: begun.answer, replayed: true, key: args.key };
      const answer = await dispatch(deps.app, principal, origin, entry.route, args);
      // Not stored: the key stays pending ("in progress") until purged, which never runs the call twice.
      await deps.idempotency.finish(call, answer).catch((error: unknown) => deps.logError(error, { tool: entry.route.name }));
      return { answer, replayed: false, key: args.key };
    } catch (error) {
      if (error instanceof DomainError) return { answer: refusal(error), replayed: false, key: args?.key ?? null };
      // Still one audit entry, outcome `error`; the route's own failures arrive as 500 answers instead.
      deps.logError(error, { tool: entry.route.name });
      return { answer: internalError, replayed: false, key: args?.key ?? null };
    }
  };

  const audit = async (tool: string, target: AuditTarget | null, outcome: Outcome) => {
    const { status } = outcome.answer;
    const code = (answerBody(outcome.answer) as { code?: unknown } | undefined)?.code;
    await recordAuditBy(deps, auditActorOf(principal), {
      action: 'mcp.tool_called',
      target,
      detail: {
        tool,
        outcome: status < 400 ? 'ok' : status < 500 ? 'refused' : 'error',
        status,
        ...(typeof code === 'string' && { code }),
        ...(outcome.key !== null && { idempotency_key: outcome.key }),
        ...(outcome.replayed && { replayed: true }),
        workload: principal.workload,
      },
    });
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalogue.tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const entry = catalogue.byName.get(request.params.name);
    if (entry === undefined) {
      const name = request.params.name.slice(0, 100);
      await audit(name, null, { answer: refusal(new DomainError('tool_not_found', 404, 'no such tool')), replayed: false, key: null });
      throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
    }
    const given = request.params.arguments ?? {};
    const outcome = await run(entry, given);
    await audit(entry.route.name, targetOf(entry.route, given), outcome);
    return toolResult(outcome.answer, outcome.replayed);
  });
  return server;
}
