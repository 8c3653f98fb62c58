/**
 * Custom action state rebuilt from its stream: whether it exists, its name, current
 * version, spec and whether it is enabled. The claim of a name is its own stream;
 * `nameHolderOf` reads it.
 */
import type { Event } from '../shared/messages.ts';
import type { CustomActionSource } from './commands.ts';
import type { CustomActionEvent } from './events.ts';
import { CUSTOM_ACTION_NAME_CLAIMED } from './events.ts';
import type { StoredCustomActionSpec } from './spec.ts';

export type CustomActionState =
  | { exists: false }
  | { exists: true; id: string; name: string; version: number; spec: StoredCustomActionSpec; enabled: boolean; source: CustomActionSource };

export const initialCustomActionState = (): CustomActionState => ({ exists: false });

export function evolveCustomAction(state: CustomActionState, event: CustomActionEvent): CustomActionState {
  switch (event.type) {
    case 'custom_action.created':
    case 'custom_action.updated': {
      const d = event.data;
      return { exists: true, id: d.custom_action_id, name: d.name, version: d.version, spec: d.spec, enabled: d.enabled, source: d.source };
    }
    case 'custom_action.disabled':
      return state.exists ? { ...state, enabled: false } : state;
    case 'custom_action.enabled':
      return state.exists ? { ...state, enabled: true } : state;
    default:
      return state;
  }
}

/** The id of the action that holds a name, from the events of its claim stream; null when unclaimed. */
export function nameHolderOf(claim: readonly Event[]): string | null {
  const first = claim.find((e) => e.type === CUSTOM_ACTION_NAME_CLAIMED);
  return first ? String((first.data as { custom_action_id: string }).custom_action_id) : null;
}
