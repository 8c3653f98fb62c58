import { describe, expect, it } from 'vitest';
import type { AlertTrigger, RunbookDefinition, Trigger } from '../../../domain/runbooks/model.ts';
import { matchesConditions, matchingRunbooks } from '../../../domain/runbooks/triggers.ts';

const facts = {
  severity: 'high',
  status: 'new',
  source: 'detector',
  tags: ['phishing', 'mail'],
  rule: { id: 'R-1001', severity: 'high', event_code: '4625' },
  'matched_log.host.name': 'mail-01',
  matched_log: { user: { name: 'alice' } },
  count: 3,
  external: null,
};

const matches = (conditions: AlertTrigger['conditions']) => matchesConditions(conditions, facts);

describe('matchesConditions', () => {
  it('matches every alert when there are no conditions', () => {
    expect(matchesConditions({}, {})).toBe(true);
  });

  it('matches a scalar condition on equality', () => {
    expect(matches({ source: 'detector' })).toBe(true);
    expect(matches({ source: 'webhook' })).toBe(false);
    expect(matches({ count: 3 })).toBe(true);
  });

  it('ANDs across keys', () => {
    expect(matches({ source: 'detector', severity: 'high' })).toBe(true);
    expect(matches({ source: 'detector', severity: 'low' })).toBe(false);
  });

  it('matches a list condition when it overlaps a scalar fact (membership)', () => {
    expect(matches({ severity: ['high', 'critical'] })).toBe(true);
    expect(matches({ severity: ['low', 'medium'] })).toBe(false);
  });

  it('matches a list condition when it overlaps a list fact (non-empty intersection)', () => {
    expect(matches({ tags: ['malware', 'mail'] })).toBe(true);
    expect(matches({ tags: ['malware', 'ransomware'] })).toBe(false);
  });

  it('matches a scalar condition against a list fact by membership', () => {
    expect(matches({ tags: 'phishing' })).toBe(true);
    expect(matches({ tags: 'malware' })).toBe(false);
  });

  it('looks up a flattened dotted key first, then a dotted path into nested objects', () => {
    expect(matches({ 'matched_log.host.name': 'mail-01' })).toBe(true);
    expect(matches({ 'matched_log.user.name': 'alice' })).toBe(true);
    expect(matches({ 'rule.id': 'R-1001' })).toBe(true);
    expect(matches({ 'rule.id.x': 'R-1001' })).toBe(false);
  });

  it('compares severity and status ignoring case, other strings exactly', () => {
    expect(matches({ severity: 'High' })).toBe(true);
    expect(matches({ severity: ['CRITICAL', 'HIGH'] })).toBe(true);
    expect(matches({ 'rule.severity': 'High' })).toBe(true);
    expect(matches({ status: 'NEW' })).toBe(true);
    expect(matches({ source: 'Detector' })).toBe(false);
  });

  it('compares a number condition with a text fact by their text', () => {
    expect(matches({ 'rule.event_code': 4625 })).toBe(true);
    expect(matches({ 'rule.event_code': [4624, 4625] })).toBe(true);
  });

  it('never matches an absent or null fact, nor an object fact', () => {
    expect(matches({ missing: 'x' })).toBe(false);
    expect(matches({ external: ['x', 'null'] })).toBe(false);
    expect(matches({ rule: 'R-1001' })).toBe(false);
  });

  it('never reads through the prototype', () => {
    expect(matchesConditions({ 'constructor.name': 'Object' }, {})).toBe(false);
    expect(matchesConditions({ toString: 'x' }, {})).toBe(false);
  });
});

describe('matchingRunbooks', () => {
  const runbook = (id: string, trigger: Trigger, enabled = true): RunbookDefinition => ({
    id,
    name: id,
    description: '',
    version: 1,
    enabled,
    trigger,
    inputs: [],
    steps: [],
  });

  it('returns the enabled alert-triggered runbooks whose conditions match, in id order', () => {
    const runbooks = [
      runbook('zeta-high', { type: 'alert', conditions: { severity: 'High' } }),
      runbook('alpha-any', { type: 'alert', conditions: {} }),
      runbook('beta-low', { type: 'alert', conditions: { severity: 'low' } }),
      runbook('gamma-disabled', { type: 'alert', conditions: {} }, false),
      runbook('delta-manual', { type: 'manual' }),
      runbook('epsilon-schedule', { type: 'schedule', cron: null, interval_s: 60 }),
      runbook('Mixed-case', { type: 'alert', conditions: { tags: ['mail'] } }),
    ];
    expect(matchingRunbooks(runbooks, facts).map((r) => r.id)).toEqual(['Mixed-case', 'alpha-any', 'zeta-high']);
  });

  it('does not reorder the list it was given', () => {
    const runbooks = [runbook('b', { type: 'alert', conditions: {} }), runbook('a', { type: 'alert', conditions: {} })];
    matchingRunbooks(runbooks, facts);
    expect(runbooks.map((r) => r.id)).toEqual(['b', 'a']);
  });
});
