/**
 * Integration pack events: what is installed of a pack, one stream per registry id
 * (`integration-pack-<id>`). Each carries the version, the file's sha256 and the actions
 * with the versions the pack left them at, which is how drift is told later.
 */
import type { Event } from '../shared/messages.ts';

/** An action a pack installed, at the version the install or upgrade left it. */
export type InstalledAction = { name: string; custom_action_id: string; version: number };

type Installed = {
  pack_id: string;
  version: string;
  /** The version replaced; null on install. */
  from_version: string | null;
  sha256: string;
  actions: InstalledAction[];
  /** The ids of drifted actions the installer accepted to overwrite. */
  overwritten_ids: string[];
  by: string | null;
  at: string;
};

export type IntegrationPackInstalled = Event<'integration_pack.installed', Installed>;
export type IntegrationPackUpgraded = Event<'integration_pack.upgraded', Installed>;
export type IntegrationPackEvent = IntegrationPackInstalled | IntegrationPackUpgraded;

export const integrationPackEventTypes: ReadonlySet<string> = new Set<IntegrationPackEvent['type']>([
  'integration_pack.installed',
  'integration_pack.upgraded',
]);
