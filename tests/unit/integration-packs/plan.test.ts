import { describe, expect, it } from 'vitest';
import { integrationPackDecider, type IntegrationPackEvent, type IntegrationPackState } from '../../../domain/integration-packs/index.ts';
import { storedSpec } from '../../../domain/custom-actions/spec.ts';
import type { IntegrationPack } from '../../../domain/integration-packs/pack.ts';
import { checkConsent, planPack, type ActiveRun, type CurrentAction, type PackPlan } from '../../../domain/integration-packs/plan.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { given } from '../../support/decider.ts';
import { parsedPack } from '../../support/pack-documents.ts';

const T1 = '2026-11-24T10:00:00.000Z';
const action = (name: string, over: Record<string, unknown> = {}) => ({
  spec: { name, title: name, transport: 'http', http: { method: 'GET', path: '/x' }, effect_type: 'enrich', risk: 'read', ...over },
});
const pack = (version: string, actions: ReturnType<typeof action>[]): IntegrationPack =>
  parsedPack(actions, { name: 'lab', version, connection_kinds: ['http'] });
const current = (p: IntegrationPack, name: string, id: string, version: number, over: Partial<CurrentAction> = {}): CurrentAction => {
  const found = p.actions.find((a) => a.spec.name === name);
  if (!found) throw new Error(name);
  return { id, name, version, source: 'pack', enabled: true, spec: storedSpec(found.spec), ...over };
};
const installed = (version: string, actions: { name: string; custom_action_id: string; version: number }[]): IntegrationPackState => ({
  exists: true,
  packId: 'lab',
  version,
  sha256: 'a'.repeat(64),
  actions,
  installedAt: T1,
  updatedAt: T1,
});
const none: IntegrationPackState = { exists: false };
const noRuns: ActiveRun[] = [];

const v1 = pack('1.0.0', [action('custom.lab.a'), action('custom.lab.b'), action('custom.lab.c')]);
const v2 = pack('1.1.0', [action('custom.lab.a'), action('custom.lab.b', { title: 'B v2' }), action('custom.lab.d', { risk: 'arbitrary' })]);
const v1Installed = installed('1.0.0', [
  { name: 'custom.lab.a', custom_action_id: 'id-a', version: 1 },
  { name: 'custom.lab.b', custom_action_id: 'id-b', version: 1 },
  { name: 'custom.lab.c', custom_action_id: 'id-c', version: 1 },
]);
const v1Current = new Map([
  ['custom.lab.a', current(v1, 'custom.lab.a', 'id-a', 1)],
  ['custom.lab.b', current(v1, 'custom.lab.b', 'id-b', 1)],
  ['custom.lab.c', current(v1, 'custom.lab.c', 'id-c', 1)],
]);
const upgradePlan = (over: { current?: Map<string, CurrentAction>; runs?: ActiveRun[] } = {}) =>
  planPack(
    { packId: 'lab', pack: v2, sha256: 'b'.repeat(64), installed: v1Installed, current: over.current ?? v1Current, activeRuns: over.runs ?? noRuns },
    null,
  );
const throws = (f: () => unknown, code: string, status: number) => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(code);
    expect((error as DomainError).status).toBe(status);
    return error as DomainError;
  }
  throw new Error(`expected ${code}`);
};

