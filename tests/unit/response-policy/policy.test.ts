/**
 * The response policy document and its decider on plain data (SPEC.md "Response policy";
 * domain/response-policy/): every reason a document cannot be evaluated, the canonical
 * protected targets it is stored with, and the append-only publish (new version per
 * change, nothing for the same document, 409 on a stale base version).
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { responsePolicyDecider } from '../../../domain/response-policy/index.ts';
import {
  defaultResponsePolicy,
  normalizePolicy,
  policyDigest,
  policyProblems,
  responsePolicySchema,
  type ActionFacts,
} from '../../../domain/response-policy/policy.ts';
import { given } from '../../support/decider.ts';

const T1 = '2026-11-24T10:00:00.000Z';
const registered: Record<string, ActionFacts> = {
  'custom.edge_waf.block': { registered: true, arbitrary: false, managed: false, compensation: 'custom.edge_waf.unblock' },
  'custom.edge_waf.unblock': { registered: true, arbitrary: false, managed: false, compensation: null },
  'custom.edge_waf.status': { registered: true, arbitrary: false, managed: false, compensation: null },
  'custom.shell.anything': { registered: true, arbitrary: true, managed: false, compensation: null },
  'response.ip_block': { registered: true, arbitrary: false, managed: true, compensation: null },
};
const facts = (name: string): ActionFacts => registered[name] ?? { registered: false, arbitrary: false, managed: false, compensation: null };
const binding = (over: Record<string, unknown> = {}) => ({
  effect_type: 'block',
  target_type: 'ip',
  adapter_id: 'edge_waf',
  block_action: 'custom.edge_waf.block',
  unblock_action: 'custom.edge_waf.unblock',
  status_action: 'custom.edge_waf.status',
  connection_name: 'waf',
  parameters: { zone: 'z-1', mode: 'block' },
  ...over,
});
const policy = (over: Record<string, unknown> = {}) =>
  v.parse(responsePolicySchema, {
    protected_targets: [
      { type: 'ip', value: '10.0.0.0/8' },
      { type: 'domain', value: 'Login.Example.COM.' },
    ],
    ttl: { min_seconds: 300, max_seconds: 86_400 },
    automatic_grants: [{ effect_type: 'block', target_type: 'ip', max_ttl_seconds: 3600, severities: ['critical'] }],
    adapters: [binding()],
    ...over,
  });
const types = (p: ReturnType<typeof policy>) => policyProblems(p, facts).map((x) => [x.loc.join('.'), x.type]);

describe('policyProblems', () => {
  it('accepts a policy the runtime can evaluate, and stores its protected targets canonically', () => {
    expect(types(policy())).toEqual([]);
    expect(normalizePolicy(policy()).protected_targets).toEqual([
      { type: 'ip', value: '10.0.0.0/8' },
      { type: 'domain', value: 'login.example.com' },
    ]);
  });

  it('refuses malformed protected targets, an upside-down TTL and grants outside the policy', () => {
    const bad = policy({
      protected_targets: [
        { type: 'ip', value: '10.0.0.5/8' },
        { type: 'domain', value: '*.example.com' },
        { type: 'host', value: 'web 01' },
      ],
      ttl: { min_seconds: 7200, max_seconds: 3600 },
      automatic_grants: [
        { effect_type: 'contain', target_type: 'ip', max_ttl_seconds: 60 },
        { effect_type: 'block', target_type: 'domain', max_ttl_seconds: 7200 },
      ],
    });
    expect(types(bad)).toEqual([
      ['protected_targets.0.value', 'protected_target_invalid'],
      ['protected_targets.1.value', 'protected_target_invalid'],
      ['protected_targets.2.value', 'protected_target_invalid'],
      ['ttl', 'ttl_range_invalid'],
      ['automatic_grants.0.target_type', 'grant_target_type_invalid'],
      ['automatic_grants.1.max_ttl_seconds', 'grant_ttl_over_policy'],
    ]);
  });

  it('refuses a binding of a pair SPEC.md does not bind, a pair bound twice, and unregistered, managed or arbitrary-tier actions', () => {
    const bad = policy({
      adapters: [
        binding({ effect_type: 'contain', target_type: 'ip' }),
        binding(),
        binding({ block_action: 'custom.nope.block', unblock_action: 'response.ip_block', status_action: 'custom.shell.anything' }),
      ],
    });
    expect(types(bad)).toEqual([
      ['adapters.0.target_type', 'binding_target_type_invalid'],
      ['adapters.2', 'binding_duplicate'],
      ['adapters.2.block_action', 'binding_action_unregistered'],
      ['adapters.2.unblock_action', 'binding_action_managed'],
      ['adapters.2.status_action', 'binding_action_arbitrary'],
    ]);
    expect(types(policy({ adapters: [binding({ status_action: null })] }))).toEqual([]);
  });

  it('refuses a binding whose unblock is not the compensation its block action declares, so expiry undoes what the block did', () => {
    const swapped = policy({ adapters: [binding({ unblock_action: 'custom.edge_waf.status' })] });
    expect(types(swapped)).toEqual([['adapters.0.unblock_action', 'binding_unblock_not_compensation']]);
    expect(policyProblems(swapped, facts)[0]?.msg).toMatch(/custom\.edge_waf\.unblock/);
    expect(types(policy({ adapters: [binding({ block_action: 'custom.edge_waf.status', unblock_action: 'custom.edge_waf.block' })] }))).toEqual([]);
  });

  it('refuses through the schema a TTL that is zero, missing or over a year, and unknown fields', () => {
    const problem = (input: Record<string, unknown>) => v.safeParse(responsePolicySchema, { ttl: { min_seconds: 60, max_seconds: 3600 }, ...input }).success;
    expect(problem({})).toBe(true);
    expect(problem({ ttl: { min_seconds: 0, max_seconds: 3600 } })).toBe(false);
    expect(problem({ ttl: { min_seconds: 60 } })).toBe(false);
    expect(problem({ ttl: { min_seconds: 60, max_seconds: 366 * 86_400 } })).toBe(false);
    expect(problem({ extra: true })).toBe(false);
  });
});

describe('responsePolicyDecider', () => {
  const p1 = normalizePolicy(policy());
  const p2 = normalizePolicy(policy({ ttl: { min_seconds: 60, max_seconds: 3600 }, automatic_grants: [] }));
  const publish = (p: typeof p1, baseVersion: number | null = null) => ({
    type: 'publish' as const,
    policy: p,
    digest: policyDigest(p),
    baseVersion,
    by: 'root@example.com',
    now: T1,
  });
  const published = (version: number, p: typeof p1) => ({
    type: 'response_policy.published' as const,
    data: { version, policy: p, digest: policyDigest(p), by: 'root@example.com', at: T1 },
  });

  it('starts from the default policy at version 0 and publishes version 1, then 2', () => {
    expect(given(responsePolicyDecider, []).state).toMatchObject({ version: 0, policy: defaultResponsePolicy(), digest: null });
    given(responsePolicyDecider, [])
      .when(publish(p1))
      .then([published(1, p1)]);
    given(responsePolicyDecider, [published(1, p1)])
      .when(publish(p2, 1))
      .then([published(2, p2)]);
  });

  it('publishes nothing for the document in force, and refuses a stale base version', () => {
    given(responsePolicyDecider, [published(1, p1)])
      .when(publish(p1))
      .then([]);
    given(responsePolicyDecider, [published(1, p1), published(2, p2)])
      .when(publish(p1, 1))
      .thenThrows('response_policy_version_conflict', 409);
  });

  it('gives one digest to one document whatever its key order', () => {
    const reordered = JSON.parse(
      JSON.stringify({ adapters: p1.adapters, automatic_grants: p1.automatic_grants, ttl: p1.ttl, protected_targets: p1.protected_targets }),
    );
    expect(policyDigest(reordered)).toBe(policyDigest(p1));
  });
});
