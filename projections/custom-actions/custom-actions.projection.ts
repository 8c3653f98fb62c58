/**
 * Custom actions read model (`custom_actions`, `custom_action_versions`, migration 0027)
 * from the `custom-action-<id>` streams (domain/custom-actions/events.ts): `created` and
 * `updated` write the current row and a version row, `disabled` and `enabled` the state.
 * Idempotent: the current row changes only for an event past its `stream_version`, and
 * version rows are keyed by (action, version).
 */
import type { Kysely } from 'kysely';
import { customActionEventTypes, type CustomActionEvent } from '../../domain/custom-actions/events.ts';
import type { Database } from '../database.ts';
import type { Projection } from '../projector.ts';

export const customActionsProjection: Projection = {
  name: 'custom_actions',
  apply: async (trx, batch) => {
    for (const recorded of batch) {
      if (!customActionEventTypes.has(recorded.type)) continue;
      await applyOne(trx, { type: recorded.type, data: recorded.data } as CustomActionEvent, recorded.streamVersion);
    }
  },
};

async function applyOne(trx: Kysely<Database>, event: CustomActionEvent, streamVersion: number): Promise<void> {
  if (event.type === 'custom_action.disabled' || event.type === 'custom_action.enabled') {
    const d = event.data;
    await trx
      .updateTable('custom_actions')
      .set({ enabled: event.type === 'custom_action.enabled', updated_at: d.at, updated_by: d.by, stream_version: streamVersion })
      .where('id', '=', d.custom_action_id)
      .where('stream_version', '<', streamVersion)
      .execute();
    return;
  }
  const d = event.data;
  const current = {
    version: d.version,
    enabled: d.enabled,
    transport: d.spec.transport,
    risk: d.spec.risk,
    effect_type: d.spec.effect_type,
    spec: JSON.stringify(d.spec),
    source: d.source,
    updated_at: d.at,
    updated_by: d.by,
    stream_version: streamVersion,
  };
  if (event.type === 'custom_action.created') {
    await trx
      .insertInto('custom_actions')
      .values({ id: d.custom_action_id, name: d.name, created_at: d.at, created_by: d.by, ...current })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  } else {
    await trx.updateTable('custom_actions').set(current).where('id', '=', d.custom_action_id).where('stream_version', '<', streamVersion).execute();
  }
  await trx
    .insertInto('custom_action_versions')
    .values({
      custom_action_id: d.custom_action_id,
      version: d.version,
      name: d.name,
      spec: JSON.stringify(d.spec),
      enabled: d.enabled,
      source: d.source,
      acknowledged_danger: d.acknowledged_danger,
      saved_at: d.at,
      saved_by: d.by,
    })
    .onConflict((oc) => oc.columns(['custom_action_id', 'version']).doNothing())
    .execute();
}
