/** The Integration pack aggregate as a decider (docs/architecture.md "Habits" 1); one stream per registry id, `integration-pack-<id>`. */
import type { Decider } from '../shared/messages.ts';
import type { IntegrationPackCommand } from './commands.ts';
import { decideIntegrationPack } from './decide.ts';
import type { IntegrationPackEvent } from './events.ts';
import { evolveIntegrationPack, initialIntegrationPackState, type IntegrationPackState } from './state.ts';

export const integrationPackDecider: Decider<IntegrationPackCommand, IntegrationPackEvent, IntegrationPackState> = {
  initialState: initialIntegrationPackState,
  evolve: evolveIntegrationPack,
  decide: decideIntegrationPack,
};

export type { IntegrationPackCommand } from './commands.ts';
export type { IntegrationPackEvent, IntegrationPackInstalled, IntegrationPackUpgraded } from './events.ts';
export { integrationPackEventTypes } from './events.ts';
export type { InstalledAction, IntegrationPackState } from './state.ts';
