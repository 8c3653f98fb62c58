/**
 * `ai.agent` (connection kind `mcp`, risk read; SPEC.md "Generic actions", "outbound MCP",
 * "AI data-class gating"): a bounded loop in which the model gathers context through the
 * step's MCP connection (domain/ai/agent.ts decides each move).
 *
 * - Tools offered: the connection's `allowed_tools`, narrowed by `with.tools` when given.
 *   Only those in `read_only_tools` are called unattended; asking for any other is a write
 *   intent: it stops the loop and opens an approval gate on the step (ApprovalRequired,
 *   reason `risk`, approvers and admins; the message names the tool and its arguments),
 *   with what the loop found so far kept in the gate (`resume`). Approved, the step runs
 *   again and makes exactly that call, once, and ends (`stop_reason: write_intent`, the call
 *   last in `tool_calls`); denied, the run ends `denied` with no call made. The approval
 *   covers that tool with those arguments on that connection, and nothing else; no AI path
 *   decides it. A tool outside the offer is refused back to the model as a failed call.
 * - Bounds: `max_steps` turns (default 5), `max_tokens` tokens across the turns (default
 *   20,000, the provider's counts), and the step's `timeout_s`; whichever comes first ends
 *   the loop with its `stop_reason`.
 * - Every turn is one AI call through the call path (feature `agent`, the classes the step
 *   declares in `data_classes`, default none), so one audit row per turn; a refused or
 *   failed turn fails the step under its AI code (retryable as `ai.triage`'s are). Tool
 *   results reach the next prompt redacted, as every prompt is.
 * - Each tool call carries `_meta.idempotency_key` `svc-<delivery id>-<turn>`: the approved
 *   write keeps the key of the turn that asked for it, so a crash re-execution repeats it.
 */
import * as v from 'valibot';
import { acceptAgentOutput, AGENT_LIMITS, agentMove, agentOutputSchema, agentPrompt, type AgentTool, type AgentTurn } from '../../domain/ai/agent.ts';
import type { AiDataClass } from '../../domain/ai/settings.ts';
import type { AiInvoker } from './invoke.ts';
import { systemActor } from '../commands/audit.ts';
import { callRemoteTool, toolAuthority } from '../mcp/remote-tools.ts';
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
import { aiStepFailure } from './step-failure.ts';
import { builtinSchemas } from '../actions/builtin-schemas.ts';
import type { OutboundFetch } from '../actions/outbound-http.ts';

type Input = { goal: string; tools?: string[]; max_steps?: number; data_classes?: AiDataClass[]; max_tokens?: number };
type StopReason = 'finished' | 'write_intent' | 'max_steps' | 'token_budget' | 'time';
type Output = { summary: string; tool_calls: { tool: string; ok: boolean }[]; stopped_for_approval: boolean; stop_reason: StopReason };

/** Longest rendering of a write's arguments an approver reads in the gate's message, characters. */
const MAX_ARGUMENTS_TEXT = 500;

/** What a loop stopped at a write intent keeps in its gate (ActionGate.resume) to make the call once approved. */
const resumeSchema = v.object({
  turn: v.pipe(v.number(), v.integer(), v.minValue(1)),
  summary: v.string(),
  tool_calls: v.array(v.object({ tool: v.string(), ok: v.boolean() })),
  call: v.object({ tool: v.string(), arguments: v.record(v.string(), v.unknown()) }),
});
type Resume = v.InferOutput<typeof resumeSchema>;

/** The gate a write intent opens: an approval covers this tool with these arguments on this connection. */
function writeGate(connection: ResolvedConnection, resume: Resume): ActionGate {
  const args = JSON.stringify(resume.call.arguments);
  const shown = args.length <= MAX_ARGUMENTS_TEXT ? args : `${args.slice(0, MAX_ARGUMENTS_TEXT)}…`;
  return {
    reason: 'risk',
    roles: RISK_GATE_ROLES,
    message: `ai.agent asks to call ${resume.call.tool} on ${connection.name} with ${shown}: it is not in read_only_tools, so a person approves it`,
    request: requestDigest({ action: 'ai.agent', connection: connection.id, tool: resume.call.tool, arguments: resume.call.arguments }),
    resume,
  };
}

