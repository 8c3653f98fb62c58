/** What is installed of one pack, rebuilt from its stream. */
import type { InstalledAction, IntegrationPackEvent } from './events.ts';

export type { InstalledAction } from './events.ts';

export type IntegrationPackState =
  | { exists: false }
  | { exists: true; packId: string; version: string; sha256: string; actions: InstalledAction[]; installedAt: string; updatedAt: string };

export const initialIntegrationPackState = (): IntegrationPackState => ({ exists: false });

export function evolveIntegrationPack(state: IntegrationPackState, event: IntegrationPackEvent): IntegrationPackState {
  const d = event.data;
  switch (event.type) {
    case 'integration_pack.installed':
      return { exists: true, packId: d.pack_id, version: d.version, sha256: d.sha256, actions: d.actions, installedAt: d.at, updatedAt: d.at };
    case 'integration_pack.upgraded':
      return state.exists ? { ...state, version: d.version, sha256: d.sha256, actions: d.actions, updatedAt: d.at } : state;
    default:
      return state;
  }
}
