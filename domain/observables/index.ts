/** The Observable aggregate as a decider (docs/architecture.md "Habits" 1); one stream per (case, type, normalized value), `observable-<digest>`. */
import type { Decider } from '../shared/messages.ts';
import type { ObservableCommand } from './commands.ts';
import { decideObservable } from './decide.ts';
import type { ObservableEvent } from './events.ts';
import { evolveObservable, initialObservableState, type ObservableState } from './state.ts';

export const observableDecider: Decider<ObservableCommand, ObservableEvent, ObservableState> = {
  initialState: initialObservableState,
  evolve: evolveObservable,
  decide: decideObservable,
};

export type { ObservableCommand } from './commands.ts';
export type { ObservableAdded, ObservableEvent, ObservableRemoved } from './events.ts';
export { observableEventTypes } from './events.ts';
export type { ObservableState } from './state.ts';
