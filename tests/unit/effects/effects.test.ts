/**
 * Managed containment on plain data (SPEC.md "Managed containment actions", "Managed
 * containment effects", "Bound-action input vocabulary"; domain/effects/): a request's
 * refusals before any binding (target type, malformed and protected targets, missing or
 * out-of-policy TTL) and its approval gate by automatic grants; the adapter refusals in
 * order and the bound action's input; the Effect decider's states, exactly once.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  boundInput,
  connectionNameOf,
  resolveAdapter,
  snapshotDigest,
  snapshotOf,
  type BoundActionFacts,
  type EnforcedDeclaration,
  type Vocabulary,
} from '../../../domain/effects/binding.ts';
import { effectDecider, type EffectCommand, type EffectEvent } from '../../../domain/effects/index.ts';
import { evaluateRequest, type EffectRequest } from '../../../domain/effects/request.ts';
import { normalizePolicy, responsePolicySchema } from '../../../domain/response-policy/policy.ts';
import { given } from '../../support/decider.ts';

const T1 = '2026-11-24T10:00:00.000Z';
const policy = normalizePolicy(
  v.parse(responsePolicySchema, {
    protected_targets: [
      { type: 'ip', value: '10.0.0.0/8' },
      { type: 'domain', value: 'corp.example.com' },
      { type: 'host', value: 'dc-01' },
    ],
    ttl: { min_seconds: 300, max_seconds: 86_400 },
    automatic_grants: [
      { effect_type: 'block', target_type: 'ip', max_ttl_seconds: 3600, severities: ['critical', 'high'] },
      { effect_type: 'contain', target_type: 'host', max_ttl_seconds: 7200 },
    ],
    adapters: [
      {
        effect_type: 'block',
        target_type: 'ip',
        adapter_id: 'edge_waf',
        block_action: 'custom.edge_waf.block',
        unblock_action: 'custom.edge_waf.unblock',
        status_action: null,
        connection_name: 'waf',
        parameters: { zone_id: 'z-1', mode: 'block' },
      },
    ],
  }),
);
const request = (over: Partial<EffectRequest> = {}): EffectRequest => ({
  effectType: 'block',
  targetType: 'ip',
  target: '203.0.113.7',
  ttlSeconds: 600,
  severity: 'high',
  ...over,
});

describe('evaluateRequest', () => {
  it('refuses before any binding, in order: the pair, a malformed or protected target, a missing or out-of-policy TTL', () => {
    const code = (over: Partial<EffectRequest>) => {
      const r = evaluateRequest(policy, request(over));
      return r.ok ? 'ok' : r.refusal.code;
    };
    expect(code({ effectType: 'contain' })).toBe('effect_target_type_invalid');
    expect(code({ target: '10.1' })).toBe('target_invalid');
    expect(code({ target: '10.20.30.40' })).toBe('target_protected');
    expect(code({ target: '0.0.0.0/0' })).toBe('target_protected');
    expect(code({ targetType: 'domain', target: 'vpn.CORP.example.com.' })).toBe('target_protected');
    expect(code({ targetType: 'domain', target: 'example.com' })).toBe('target_protected');
    expect(code({ effectType: 'contain', targetType: 'host', target: 'DC-01.' })).toBe('target_protected');
    for (const ttlSeconds of [undefined, null, 0, -5, 1.5]) expect(code({ ttlSeconds })).toBe('ttl_missing');
    expect(code({ ttlSeconds: 60 })).toBe('ttl_out_of_policy');
    expect(code({ ttlSeconds: 86_401 })).toBe('ttl_out_of_policy');
    expect(code({ target: '::ffff:203.0.113.7' })).toBe('ok');
  });

  it('names the protected targets a request hits', () => {
    const r = evaluateRequest(policy, request({ target: '10.0.0.0/7' }));
    expect(r).toMatchObject({ ok: false, refusal: { code: 'target_protected', params: { protected: [{ type: 'ip', value: '10.0.0.0/8' }] } } });
  });

  it('lets a request skip the approval gate only inside an automatic grant', () => {
    expect(evaluateRequest(policy, request())).toEqual({
      ok: true,
      target: { type: 'ip', value: '203.0.113.7' },
      ttlSeconds: 600,
      needsApproval: false,
      grantIndex: 0,
    });
    const gated = (over: Partial<EffectRequest>) => {
      const r = evaluateRequest(policy, request(over));
      if (!r.ok) throw new Error(r.refusal.code);
      return r.needsApproval;
    };
    expect(gated({ effectType: 'block', targetType: 'domain', target: 'evil.example.net' })).toBe(true);
    expect(gated({ ttlSeconds: 3601 })).toBe(true);
    expect(gated({ severity: 'low' })).toBe(true);
    expect(gated({ severity: null })).toBe(true);
    expect(gated({ effectType: 'contain', targetType: 'host', target: 'web-7', severity: null })).toBe(false);
  });
});

describe('resolveAdapter and the bound-action input', () => {
  const snapshot = snapshotOf(policy, 3, 'block', 'ip');
  const vocabulary: Vocabulary = {
    target: '203.0.113.7',
    scope: null,
    reason: 'SVC-1: SSH brute force',
    ttlSeconds: 600,
    until: '2026-11-24T10:10:00.000Z',
    handle: null,
  };
  const blockFacts: BoundActionFacts = {
    enabled: true,
    arbitrary: false,
    compensation: null,
    inputs: [
      { name: 'ip', type: 'string', required: true },
      { name: 'note', type: 'string', required: false },
      { name: 'duration', type: 'string', required: false },
      { name: 'zone_id', type: 'string', required: true },
    ],
    enforced: null,
    ownership: null,
  };
  const facts =
    (over: Record<string, BoundActionFacts> = {}) =>
    (name: string) =>
      name in over ? (over[name] ?? null) : name.startsWith('custom.edge_waf.') ? blockFacts : null;
  const live = { exists: true, testMode: false };
  const code = (r: ReturnType<typeof resolveAdapter>) => (r.ok ? 'ok' : r.refusal.code);

  it('builds the call from the vocabulary and the binding parameters, frozen under the snapshot digest', () => {
    const r = resolveAdapter(snapshot, 'block', facts(), live, vocabulary);
    expect(r).toEqual({
      ok: true,
      snapshot: { policy_version: 3, binding: policy.adapters[0] },
      digest: snapshotDigest({ policy_version: 3, binding: policy.adapters[0]! }),
      call: {
        action: 'custom.edge_waf.block',
        connectionName: 'waf',
        input: { ip: '203.0.113.7', note: 'SVC-1: SSH brute force', duration: '600s', zone_id: 'z-1' },
        enforced: null,
        ownership: null,
      },
    });
  });

  it('refuses in order: nothing bound, action unavailable, arbitrary, connection missing, connection in test mode, no status action', () => {
    expect(code(resolveAdapter(snapshotOf(policy, 3, 'block', 'domain'), 'block', facts(), live, vocabulary))).toBe('integration_not_configured');
    expect(code(resolveAdapter(snapshot, 'block', facts({ 'custom.edge_waf.block': null }), live, vocabulary))).toBe('adapter_action_unavailable');
    expect(code(resolveAdapter(snapshot, 'block', facts({ 'custom.edge_waf.block': { ...blockFacts, enabled: false } }), live, vocabulary))).toBe(
      'adapter_action_unavailable',
    );
    expect(code(resolveAdapter(snapshot, 'block', facts({ 'custom.edge_waf.block': { ...blockFacts, arbitrary: true } }), live, vocabulary))).toBe(
      'adapter_action_arbitrary',
    );
    expect(code(resolveAdapter(snapshot, 'block', facts(), { exists: false, testMode: false }, vocabulary))).toBe('adapter_connection_missing');
    expect(code(resolveAdapter(snapshot, 'block', facts(), { exists: true, testMode: true }, vocabulary))).toBe('adapter_connection_test_mode');
    expect(code(resolveAdapter(snapshot, 'status', facts(), live, vocabulary))).toBe('adapter_no_status_action');
  });

  it('refuses a bound read that declares no enforced state before any call, and carries the declaration of one that does', () => {
    const withRead = snapshot && { ...snapshot, binding: { ...snapshot.binding, status_action: 'custom.edge_waf.status' } };
    const read = (enforced: EnforcedDeclaration | null) =>
      resolveAdapter(withRead, 'status', facts({ 'custom.edge_waf.status': { ...blockFacts, enforced } }), live, { ...vocabulary, handle: 'r-9' });
    expect(code(read(null))).toBe('adapter_status_undeclared');
    expect(read({ output: 'mode', values: ['block'] })).toMatchObject({
      ok: true,
      call: { action: 'custom.edge_waf.status', enforced: { output: 'mode', values: ['block'] } },
    });
  });

  it('refuses a required input nothing supplies, by field, and a value of another type', () => {
    const unblock = boundInput([{ name: 'rule_id', type: 'string', required: true }], vocabulary, {});
    expect(unblock).toMatchObject({ ok: false, refusal: { code: 'adapter_input_unsatisfied:rule_id' } });
    expect(boundInput([{ name: 'rule_id', type: 'string', required: true }], { ...vocabulary, handle: 'r-9' }, {})).toEqual({
      ok: true,
      value: { rule_id: 'r-9' },
    });
    expect(boundInput([{ name: 'ttl_seconds', type: 'integer', required: true }], vocabulary, {})).toEqual({ ok: true, value: { ttl_seconds: 600 } });
    expect(boundInput([{ name: 'duration', type: 'integer', required: true }], vocabulary, {})).toMatchObject({
      ok: false,
      refusal: { code: 'adapter_input_invalid', params: { field: 'duration' } },
    });
    expect(boundInput([{ name: 'mode', type: 'boolean', required: false }], vocabulary, { mode: 'block' })).toMatchObject({
      ok: false,
      refusal: { code: 'adapter_input_invalid' },
    });
  });

  it('fills an input whose schema is a union of types by any of them, and gives a number recorded as text to an input that takes only numbers', () => {
    const ttl = { name: 'ttl', type: ['number', 'string'] as const, required: true };
    expect(boundInput([ttl], vocabulary, {})).toEqual({ ok: true, value: { ttl: '600s' } });
    expect(boundInput([{ ...ttl, type: ['number', 'boolean'] as const }], vocabulary, {})).toMatchObject({
      ok: false,
      refusal: { code: 'adapter_input_invalid', message: 'input ttl is declared number or boolean, the value is not' },
    });
    const decision = { name: 'decision_id', type: 'integer' as const, required: true };
    expect(boundInput([decision], { ...vocabulary, handle: '4' }, {})).toEqual({ ok: true, value: { decision_id: 4 } });
    expect(boundInput([decision], { ...vocabulary, handle: '4.5' }, {})).toMatchObject({ ok: false, refusal: { code: 'adapter_input_invalid' } });
    expect(boundInput([{ ...decision, type: 'string' as const }], { ...vocabulary, handle: '4' }, {})).toEqual({ ok: true, value: { decision_id: '4' } });
  });

  it('runs reads on the binding parameter status_connection when it names one, and writes on connection_name', () => {
    const binding = policy.adapters[0]!;
    expect(connectionNameOf(binding, true)).toBe('waf');
    const split = { ...binding, parameters: { ...binding.parameters, status_connection: 'lapi' } };
    expect([connectionNameOf(split, true), connectionNameOf(split, false)]).toEqual(['lapi', 'waf']);
    const withRead = { policy_version: 3, binding: { ...split, status_action: 'custom.edge_waf.status' } };
    const read = resolveAdapter(
      withRead,
      'status',
      facts({ 'custom.edge_waf.status': { ...blockFacts, enforced: { output: 'mode', values: ['block'] } } }),
      live,
      vocabulary,
    );
    expect(read).toMatchObject({ ok: true, call: { connectionName: 'lapi' } });
    expect(resolveAdapter(withRead, 'status', facts(), { exists: false, testMode: false }, vocabulary)).toMatchObject({
      ok: false,
      refusal: { code: 'adapter_status_undeclared' },
    });
    expect(resolveAdapter(withRead, 'block', facts(), { exists: false, testMode: false }, vocabulary)).toMatchObject({
      ok: false,
      refusal: { code: 'adapter_connection_missing', params: { connection: 'waf' } },
    });
  });
});

describe('effectDecider', () => {
  const snapshot = snapshotOf(policy, 3, 'block', 'ip');
  const origin = { runId: 'run-1', stepId: 'block', attempt: 1, caseId: 'case-1', by: null };
  const requestCmd = (refusal: { code: string; message: string } | null = null): EffectCommand => ({
    type: 'request',
    effectId: 'e-1',
    effectType: 'block',
    targetType: 'ip',
    target: '203.0.113.7',
    ttlSeconds: 600,
    snapshot,
    snapshotDigest: snapshot && snapshotDigest(snapshot),
    refusal,
    origin,
    now: T1,
  });
  const requested = effectDecider.decide(requestCmd(), effectDecider.initialState());
  const applied: EffectEvent = {
    type: 'effect.applied',
    data: { effect_id: 'e-1', enforcement_performed: true, already_enforced: false, handle: 'r-9', expires_at: '2026-11-24T10:10:00.000Z', at: T1 },
  };
  const reversing: EffectEvent = {
    type: 'effect.reversal_started',
    data: { effect_id: 'e-1', reason: 'ttl_expired', by: null, at: '2026-11-24T10:10:00.000Z' },
  };

  it('records the request with the frozen binding, once; an adapter refusal leaves it degraded, never active', () => {
    expect(requested).toMatchObject([{ type: 'effect.requested', data: { parameters_snapshot: snapshot, run_id: 'run-1', ttl_seconds: 600 } }]);
    given(effectDecider, requested).when(requestCmd()).then([]);
    const degraded = given(effectDecider, [])
      .when(requestCmd({ code: 'adapter_connection_missing', message: 'connection waf does not exist' }))
      .thenMatch([{ type: 'effect.requested' }, { type: 'effect.degraded', data: { code: 'adapter_connection_missing' } }]);
    expect(degraded.state).toMatchObject({ status: 'degraded' });
    given(effectDecider, degraded.events)
      .when({ type: 'record_apply', effectId: 'e-1', outcome: { status: 'applied', enforcementPerformed: true, already: false, handle: null }, now: T1 })
      .then([]);
  });

  it('is active until now + TTL once applied (already blocked counts), failed when the vendor affected nothing; a verdict lands once', () => {
    const { state } = given(effectDecider, requested)
      .when({ type: 'record_apply', effectId: 'e-1', outcome: { status: 'applied', enforcementPerformed: false, already: true, handle: null }, now: T1 })
      .thenMatch([{ type: 'effect.applied', data: { already_enforced: true, enforcement_performed: false, expires_at: '2026-11-24T10:10:00.000Z' } }]);
    expect(state).toMatchObject({ status: 'active', expiresAt: '2026-11-24T10:10:00.000Z' });
    given(effectDecider, requested)
      .when({ type: 'record_apply', effectId: 'e-1', outcome: { status: 'failed', code: 'adapter_affected_nothing', message: '0 rules' }, now: T1 })
      .thenMatch([{ type: 'effect.apply_failed', data: { code: 'adapter_affected_nothing' } }]);
    given(effectDecider, [...requested, applied])
      .when({ type: 'record_apply', effectId: 'e-1', outcome: { status: 'failed', code: 'x', message: 'late' }, now: T1 })
      .then([]);
  });

  it('reverses an active effect; a failed reversal is counted, visible and tried again; only active effects start one', () => {
    given(effectDecider, [...requested, applied])
      .when({ type: 'start_reversal', effectId: 'e-1', reason: 'ttl_expired', by: null, now: '2026-11-24T10:10:00.000Z' })
      .then([reversing]);
    const failed = given(effectDecider, [...requested, applied, reversing])
      .when({
        type: 'record_reversal',
        effectId: 'e-1',
        outcome: { status: 'failed', code: 'vendor_unavailable', message: '503', retryAt: '2026-11-24T10:11:00.000Z' },
        now: T1,
      })
      .thenMatch([{ type: 'effect.reversal_failed', data: { attempts: 1, retry_at: '2026-11-24T10:11:00.000Z' } }]);
    expect(failed.state).toMatchObject({ status: 'reversal_failed', lastError: 'vendor_unavailable', reversalAttempts: 1 });
    const again = [...requested, applied, reversing, ...failed.events];
    given(effectDecider, again)
      .when({ type: 'start_reversal', effectId: 'e-1', reason: 'ttl_expired', by: null, now: T1 })
      .thenMatch([{ type: 'effect.reversal_started' }]);
    given(effectDecider, [...again, reversing])
      .when({ type: 'record_reversal', effectId: 'e-1', outcome: { status: 'reversed', already: true }, now: T1 })
      .thenMatch([{ type: 'effect.reversed', data: { already_reversed: true } }]);
    given(effectDecider, requested)
      .when({ type: 'start_reversal', effectId: 'e-1', reason: 'released', by: 'ana@example.com', now: T1 })
      .thenThrows('effect_not_active', 409);
    given(effectDecider, []).when({ type: 'start_reversal', effectId: 'e-1', reason: 'released', by: null, now: T1 }).thenThrows('effect_not_found', 404);
  });
});
