/** The Custom action aggregate as a decider (docs/architecture.md "Habits" 1); one stream per action, `custom-action-<uuid>`. */
import type { Decider } from '../shared/messages.ts';
import type { CustomActionCommand } from './commands.ts';
import { decideCustomAction } from './decide.ts';
import type { CustomActionEvent } from './events.ts';
import { evolveCustomAction, initialCustomActionState, type CustomActionState } from './state.ts';

export const customActionDecider: Decider<CustomActionCommand, CustomActionEvent, CustomActionState> = {
  initialState: initialCustomActionState,
  evolve: evolveCustomAction,
  decide: decideCustomAction,
};

export type { CustomActionAuthor, CustomActionCommand, CustomActionSource } from './commands.ts';
export type {
  CustomActionCreated,
  CustomActionDisabled,
  CustomActionEnabled,
  CustomActionEvent,
  CustomActionNameClaimed,
  CustomActionUpdated,
} from './events.ts';
export { CUSTOM_ACTION_NAME_CLAIMED, customActionEventTypes } from './events.ts';
export { claimName, isArbitraryTier } from './decide.ts';
export type { CustomActionState } from './state.ts';
export { nameHolderOf } from './state.ts';
