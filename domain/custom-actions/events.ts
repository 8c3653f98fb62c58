/**
 * Custom action events (SPEC.md "Custom action (operator-authored)": custom actions are
 * versioned). `created` and `updated` carry the whole stored spec and its version, so
 * the stream alone is the version history; `disabled` and `enabled` change the state,
 * not the version. `custom_action.name_claimed` is the one event of a name's claim stream
 * (`custom-action-name-<name>`), appended with `created` in one `appendMany`.
 */
import type { Event } from '../shared/messages.ts';
import type { CustomActionSource } from './commands.ts';
import type { StoredCustomActionSpec } from './spec.ts';

type Saved = {
  custom_action_id: string;
  name: string;
  version: number;
  spec: StoredCustomActionSpec;
  enabled: boolean;
  source: CustomActionSource;
  /** Whether the author acknowledged the danger of an arbitrary-tier spec (false for any other). */
  acknowledged_danger: boolean;
  by: string | null;
  at: string;
};
type Toggled = { custom_action_id: string; name: string; version: number; by: string | null; at: string };

export type CustomActionCreated = Event<'custom_action.created', Saved>;
export type CustomActionUpdated = Event<'custom_action.updated', Saved>;
export type CustomActionDisabled = Event<'custom_action.disabled', Toggled>;
export type CustomActionEnabled = Event<'custom_action.enabled', Toggled>;
export type CustomActionEvent = CustomActionCreated | CustomActionUpdated | CustomActionDisabled | CustomActionEnabled;

export const customActionEventTypes: ReadonlySet<string> = new Set<CustomActionEvent['type']>([
  'custom_action.created',
  'custom_action.updated',
  'custom_action.disabled',
  'custom_action.enabled',
]);

/** The claim of a name: the first `custom_action.created` of that name wins it, for good. */
export type CustomActionNameClaimed = Event<'custom_action.name_claimed', { name: string; custom_action_id: string; at: string }>;
export const CUSTOM_ACTION_NAME_CLAIMED = 'custom_action.name_claimed';
