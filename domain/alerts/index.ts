/** The Alert aggregate as a decider (docs/architecture.md "Habits" 1); one stream per (source, external id), `alert-<digest>`. */
import type { Decider } from '../shared/messages.ts';
import type { AlertCommand } from './commands.ts';
import { decideAlert } from './decide.ts';
import type { AlertEvent } from './events.ts';
import { evolveAlert, initialAlertState, type AlertState } from './state.ts';

export const alertDecider: Decider<AlertCommand, AlertEvent, AlertState> = {
  initialState: initialAlertState,
  evolve: evolveAlert,
  decide: decideAlert,
};

export type { AlertCommand, AlertLink } from './commands.ts';
export type { AlertEvent } from './events.ts';
export type { AlertState } from './state.ts';