describe('planPack', () => {
  it('plans an install: every action created at version 1; an action of that name not from this pack is drift', () => {
    const plan = planPack({ packId: 'lab', pack: v1, sha256: 'a'.repeat(64), installed: none, current: new Map(), activeRuns: noRuns }, null);
    expect(plan).toMatchObject({ kind: 'install', from_version: null, to_version: '1.0.0', drift: [], blocking_runs: [], requires_acknowledge_danger: false });
    expect(plan.actions.map((a) => [a.name, a.change, a.custom_action_id, a.version_after])).toEqual([
      ['custom.lab.a', 'create', null, 1],
      ['custom.lab.b', 'create', null, 1],
      ['custom.lab.c', 'create', null, 1],
    ]);
    expect(plan.preview_token).toMatch(/^[0-9a-f]{64}$/);

    const authored = new Map([['custom.lab.a', current(v1, 'custom.lab.a', 'id-x', 4, { source: 'api' })]]);
    const clash = planPack({ packId: 'lab', pack: v1, sha256: 'a'.repeat(64), installed: none, current: authored, activeRuns: noRuns }, 'install');
    expect(clash.actions[0]).toMatchObject({ change: 'overwrite', custom_action_id: 'id-x', current_version: 4, version_after: 5 });
    expect(clash.drift).toEqual([
      { custom_action_id: 'id-x', name: 'custom.lab.a', reason: 'not_from_this_pack', installed_version: null, current_version: 4 },
    ]);
  });

  it('plans an upgrade: unchanged, update, create, disable of a dropped action, and an arbitrary action needing the acknowledgement', () => {
    const plan = upgradePlan();
    expect(plan).toMatchObject({ kind: 'upgrade', from_version: '1.0.0', to_version: '1.1.0', drift: [], requires_acknowledge_danger: true });
    expect(plan.actions.map((a) => [a.name, a.change, a.current_version, a.version_after, a.arbitrary])).toEqual([
      ['custom.lab.a', 'unchanged', 1, 1, false],
      ['custom.lab.b', 'update', 1, 2, false],
      ['custom.lab.d', 'create', null, 1, true],
      ['custom.lab.c', 'disable', 1, 1, false],
    ]);
  });

  it('tells drift from a local edit; a disabled dropped action is left alone', () => {
    const edited = new Map(v1Current);
    edited.set('custom.lab.a', current(v1, 'custom.lab.a', 'id-a', 2, { source: 'api' }));
    edited.set('custom.lab.c', current(v1, 'custom.lab.c', 'id-c', 1, { enabled: false }));
    const plan = upgradePlan({ current: edited });
    expect(plan.drift).toEqual([{ custom_action_id: 'id-a', name: 'custom.lab.a', reason: 'edited_locally', installed_version: 1, current_version: 2 }]);
    expect(plan.actions.find((a) => a.name === 'custom.lab.a')).toMatchObject({ change: 'overwrite', version_after: 3 });
    expect(plan.actions.some((a) => a.name === 'custom.lab.c')).toBe(false);
  });

  it('lists unfinished runs that use an action the plan changes, and only those actions', () => {
    const runs: ActiveRun[] = [
      { run_id: 'r2', runbook_id: 'rb', status: 'running', actions: ['custom.lab.c', 'http.request', 'custom.lab.b'] },
      { run_id: 'r1', runbook_id: 'rb', status: 'waiting_approval', actions: ['custom.lab.a'] },
    ];
    expect(upgradePlan({ runs }).blocking_runs).toEqual([{ run_id: 'r2', runbook_id: 'rb', status: 'running', actions: ['custom.lab.b', 'custom.lab.c'] }]);
  });

  it('binds the token to the plan: the same reads give the same token, any change another', () => {
    const token = upgradePlan().preview_token;
    expect(upgradePlan().preview_token).toBe(token);
    const edited = new Map(v1Current);
    edited.set('custom.lab.b', current(v1, 'custom.lab.b', 'id-b', 2, { source: 'api' }));
    expect(upgradePlan({ current: edited }).preview_token).not.toBe(token);
    expect(upgradePlan({ runs: [{ run_id: 'r', runbook_id: 'rb', status: 'queued', actions: ['custom.lab.b'] }] }).preview_token).not.toBe(token);
    const otherFile = planPack({ packId: 'lab', pack: v2, sha256: 'c'.repeat(64), installed: v1Installed, current: v1Current, activeRuns: noRuns }, null);
    expect(otherFile.preview_token).not.toBe(token);
  });

  it('refuses a plan that does not apply: installed, installed ahead, install over an installed pack, upgrade of nothing', () => {
    const same = installed('1.1.0', []);
    throws(() => planPack({ packId: 'lab', pack: v2, sha256: '', installed: same, current: new Map(), activeRuns: noRuns }, null), 'pack_installed', 409);
    const ahead = installed('2.0.0', []);
    throws(
      () => planPack({ packId: 'lab', pack: v2, sha256: '', installed: ahead, current: new Map(), activeRuns: noRuns }, null),
      'pack_installed_ahead',
      409,
    );
    throws(
      () => planPack({ packId: 'lab', pack: v2, sha256: '', installed: v1Installed, current: v1Current, activeRuns: noRuns }, 'install'),
      'pack_installed',
      409,
    );
    throws(
      () => planPack({ packId: 'lab', pack: v1, sha256: '', installed: none, current: new Map(), activeRuns: noRuns }, 'upgrade'),
      'pack_not_installed',
      409,
    );
  });
});

