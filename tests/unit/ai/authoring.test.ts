import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { draftBoundsProblem, draftPrompt, gateStateChangingSteps } from '../../../domain/ai/runbook-draft.ts';
import { explanationBoundsProblem, explanationOf, explanationPrompt, type ExplainedLogRow } from '../../../domain/ai/run-explanation.ts';

const changesState = (action: string) => ['response.ip_block', 'case.update'].includes(action);

const yaml = `# drafted
id: contain
name: Contain
version: 1
enabled: false
trigger: { type: manual }
steps:
  - id: look
    action: response.ip_status
    with: { ip: 192.0.2.1 }
  - id: block
    action: response.ip_block
    autonomous: true
    with: { ip: 192.0.2.1 }
  - id: tag
    action: case.update
    approval: { roles: [admin], message: mine }
    autonomous: true
`;

describe('gateStateChangingSteps', () => {
  it('gates every state-changing step without an approval, keeps an existing one, and drops autonomous from both', () => {
    const gated = gateStateChangingSteps(yaml, changesState);
    const steps = parse(gated.yaml_text).steps;
    expect(steps[0]).not.toHaveProperty('approval');
    expect(steps[1].approval).toEqual({ roles: ['approver', 'admin'], message: expect.stringContaining('Drafted by AI') });
    expect(steps[1]).not.toHaveProperty('autonomous');
    expect(steps[2]).toMatchObject({ approval: { roles: ['admin'], message: 'mine' } });
    expect(steps[2]).not.toHaveProperty('autonomous');
    expect(gated).toMatchObject({
      slug: 'contain',
      name: 'Contain',
      actions_used: ['case.update', 'response.ip_block', 'response.ip_status'],
      approval_steps: ['block', 'tag'],
      approvals_added: ['block'],
    });
    expect(gated.yaml_text).toContain('# drafted');
  });

  it('disables a draft the model enabled, and leaves a draft needing no change byte for byte', () => {
    expect(parse(gateStateChangingSteps(yaml.replace('enabled: false', 'enabled: true'), () => false).yaml_text).enabled).toBe(false);
    expect(parse(gateStateChangingSteps(yaml.replace('enabled: false\n', ''), () => false).yaml_text).enabled).toBe(false);
    const quiet = yaml.replaceAll('    autonomous: true\n', '');
    expect(gateStateChangingSteps(quiet, () => false).yaml_text).toBe(quiet);
  });

  it('passes text that is not a runbook map through untouched, for validation to refuse', () => {
    for (const text of ['- just\n- a list\n', 'id: [unclosed', 'steps: not-a-list\n']) {
      const gated = gateStateChangingSteps(text, changesState);
      expect(gated.actions_used).toEqual([]);
      expect(gated.approval_steps).toEqual([]);
    }
    expect(gateStateChangingSteps('id: [unclosed', changesState).yaml_text).toBe('id: [unclosed');
  });
});

describe('draftPrompt and draftBoundsProblem', () => {
  it('carries the description and the sorted action names only', () => {
    const { prompt } = draftPrompt('Block the source', ['z.act', 'a.act']);
    expect(prompt).toBe('<actions>\na.act\nz.act\n</actions>\n<description>\nBlock the source\n</description>');
  });

  it('names the first bound an answer passes', () => {
    const ok = { yaml_text: 'id: x', summary: 's', notes: [] };
    expect(draftBoundsProblem(ok)).toBeNull();
    expect(draftBoundsProblem({ ...ok, yaml_text: ' ' })).toBe('yaml_text is empty');
    expect(draftBoundsProblem({ ...ok, notes: Array(21).fill('n') })).toBe('more than 20 notes');
  });
});

const row = (step_id: string, extra: Partial<ExplainedLogRow> = {}): ExplainedLogRow => ({
  step_id,
  action: 'case.update',
  attempt: 1,
  status: 'ok',
  input: { tags_add: ['x'] },
  output: { blob: 'y'.repeat(5000) },
  error: null,
  started_at: '2026-11-27T10:00:00.000Z',
  finished_at: '2026-11-27T10:00:01.000Z',
  ...extra,
});

describe('run explanation', () => {
  const run = { id: 'r-1', runbook_id: 'tag-case', status: 'succeeded', trigger_type: 'manual' };

  it('sends at most 200 log rows, each value cut to 2000 characters, and says when rows were left out', () => {
    const { prompt } = explanationPrompt(
      run,
      Array.from({ length: 205 }, (_, i) => row(`s${i}`)),
    );
    const data = JSON.parse(prompt.replace(/^<data>\n/, '').replace(/\n<\/data>$/, ''));
    expect(data.action_log).toHaveLength(200);
    expect(data.more_rows_not_shown).toBe(true);
    expect(data.action_log[0].output.length).toBe(2001);
    expect(data.run).toEqual(run);
  });

  it('flags in_log exactly for the steps the log has', () => {
    const out = explanationOf(
      {
        summary: ' s ',
        steps: [
          { step_id: 'a', explanation: 'e' },
          { step_id: 'b', explanation: 'f' },
        ],
        outcome: 'o',
        next_steps: [],
        risks: ['r'],
      },
      [row('a'), row('a', { attempt: 2 })],
    );
    expect(out.steps).toEqual([
      { step_id: 'a', explanation: 'e', in_log: true },
      { step_id: 'b', explanation: 'f', in_log: false },
    ]);
    expect(out.summary).toBe('s');
  });

  it('refuses an empty summary or an oversized answer', () => {
    const ok = { summary: 's', steps: [], outcome: 'o', next_steps: [], risks: [] };
    expect(explanationBoundsProblem(ok)).toBeNull();
    expect(explanationBoundsProblem({ ...ok, summary: '' })).toBe('summary is empty');
    expect(explanationBoundsProblem({ ...ok, risks: Array(21).fill('r') })).toBe('more than 20 risks');
    expect(explanationBoundsProblem({ ...ok, outcome: 'o'.repeat(4001) })).toBe('a text is over 4000 characters');
  });
});
