import { describe, expect, it } from 'vitest';
import { acceptAgentOutput, agentMove, agentPrompt, type AgentOutput } from '../../../domain/ai/agent.ts';

const tools = [
  { name: 'lookup', read_only: true },
  { name: 'isolate', read_only: false },
];
const answer = (over: Partial<AgentOutput>): AgentOutput => ({ next: 'call_tool', tool: 'lookup', arguments: { host: 'h' }, summary: ' s ', ...over });

describe('agentMove', () => {
  it('calls a read-only tool, stops at any other offered tool, and refuses one not offered', () => {
    expect(agentMove(answer({}), tools)).toEqual({ kind: 'call', tool: 'lookup', arguments: { host: 'h' } });
    expect(agentMove(answer({ tool: 'isolate' }), tools)).toEqual({ kind: 'write_intent', tool: 'isolate', arguments: { host: 'h' }, summary: 's' });
    expect(agentMove(answer({ tool: 'wipe', arguments: null }), tools)).toMatchObject({ kind: 'refused', tool: 'wipe', arguments: {} });
    expect(agentMove(answer({ next: 'finish', tool: null }), tools)).toEqual({ kind: 'finish', summary: 's' });
  });
});

describe('acceptAgentOutput', () => {
  it('refuses an unknown next move and a tool call without a tool', () => {
    expect(acceptAgentOutput(answer({}))).toBeNull();
    expect(acceptAgentOutput(answer({ next: 'delete_everything' }))?.code).toBe('ai_structured_output_invalid');
    expect(acceptAgentOutput(answer({ tool: ' ' }))?.message).toContain('without naming one');
  });
});

describe('agentPrompt', () => {
  it('carries the goal, the offered tools and every earlier call with its result cut to 2000 characters', () => {
    const { prompt } = agentPrompt('find it', tools, [{ tool: 'lookup', arguments: {}, ok: true, result: { blob: 'x'.repeat(5000) } }]);
    const data = JSON.parse(prompt.replace(/^<data>\n/, '').replace(/\n<\/data>$/, ''));
    expect(data.goal).toBe('find it');
    expect(data.tools).toEqual(tools);
    expect(data.calls_so_far[0].result).toHaveLength(2001);
  });
});
