/**
 * Installed integration packs read model (`integration_packs`, migration 0028) from the
 * `integration-pack-<id>` streams (domain/integration-packs/events.ts): `installed`
 * inserts the row, `upgraded` replaces version, checksum and actions. Idempotent: a row
 * changes only for an event past its `stream_version`.
 */
import { integrationPackEventTypes, type IntegrationPackEvent } from '../../domain/integration-packs/events.ts';
import type { Projection } from '../projector.ts';

export const integrationPacksProjection: Projection = {
  name: 'integration_packs',
  apply: async (trx, batch) => {
    for (const recorded of batch) {
      if (!integrationPackEventTypes.has(recorded.type)) continue;
      const event = { type: recorded.type, data: recorded.data } as IntegrationPackEvent;
      const d = event.data;
      const current = {
        version: d.version,
        sha256: d.sha256,
        actions: JSON.stringify(d.actions),
        updated_at: d.at,
        updated_by: d.by,
        stream_version: recorded.streamVersion,
      };
      if (event.type === 'integration_pack.installed') {
        await trx
          .insertInto('integration_packs')
          .values({ pack_id: d.pack_id, installed_at: d.at, installed_by: d.by, ...current })
          .onConflict((oc) => oc.column('pack_id').doNothing())
          .execute();
      } else {
        await trx.updateTable('integration_packs').set(current).where('pack_id', '=', d.pack_id).where('stream_version', '<', recorded.streamVersion).execute();
      }
    }
  },
};
