/**
 * Integration pack commands (SPEC.md "Integration packs": install, upgrade). The plan is
 * computed by the caller from fresh reads (plan.ts), the ids of created actions are
 * assigned by it, and the time comes in with the command, so deciding is pure.
 */
import type { Consent, PackPlan } from './plan.ts';
import type { InstalledAction } from './state.ts';

export type IntegrationPackCommand = {
  type: 'install' | 'upgrade';
  packId: string;
  plan: PackPlan;
  consent: Consent;
  /** Every action of the new version with its id and version once the plan is carried out. */
  actions: InstalledAction[];
  by: string | null;
  now: string;
};
