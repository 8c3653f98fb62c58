/**
 * Every rule of the Custom action decider, given-when-then on plain data (SPEC.md
 * "Custom action (operator-authored)"; issue 21): versions, the name claim, the arbitrary
 * tier (global administrators, danger acknowledgement), managed effect types, the spec's
 * template rules, and what an update does to a disabled action.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { claimName, customActionDecider, nameHolderOf, type CustomActionCommand, type CustomActionEvent } from '../../../domain/custom-actions/index.ts';
import { customActionSpecSchema, type CustomActionSpec } from '../../../domain/custom-actions/spec.ts';
import { given } from '../../support/decider.ts';

const T1 = '2026-11-22T10:00:00.000Z';
const T2 = '2026-11-22T11:00:00.000Z';
const ID = 'ca-1';
const teamAdmin = { by: 'blue-admin@example.com', globalAdmin: false };
const root = { by: 'root@example.com', globalAdmin: true };

const spec = (over: Record<string, unknown> = {}): CustomActionSpec =>
  v.parse(customActionSpecSchema, {
    name: 'custom.shodan.host_lookup',
    title: 'Shodan host lookup',
    transport: 'http',
    inputs: [{ name: 'ip', type: 'string', required: true }],
    http: { method: 'GET', path: '/shodan/host/{{ inputs.ip }}' },
    effect_type: 'enrich',
    risk: 'read',
    ...over,
  });
const stored = (s: CustomActionSpec) => {
  const copy: Partial<CustomActionSpec> = { ...s };
  delete copy.enabled;
  return copy;
};

const create = (over: Partial<Extract<CustomActionCommand, { type: 'create' }>> = {}): CustomActionCommand => ({
  type: 'create',
  customActionId: ID,
  spec: spec(),
  nameHolder: null,
  acknowledgeDanger: false,
  source: 'api',
  author: teamAdmin,
  now: T1,
  ...over,
});
const update = (over: Partial<Extract<CustomActionCommand, { type: 'update' }>> = {}): CustomActionCommand => ({
  type: 'update',
  customActionId: ID,
  spec: spec({ title: 'Shodan host lookup v2' }),
  acknowledgeDanger: false,
  source: 'api',
  author: teamAdmin,
  now: T2,
  ...over,
});
const disable = (author = teamAdmin): CustomActionCommand => ({ type: 'disable', customActionId: ID, author, now: T2 });
const enable = (author = teamAdmin): CustomActionCommand => ({ type: 'enable', customActionId: ID, author, now: T2 });

const saved = (type: 'custom_action.created' | 'custom_action.updated', s: CustomActionSpec, over: Record<string, unknown> = {}) =>
  ({
    type,
    data: {
      custom_action_id: ID,
      name: s.name,
      version: 1,
      spec: stored(s),
      enabled: true,
      source: 'api',
      acknowledged_danger: false,
      by: teamAdmin.by,
      at: T1,
      ...over,
    },
  }) as CustomActionEvent;
const created = (s = spec(), over: Record<string, unknown> = {}) => saved('custom_action.created', s, over);
const disabled = (version = 1): CustomActionEvent => ({
  type: 'custom_action.disabled',
  data: { custom_action_id: ID, name: 'custom.shodan.host_lookup', version, by: teamAdmin.by, at: T2 },
});
const enabled = (version = 1, by = teamAdmin.by): CustomActionEvent => ({
  type: 'custom_action.enabled',
  data: { custom_action_id: ID, name: 'custom.shodan.host_lookup', version, by, at: T2 },
});

const arbitrary = spec({ name: 'custom.ops.anything', risk: 'arbitrary', effect_type: 'arbitrary' });

describe('create', () => {
  it('records version 1, enabled, with the spec as stored (no `enabled` key) and the author', () => {
    given(customActionDecider, []).when(create()).then([created()]);
  });

  it('takes `enabled: false` from the spec as the state, not as part of the stored spec', () => {
    const off = spec({ enabled: false });
    const { state } = given(customActionDecider, [])
      .when(create({ spec: off }))
      .then([created(off, { enabled: false })]);
    expect(state).toMatchObject({ exists: true, enabled: false, version: 1 });
    expect(state.exists && 'enabled' in state.spec).toBe(false);
  });

  it('refuses a name another action holds (409 custom_action_exists), and an id that exists', () => {
    given(customActionDecider, [])
      .when(create({ nameHolder: 'ca-other' }))
      .thenThrows('custom_action_exists', 409);
    given(customActionDecider, [created()]).when(create()).thenThrows('custom_action_exists', 409);
  });

  it('refuses the arbitrary tier to an author who is not a global administrator (403), whatever the acknowledgement', () => {
    for (const s of [arbitrary, spec({ risk: 'arbitrary' }), spec({ effect_type: 'arbitrary' })]) {
      given(customActionDecider, [])
        .when(create({ spec: s, acknowledgeDanger: true }))
        .thenThrows('custom_action_arbitrary_forbidden', 403);
    }
  });

  it('refuses the arbitrary tier to a global administrator without the danger acknowledgement (422)', () => {
    given(customActionDecider, [])
      .when(create({ spec: arbitrary, author: root }))
      .thenThrows('custom_action_danger_unacknowledged', 422);
  });

  it('saves the arbitrary tier for a global administrator who acknowledged the danger, and records that', () => {
    given(customActionDecider, [])
      .when(create({ spec: arbitrary, author: root, acknowledgeDanger: true }))
      .then([created(arbitrary, { acknowledged_danger: true, by: root.by })]);
  });

  it('records no acknowledgement for a spec outside the tier, even when one was sent', () => {
    given(customActionDecider, [])
      .when(create({ acknowledgeDanger: true }))
      .then([created()]);
  });

  it('refuses managed effect types from the API (422) and takes them from a pack', () => {
    for (const effect of ['block', 'contain', 'disable_identity']) {
      const s = spec({ effect_type: effect, risk: 'write' });
      given(customActionDecider, [])
        .when(create({ spec: s }))
        .thenThrows('custom_action_managed_effect', 422);
      given(customActionDecider, [])
        .when(create({ spec: s, source: 'pack' }))
        .then([created(s, { source: 'pack' })]);
    }
  });

  it('refuses a spec that breaks the template rules (422 custom_action_spec_invalid with the problems)', () => {
    const s = spec({ http: { method: 'GET', path: '/x/{{ secrets.token }}' } });
    const error = given(customActionDecider, [])
      .when(create({ spec: s }))
      .thenThrows('custom_action_spec_invalid', 422);
    expect(error.params.problems).toEqual([expect.objectContaining({ loc: ['http', 'path'], type: 'template_reads_secret' })]);
  });
});

describe('update', () => {
  it('replaces the whole spec as the next version', () => {
    const next = spec({ title: 'Shodan host lookup v2' });
    const { state } = given(customActionDecider, [created()])
      .when(update())
      .then([saved('custom_action.updated', next, { version: 2, at: T2 })]);
    expect(state).toMatchObject({ version: 2, spec: { title: 'Shodan host lookup v2' } });
  });

  it('keeps a disabled action disabled unless the spec says enabled', () => {
    const next = spec({ title: 'Shodan host lookup v2' });
    given(customActionDecider, [created(), disabled()])
      .when(update())
      .then([saved('custom_action.updated', next, { version: 2, at: T2, enabled: false })]);
    const on = spec({ title: 'Shodan host lookup v2', enabled: true });
    given(customActionDecider, [created(), disabled()])
      .when(update({ spec: on }))
      .then([saved('custom_action.updated', on, { version: 2, at: T2, enabled: true })]);
    const off = spec({ title: 'Shodan host lookup v2', enabled: false });
    given(customActionDecider, [created()])
      .when(update({ spec: off }))
      .then([saved('custom_action.updated', off, { version: 2, at: T2, enabled: false })]);
  });

  it('makes no version of an unchanged spec: nothing, or only the enabled state the spec names', () => {
    given(customActionDecider, [created()])
      .when(update({ spec: spec() }))
      .then([]);
    given(customActionDecider, [created(), disabled()])
      .when(update({ spec: spec() }))
      .then([]);
    given(customActionDecider, [created(), disabled()])
      .when(update({ spec: spec({ enabled: true }) }))
      .then([enabled()]);
    given(customActionDecider, [created()])
      .when(update({ spec: spec({ enabled: false }) }))
      .then([disabled()]);
  });

  it('refuses another name (422 custom_action_name_immutable) and an action that does not exist (404)', () => {
    given(customActionDecider, [created()])
      .when(update({ spec: spec({ name: 'custom.shodan.other' }) }))
      .thenThrows('custom_action_name_immutable', 422);
    given(customActionDecider, []).when(update()).thenThrows('custom_action_not_found', 404);
  });

  it('holds the tier and managed-effect rules for the new spec', () => {
    const toArbitrary = spec({ risk: 'arbitrary' });
    given(customActionDecider, [created()])
      .when(update({ spec: toArbitrary, acknowledgeDanger: true }))
      .thenThrows('custom_action_arbitrary_forbidden', 403);
    given(customActionDecider, [created()])
      .when(update({ spec: toArbitrary, author: root }))
      .thenThrows('custom_action_danger_unacknowledged', 422);
    given(customActionDecider, [created()])
      .when(update({ spec: spec({ effect_type: 'contain', risk: 'write' }) }))
      .thenThrows('custom_action_managed_effect', 422);
    given(customActionDecider, [created()])
      .when(update({ spec: spec({ http: { method: 'GET', path: '/a/../b' } }) }))
      .thenThrows('custom_action_spec_invalid', 422);
  });

  it('lets only a global administrator change an action that is in the arbitrary tier, even out of it', () => {
    const history = [created(arbitrary, { acknowledged_danger: true, by: root.by })];
    const tamer = spec({ name: 'custom.ops.anything', risk: 'read', effect_type: 'none' });
    given(customActionDecider, history)
      .when(update({ spec: tamer }))
      .thenThrows('custom_action_arbitrary_forbidden', 403);
    given(customActionDecider, history)
      .when(update({ spec: tamer, author: root }))
      .thenMatch([{ type: 'custom_action.updated', data: { version: 2, acknowledged_danger: false, spec: { risk: 'read' } } }]);
  });
});

describe('disable and enable', () => {
  it('changes the state, not the version; a repeat decides nothing', () => {
    const { state } = given(customActionDecider, [created()]).when(disable()).then([disabled()]);
    expect(state).toMatchObject({ enabled: false, version: 1 });
    given(customActionDecider, [created(), disabled()]).when(disable()).then([]);
    given(customActionDecider, [created(), disabled()]).when(enable()).then([enabled()]);
    given(customActionDecider, [created()]).when(enable()).then([]);
  });

  it('refuses an action that does not exist (404)', () => {
    given(customActionDecider, []).when(disable()).thenThrows('custom_action_not_found', 404);
    given(customActionDecider, []).when(enable()).thenThrows('custom_action_not_found', 404);
  });

  it('lets anyone disable an arbitrary-tier action, but only a global administrator enable it', () => {
    const history = [created(arbitrary, { acknowledged_danger: true, by: root.by })];
    given(customActionDecider, history)
      .when(disable())
      .thenMatch([{ type: 'custom_action.disabled' }]);
    const off = [...history, disabled()];
    given(customActionDecider, off).when(enable()).thenThrows('custom_action_arbitrary_forbidden', 403);
    given(customActionDecider, off)
      .when(enable(root))
      .then([{ ...enabled(1, root.by), data: { ...enabled(1, root.by).data, name: 'custom.ops.anything' } } as CustomActionEvent]);
  });
});

describe('the name claim', () => {
  it('is held by the first claim of its stream', () => {
    expect(nameHolderOf([])).toBeNull();
    expect(nameHolderOf([claimName('custom.a', 'ca-1', T1), claimName('custom.a', 'ca-2', T2)])).toBe('ca-1');
  });
});
