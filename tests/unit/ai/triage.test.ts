import { describe, expect, it } from 'vitest';
import { acceptTriage, triagePrompt, triageRecord, type TriageInput, type TriageOutput } from '../../../domain/ai/triage.ts';

const input: TriageInput = {
  case: { id: 'c-1', key: 'SVC-1', title: 'Beacon', description: null, severity: 'high', status: 'new', tags: [], attack_techniques: ['T1071'] },
  alerts: Array.from({ length: 25 }, (_, i) => ({
    id: `a-${i}`,
    title: `Alert ${i}`,
    severity: 'high',
    source: 'detector',
    rule_id: 'r-1',
    detected_at: '2026-11-25T00:00:00.000Z',
    payload: { host: 'web-01', blob: 'x'.repeat(10_000) },
  })),
  observables: [{ id: 'o-1', type: 'ip', value: '203.0.113.7' }],
  runbooks: [{ slug: 'contain-host', name: 'Contain host', description: null }],
};
const output: TriageOutput = {
  verdict: 'true_positive',
  confidence: 0.8,
  rationale: 'Beaconing to a known C2.',
  evidence_refs: ['a-0', 'o-1', 'a-99'],
  suggested_runbook: 'contain-host',
};

describe('triagePrompt', () => {
  it('carries at most 20 alerts with their raw events cut, and lists every id it sent', () => {
    const { prompt, sentIds } = triagePrompt(input);
    expect(sentIds.has('a-19')).toBe(true);
    expect(sentIds.has('a-20')).toBe(false);
    expect(sentIds.has('o-1') && sentIds.has('c-1') && sentIds.has('SVC-1')).toBe(true);
    expect(prompt).toContain('"more_alerts_not_shown": true');
    expect(prompt.length).toBeLessThan(20 * 4200 + 5000);
  });
});

describe('acceptTriage', () => {
  it('accepts a well-formed verdict', () => expect(acceptTriage(output)).toBeNull());
  it.each([
    [{ verdict: 'malicious' }, 'verdict'],
    [{ confidence: 1.5 }, 'confidence'],
    [{ confidence: Number.NaN }, 'confidence'],
    [{ rationale: '  ' }, 'rationale'],
  ])('refuses %o as ai_triage_output_invalid naming %s', (change, field) => {
    const refusal = acceptTriage({ ...output, ...change });
    expect(refusal?.code).toBe('ai_triage_output_invalid');
    expect(refusal?.message).toContain(field);
  });
});

describe('triageRecord', () => {
  const sent = { ids: new Set(['c-1', 'a-0', 'o-1']), runbooks: new Set(['contain-host']) };
  const call = { provider: 'compatible_api', model: 'm-1', output_digest: 'sha256:ab' };

  it('keeps only evidence the prompt carried, the rest unverified', () => {
    const r = triageRecord(output, sent, call);
    expect(r).toMatchObject({
      state: 'complete',
      evidence_refs: ['a-0', 'o-1'],
      unverified_evidence_refs: ['a-99'],
      suggested_runbook: 'contain-host',
      error_code: null,
    });
  });

  it('drops an invented runbook slug and reports suggested_runbook_rejected', () => {
    const r = triageRecord({ ...output, suggested_runbook: 'delete-everything' }, sent, call);
    expect(r.suggested_runbook).toBeNull();
    expect(r.error_code).toBe('suggested_runbook_rejected');
  });
});
