/** How a bound adapter's answers read for a managed effect (domain/effects/managed.ts; SPEC.md "Managed containment actions"). */
import { describe, expect, it } from 'vitest';
import { applyVerdict, handleFrom, managedActions, ownershipPlan, readBack } from '../../../domain/effects/managed.ts';

describe('managedActions', () => {
  it('names the twelve response actions with their effect type, target type and role', () => {
    expect(Object.keys(managedActions).sort()).toHaveLength(12);
    expect(managedActions['response.host_isolate']).toEqual({ effectType: 'contain', targetType: 'host', role: 'block', input: 'host' });
    expect(managedActions['response.domain_status']).toEqual({ effectType: 'block', targetType: 'domain', role: 'status', input: 'domain' });
  });

  it('runs disable_identity on an identity as block, unblock and status, the target under `identity`', () => {
    const identity = Object.entries(managedActions).filter(([, m]) => m.effectType === 'disable_identity');
    expect(Object.fromEntries(identity)).toEqual({
      'response.identity_disable': { effectType: 'disable_identity', targetType: 'identity', role: 'block', input: 'identity' },
      'response.identity_enable': { effectType: 'disable_identity', targetType: 'identity', role: 'unblock', input: 'identity' },
      'response.identity_status': { effectType: 'disable_identity', targetType: 'identity', role: 'status', input: 'identity' },
    });
  });
});

describe('applyVerdict', () => {
  it('reads a success as performed with its handle, a duplicate as already enforced, and nothing else as applied', () => {
    expect(applyVerdict({ ok: true, output: { rule_id: 'r-9', success: true } })).toEqual({
      status: 'applied',
      enforcementPerformed: true,
      already: false,
      handle: 'r-9',
    });
    expect(applyVerdict({ ok: true, output: { decision_id: 42 } })).toMatchObject({ handle: '42' });
    expect(applyVerdict({ ok: true, output: { exit_code: 0 } })).toMatchObject({ status: 'applied', handle: null });
    expect(applyVerdict({ ok: false, type: 'vendor_already_present', message: 'duplicate_of_existing' })).toEqual({
      status: 'applied',
      enforcementPerformed: false,
      already: true,
      handle: null,
    });
    expect(applyVerdict({ ok: true, output: { affected: 0 } })).toMatchObject({ status: 'failed', code: 'adapter_affected_nothing' });
    expect(applyVerdict({ ok: true, output: { affected_count: 0 } })).toMatchObject({ status: 'failed', code: 'adapter_affected_nothing' });
    expect(applyVerdict({ ok: false, type: 'vendor_refused', message: 'zone locked' })).toEqual({
      status: 'failed',
      code: 'vendor_refused',
      message: 'zone locked',
    });
  });

  it('takes the handle from the vocabulary names only, trimmed', () => {
    expect(handleFrom({ id: 'x', handle: ' h-1 ' })).toBe('h-1');
    expect(handleFrom({ id: 'x' })).toBeNull();
    expect(handleFrom(null)).toBeNull();
  });
});

describe('readBack', () => {
  const enforced = { output: 'mode', values: ['block', ' Challenge '] };
  it('is enforced only when the declared output equals a declared value, trimmed and ignoring case', () => {
    expect(readBack({ mode: 'BLOCK ' }, enforced)).toBe(true);
    expect(readBack({ mode: 'challenge' }, enforced)).toBe(true);
    expect(readBack({ mode: 'whitelist' }, enforced)).toBe(false);
    expect(readBack({ mode: null }, enforced)).toBe(false);
    expect(readBack({}, enforced)).toBe(false);
    expect(readBack({ mode: { value: 'block' } }, enforced)).toBe(false);
    expect(readBack({ exit_code: 0 }, { output: 'exit_code', values: ['0'] })).toBe(true);
  });
});

describe('ownershipPlan', () => {
  it('is already enforced when our entry is there, refuses a target there as held by another, and applies otherwise', () => {
    expect(ownershipPlan(true, true)).toBe('already_enforced');
    expect(ownershipPlan(false, true)).toBe('refuse');
    expect(ownershipPlan(false, false)).toBe('apply');
  });
});
