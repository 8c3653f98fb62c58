/**
 * Custom action decisions (SPEC.md "Custom action (operator-authored)"; issue 21).
 *
 * - create: version 1, enabled unless the spec says `enabled: false`. The name must be
 *   free: its claim stream (`custom-action-name-<name>`) has no holder.
 * - update: the whole spec is replaced and the version goes up by one; the name cannot
 *   change. `enabled` absent from the spec keeps the current state, so a disabled action
 *   stays disabled; `enabled: true` or `false` sets it. A spec equal to the current one
 *   is no new version: nothing is decided, or only `enabled`/`disabled` when the spec's
 *   `enabled` differs from the state.
 * - disable, enable: change the state, not the version; a repeat decides nothing.
 *
 * The arbitrary tier is a spec with `risk: arbitrary` or `effect_type: arbitrary`. Saving
 * one needs a global administrator and the danger acknowledgement; so does changing an
 * action that is in the tier now (a team admin cannot edit one out of it), and enabling
 * one needs a global administrator. Disabling is open to every author.
 *
 * Errors, checked in this order:
 * - `custom_action_not_found` (404): update, disable or enable of an action that does not exist.
 * - `custom_action_exists` (409): create with an id that exists or a name another action holds.
 * - `custom_action_name_immutable` (422): an update whose spec names another action.
 * - `custom_action_arbitrary_forbidden` (403): the arbitrary tier by an author who is not
 *   a global administrator.
 * - `custom_action_danger_unacknowledged` (422): the arbitrary tier saved without
 *   `acknowledge_danger: true`.
 * - `custom_action_managed_effect` (422): an API-authored spec (`source: 'api'`) with a
 *   managed effect type (`block`, `contain`, `disable_identity`); packs may declare them.
 * - `custom_action_spec_invalid` (422): the spec has problems by `specProblems`
 *   (templates.ts), listed in `params.problems`. The API answers those problems as a
 *   validation failure before deciding; this is the rule for every other source.
 */
import { canonicalJson } from '../shared/canonical-json.ts';
import { conflict, DomainError, notFound, unprocessable } from '../shared/errors.ts';
import { assertNever } from '../shared/messages.ts';
import type { CustomActionAuthor, CustomActionCommand, CustomActionSource } from './commands.ts';
import type { CustomActionEvent, CustomActionNameClaimed } from './events.ts';
import { managedEffectTypes, storedSpec, type CustomActionSpec, type StoredCustomActionSpec } from './spec.ts';
import type { CustomActionState } from './state.ts';
import { specProblems } from './templates.ts';

type Existing = Extract<CustomActionState, { exists: true }>;
type Cmd<T extends CustomActionCommand['type']> = Extract<CustomActionCommand, { type: T }>;

export function decideCustomAction(command: CustomActionCommand, state: CustomActionState): CustomActionEvent[] {
  if (command.type === 'create') return create(command, state);
  if (!state.exists) throw notFound('custom_action_not_found', 'custom action not found', { custom_action_id: command.customActionId });
  switch (command.type) {
    case 'update':
      return update(command, state);
    case 'disable':
      return state.enabled ? [toggled('custom_action.disabled', state, command.author, command.now)] : [];
    case 'enable':
      if (isArbitraryTier(state.spec)) requireGlobalAdmin(command.author, state.name);
      return state.enabled ? [] : [toggled('custom_action.enabled', state, command.author, command.now)];
    default:
      return assertNever(command);
  }
}

/** Whether a spec is in the arbitrary tier (SPEC.md: "a separate tier for global administrators"). */
export const isArbitraryTier = (spec: Pick<StoredCustomActionSpec, 'risk' | 'effect_type'>): boolean =>
  spec.risk === 'arbitrary' || spec.effect_type === 'arbitrary';

/** The event of a name's claim stream, appended with the `custom_action.created` that wins the name. */
export const claimName = (name: string, customActionId: string, at: string): CustomActionNameClaimed => ({
  type: 'custom_action.name_claimed',
  data: { name, custom_action_id: customActionId, at },
});

function create(c: Cmd<'create'>, state: CustomActionState): CustomActionEvent[] {
  if (state.exists) throw conflict('custom_action_exists', 'custom action already exists', { custom_action_id: state.id });
  if (c.nameHolder !== null) throw conflict('custom_action_exists', `a custom action named ${c.spec.name} exists`, { name: c.spec.name });
  checkSpec(c.spec, c.author, c.acknowledgeDanger, c.source);
  const data = saved(c, 1, c.spec.enabled ?? true);
  return [{ type: 'custom_action.created', data }];
}

function update(c: Cmd<'update'>, state: Existing): CustomActionEvent[] {
  if (c.spec.name !== state.name) {
    throw unprocessable('custom_action_name_immutable', 'the name of a custom action cannot change', { name: state.name, requested: c.spec.name });
  }
  if (isArbitraryTier(state.spec)) requireGlobalAdmin(c.author, state.name);
  checkSpec(c.spec, c.author, c.acknowledgeDanger, c.source);
  const enabled = c.spec.enabled ?? state.enabled;
  if (canonicalJson(storedSpec(c.spec)) === canonicalJson(state.spec) && c.source === state.source) {
    if (enabled === state.enabled) return [];
    return [toggled(enabled ? 'custom_action.enabled' : 'custom_action.disabled', state, c.author, c.now)];
  }
  return [{ type: 'custom_action.updated', data: saved(c, state.version + 1, enabled) }];
}

/** The tier, managed-effect and template rules of a spec being saved. */
function checkSpec(spec: CustomActionSpec, author: CustomActionAuthor, acknowledgeDanger: boolean, source: CustomActionSource): void {
  if (isArbitraryTier(spec)) {
    requireGlobalAdmin(author, spec.name);
    if (!acknowledgeDanger) {
      throw unprocessable('custom_action_danger_unacknowledged', 'an arbitrary-tier custom action is saved only with acknowledge_danger: true', {
        name: spec.name,
        risk: spec.risk,
        effect_type: spec.effect_type,
      });
    }
  }
  if (source === 'api' && managedEffectTypes.includes(spec.effect_type)) {
    throw unprocessable('custom_action_managed_effect', `effect type ${spec.effect_type} is managed: only an integration pack may declare it`, {
      effect_type: spec.effect_type,
      managed: [...managedEffectTypes],
    });
  }
  const problems = specProblems(spec);
  if (problems.length > 0) throw unprocessable('custom_action_spec_invalid', 'the custom action spec breaks its template rules', { problems });
}

function requireGlobalAdmin(author: CustomActionAuthor, name: string): void {
  if (!author.globalAdmin) {
    throw new DomainError('custom_action_arbitrary_forbidden', 403, 'the arbitrary tier is for global administrators (an admin grant with no team)', { name });
  }
}

function saved(c: Cmd<'create'> | Cmd<'update'>, version: number, enabled: boolean) {
  return {
    custom_action_id: c.customActionId,
    name: c.spec.name,
    version,
    spec: storedSpec(c.spec),
    enabled,
    source: c.source,
    acknowledged_danger: isArbitraryTier(c.spec) && c.acknowledgeDanger,
    by: c.author.by,
    at: c.now,
  };
}

function toggled(type: 'custom_action.disabled' | 'custom_action.enabled', state: Existing, author: CustomActionAuthor, at: string): CustomActionEvent {
  return { type, data: { custom_action_id: state.id, name: state.name, version: state.version, by: author.by, at } };
}
