/**
 * Integration pack decisions (SPEC.md "Integration packs"). An install or upgrade is
 * decided against a plan computed from fresh reads: the plan's own rules (`planPack`:
 * `pack_installed`, `pack_installed_ahead`, `pack_not_installed`) hold when the plan was
 * made, so here the stream must still be where the plan found it (409
 * `pack_preview_stale` otherwise) and the consent must carry the plan (`checkConsent`).
 */
import { conflict } from '../shared/errors.ts';
import type { IntegrationPackCommand } from './commands.ts';
import type { IntegrationPackEvent } from './events.ts';
import { checkConsent } from './plan.ts';
import type { IntegrationPackState } from './state.ts';

export function decideIntegrationPack(command: IntegrationPackCommand, state: IntegrationPackState): IntegrationPackEvent[] {
  const { plan } = command;
  const installed = state.exists ? state.version : null;
  if (plan.kind !== command.type || plan.from_version !== installed) {
    throw conflict('pack_preview_stale', 'what is installed changed since the plan was made: preview again', {
      pack_id: command.packId,
      installed_version: installed,
    });
  }
  checkConsent(plan, command.consent);
  const data = {
    pack_id: command.packId,
    version: plan.to_version,
    from_version: plan.from_version,
    sha256: plan.sha256,
    actions: command.actions,
    overwritten_ids: plan.drift.map((d) => d.custom_action_id),
    by: command.by,
    at: command.now,
  };
  return [command.type === 'install' ? { type: 'integration_pack.installed', data } : { type: 'integration_pack.upgraded', data }];
}