describe('checkConsent', () => {
  const consent = (plan: PackPlan, over: Record<string, unknown> = {}) => ({
    previewToken: plan.preview_token,
    acceptedOverwriteIds: [],
    acknowledgeDanger: true,
    ...over,
  });

  it('refuses in order: stale token, blocking runs, unaccepted drift, unacknowledged danger', () => {
    const edited = new Map(v1Current);
    edited.set('custom.lab.a', current(v1, 'custom.lab.a', 'id-a', 2));
    const runs: ActiveRun[] = [{ run_id: 'r1', runbook_id: 'rb', status: 'queued', actions: ['custom.lab.b'] }];
    const blocked = upgradePlan({ current: edited, runs });
    throws(() => checkConsent(blocked, consent(blocked, { previewToken: 'x' })), 'pack_preview_stale', 409);
    expect(throws(() => checkConsent(blocked, consent(blocked)), 'pack_blocked_by_runs', 409).params).toEqual({ runs: ['r1'] });
    const drifted = upgradePlan({ current: edited });
    expect(throws(() => checkConsent(drifted, consent(drifted)), 'pack_overwrite_unaccepted', 409).params).toEqual({ custom_action_ids: ['id-a'] });
    throws(() => checkConsent(drifted, consent(drifted, { acceptedOverwriteIds: ['id-a'], acknowledgeDanger: false })), 'pack_danger_unacknowledged', 422);
    expect(() => checkConsent(drifted, consent(drifted, { acceptedOverwriteIds: ['id-a'] }))).not.toThrow();
  });
});

describe('integrationPackDecider', () => {
  const plan = upgradePlan();
  const actions = [{ name: 'custom.lab.a', custom_action_id: 'id-a', version: 1 }];
  const installedEvent: IntegrationPackEvent = {
    type: 'integration_pack.installed',
    data: {
      pack_id: 'lab',
      version: '1.0.0',
      from_version: null,
      sha256: 'a'.repeat(64),
      actions: v1Installed.exists ? v1Installed.actions : [],
      overwritten_ids: [],
      by: 'root@example.com',
      at: T1,
    },
  };
  const command = (over: Record<string, unknown> = {}) => ({
    type: 'upgrade' as const,
    packId: 'lab',
    plan,
    consent: { previewToken: plan.preview_token, acceptedOverwriteIds: [], acknowledgeDanger: true },
    actions,
    by: 'root@example.com',
    now: T1,
    ...over,
  });

  it('records the upgrade with the version, checksum and the actions as left', () => {
    given(integrationPackDecider, [installedEvent])
      .when(command())
      .then([
        {
          type: 'integration_pack.upgraded',
          data: {
            pack_id: 'lab',
            version: '1.1.0',
            from_version: '1.0.0',
            sha256: 'b'.repeat(64),
            actions,
            overwritten_ids: [],
            by: 'root@example.com',
            at: T1,
          },
        },
      ]);
  });

  it('refuses a plan made against another installed state, and a consent that does not carry the plan', () => {
    given(integrationPackDecider, []).when(command()).thenThrows('pack_preview_stale', 409);
    given(integrationPackDecider, [installedEvent])
      .when(command({ type: 'install' }))
      .thenThrows('pack_preview_stale', 409);
    given(integrationPackDecider, [installedEvent])
      .when(command({ consent: { previewToken: plan.preview_token, acceptedOverwriteIds: [], acknowledgeDanger: false } }))
      .thenThrows('pack_danger_unacknowledged', 422);
  });
});
