import { describe, expect, it } from 'vitest';
import { withObservables } from '../../../adapters/commands/intake.ts';

const alert = (observables: { type: string; value: string }[], matched_log: Record<string, unknown> = {}) =>
  withObservables({
    source: 'detector',
    external_id: 'a-1',
    rule_id: 'r-1',
    title: 'Test',
    severity: 'high',
    detected_at: null,
    url: null,
    correlation_root: null,
    suite_correlation_id: null,
    team: null,
    matched_log,
    observables,
    payload: {},
  }).observables;

describe('alert observables at intake', () => {
  it('normalizes explicit and ECS observables by their type', () => {
    expect(alert([{ type: 'domain', value: 'Evil.Example.' }], { 'source.ip': '::ffff:203.0.113.7', user: { name: 'J.Doe' } })).toEqual([
      { type: 'domain', value: 'Evil.Example.', normalized: 'evil.example' },
      { type: 'ip', value: '::ffff:203.0.113.7', normalized: '203.0.113.7' },
      { type: 'user', value: 'J.Doe', normalized: 'j.doe' },
    ]);
  });

  it('keeps an unknown type by name, and leaves a value invalid for its type without a normalized form', () => {
    expect(
      alert([
        { type: 'process', value: 'mimikatz.exe' },
        { type: 'ip', value: '127.1' },
        { type: 'other', value: 'x'.repeat(3000) },
      ]),
    ).toEqual([
      { type: 'process', value: 'mimikatz.exe', normalized: 'mimikatz.exe' },
      { type: 'ip', value: '127.1' },
      { type: 'other', value: 'x'.repeat(3000) },
    ]);
  });
});
