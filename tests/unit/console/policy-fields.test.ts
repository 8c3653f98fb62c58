import { describe, expect, it } from 'vitest';
import { effectTargets } from '../../../domain/response-policy/policy.ts';
import { EFFECT_TARGETS, newBinding, policyDiff, targetFor } from '../../../console/src/settings/policy-fields.ts';

const base = { protected_targets: [], ttl: { min_seconds: 60, max_seconds: 86_400 }, automatic_grants: [], adapters: [] };

describe('the response policy editor', () => {
  it('offers for each effect type the target types the service takes', () => {
    expect(EFFECT_TARGETS).toEqual(effectTargets);
    expect(targetFor('contain', 'ip')).toBe('host');
    expect(targetFor('block', 'domain')).toBe('domain');
  });

  it('shows what a version changed as added and removed lines of its document', () => {
    expect(policyDiff(base, { ...base })).toEqual([]);
    const diff = policyDiff(base, { ...base, ttl: { min_seconds: 60, max_seconds: 3600 }, protected_targets: [{ type: 'ip', value: '10.0.0.0/8' }] });
    expect(diff).toContain('-     "max_seconds": 86400,');
    expect(diff).toContain('+     "max_seconds": 3600,');
    expect(diff.filter((line) => line.startsWith('+ ')).join('\n')).toContain('"value": "10.0.0.0/8"');
    expect(policyDiff(base, { ...base, adapters: [newBinding()] }).some((line) => line.includes('"adapter_id": ""'))).toBe(true);
    // The same document with its keys in another order (as the service stores it) changes nothing.
    expect(policyDiff(base, { adapters: [], automatic_grants: [], ttl: { max_seconds: 86_400, min_seconds: 60 }, protected_targets: [] })).toEqual([]);
  });
});