export function createAiAgentAction(deps: { ai: AiInvoker; outbound: OutboundFetch }): ActionDefinition<Input, Output> {
  const schemas = builtinSchemas['ai.agent'];
  if (!schemas) throw new Error('no built-in schemas for ai.agent');

  return {
    name: 'ai.agent',
    connectionKind: 'mcp',
    risk: 'read',
    input: schemas.input as v.GenericSchema<unknown, Input>,
    output: schemas.output,
    execute: async (input, context) => {
      const { connection } = context;
      if (!connection) throw new ActionFailure('connection_missing', 'ai.agent needs with.connection naming an mcp connection', false);
      const { allowed, readOnly } = toolAuthority(connection);
      const resumed = v.safeParse(resumeSchema, context.resume);
      if (resumed.success) {
        const { turn, summary, tool_calls, call } = resumed.output;
        const gate = writeGate(connection, resumed.output);
        if (!approvalCovers(context.approval, gate.request)) throw new ApprovalRequired([gate]);
        if (!allowed.includes(call.tool)) {
          throw new ActionFailure('mcp_tool_not_allowed', `mcp: ${call.tool} is no longer in the allowed_tools of ${connection.name}`, false);
        }
        const made = await callRemoteTool(connection, deps.outbound, context.signal, {
          clientName: 'svc-ai-agent',
          tool: call.tool,
          args: call.arguments,
          idempotencyKey: `svc-${context.deliveryId}-${turn}`,
        });
        return { summary, tool_calls: [...tool_calls, { tool: call.tool, ok: !made.is_error }], stopped_for_approval: true, stop_reason: 'write_intent' };
      }
      const offered = input.tools ? allowed.filter((t) => input.tools?.includes(t)) : allowed;
      const tools: AgentTool[] = offered.map((name) => ({ name, read_only: readOnly.includes(name) }));
      const maxSteps = input.max_steps ?? AGENT_LIMITS.defaultSteps;
      const budget = input.max_tokens ?? AGENT_LIMITS.defaultTokenBudget;
      const history: AgentTurn[] = [];
      const toolCalls: Output['tool_calls'] = [];
      let summary = '';
      let spent = 0;
      const end = (stop_reason: StopReason): Output => ({ summary, tool_calls: toolCalls, stopped_for_approval: false, stop_reason });
      for (let turn = 1; turn <= maxSteps; turn++) {
        if (context.signal.aborted) return end('time');
        if (spent >= budget) return end('token_budget');
        const { system, prompt } = agentPrompt(input.goal, tools, history);
        const answer = await deps.ai.invoke({
          feature: 'agent',
          classes: input.data_classes ?? [],
          actor: systemActor('runbook_run'),
          target: context.caseId === null ? { type: 'run', id: context.runId } : { type: 'case', id: context.caseId },
          team: null,
          system,
          prompt,
          output: agentOutputSchema,
          schemaName: 'agent_turn',
          accept: acceptAgentOutput,
        });
        if (!answer.ok) throw aiStepFailure(answer.refusal);
        spent += answer.usage.total_tokens ?? (answer.usage.prompt_tokens ?? 0) + (answer.usage.completion_tokens ?? 0);
        summary = answer.output.summary.trim() || summary;
        const move = agentMove(answer.output, tools);
        if (move.kind === 'finish') return end('finished');
        if (move.kind === 'write_intent') {
          throw new ApprovalRequired([writeGate(connection, { turn, summary, tool_calls: toolCalls, call: { tool: move.tool, arguments: move.arguments } })]);
        }
        if (move.kind === 'refused') {
          toolCalls.push({ tool: move.tool, ok: false });
          history.push({ tool: move.tool, arguments: move.arguments, ok: false, result: move.reason });
          continue;
        }
        const { content, structured_content, is_error } = await callRemoteTool(connection, deps.outbound, context.signal, {
          clientName: 'svc-ai-agent',
          tool: move.tool,
          args: move.arguments,
          idempotencyKey: `svc-${context.deliveryId}-${turn}`,
        });
        toolCalls.push({ tool: move.tool, ok: !is_error });
        history.push({ tool: move.tool, arguments: move.arguments, ok: !is_error, result: { content, structured_content } });
      }
      return end('max_steps');
    },
    preview: async (input, context) => ({ connection: context.connection?.name ?? null, goal: input.goal, tools: input.tools ?? null, sends_to_ai: true }),
  };
}
