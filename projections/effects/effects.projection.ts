/**
 * Effects read model (`effects`, migration 0030) from the `effect-<uuid>` streams
 * (domain/effects/events.ts): `effect.requested` inserts the row, every later event
 * moves its state. Idempotent: a row changes only for an event past its `stream_version`.
 *
 * It also keeps the worker's `jobs` row of kind `effect_expiry` for each effect that must
 * be reversed: due at `expires_at` once applied, at `retry_at` after a failed reversal,
 * and gone once reversed (runtime/worker/effect-expiry.ts claims it, by the service clock).
 */
import type { Kysely, Updateable } from 'kysely';
import { effectEventTypes, type EffectEvent } from '../../domain/effects/index.ts';
import type { Database, EffectsTable } from '../database.ts';
import type { Projection } from '../projector.ts';

/** The worker job kind that reverses one effect when its TTL ends (or retries a failed reversal). */
export const EFFECT_EXPIRY_JOB = 'effect_expiry';

export const effectsProjection: Projection = {
  name: 'effects',
  apply: async (trx, batch) => {
    for (const recorded of batch) {
      if (!effectEventTypes.has(recorded.type)) continue;
      await applyOne(trx, { type: recorded.type, data: recorded.data } as EffectEvent, recorded.streamVersion);
    }
  },
};

async function applyOne(trx: Kysely<Database>, event: EffectEvent, streamVersion: number): Promise<void> {
  if (event.type === 'effect.requested') {
    const d = event.data;
    await trx
      .insertInto('effects')
      .values({
        id: d.effect_id,
        effect_type: d.effect_type,
        target_type: d.target_type,
        target: d.target,
        status: 'pending',
        ttl_seconds: d.ttl_seconds,
        adapter_id: d.parameters_snapshot?.binding.adapter_id ?? null,
        policy_version: d.parameters_snapshot?.policy_version ?? null,
        snapshot_digest: d.snapshot_digest,
        run_id: d.run_id,
        step_id: d.step_id,
        case_id: d.case_id,
        requested_by: d.by,
        requested_at: d.at,
        updated_at: d.at,
        stream_version: streamVersion,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return;
  }
  const change = changeOf(event);
  const moved = await trx
    .updateTable('effects')
    .set({ ...change, updated_at: event.data.at, stream_version: streamVersion })
    .where('id', '=', event.data.effect_id)
    .where('stream_version', '<', streamVersion)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) === 0) return;
  if (event.type === 'effect.applied') await dueAt(trx, event.data.effect_id, event.data.expires_at);
  if (event.type === 'effect.reversal_failed') await dueAt(trx, event.data.effect_id, event.data.retry_at);
  if (event.type === 'effect.reversed') await trx.deleteFrom('jobs').where('kind', '=', EFFECT_EXPIRY_JOB).where('key', '=', event.data.effect_id).execute();
}

/** The effect's expiry job, due at `at`, its lease released. */
async function dueAt(trx: Kysely<Database>, effectId: string, at: string): Promise<void> {
  await trx
    .insertInto('jobs')
    .values({ kind: EFFECT_EXPIRY_JOB, key: effectId, due_at: at, lease_owner: null, lease_until: null })
    .onConflict((oc) => oc.columns(['kind', 'key']).doUpdateSet({ due_at: at, lease_owner: null, lease_until: null }))
    .execute();
}

function changeOf(event: Exclude<EffectEvent, { type: 'effect.requested' }>): Updateable<EffectsTable> {
  const d = event.data;
  switch (event.type) {
    case 'effect.degraded':
      return { status: 'degraded', last_error: event.data.code };
    case 'effect.applied':
      return {
        status: 'active',
        handle: event.data.handle,
        expires_at: event.data.expires_at,
        already_enforced: event.data.already_enforced,
        enforcement_performed: event.data.enforcement_performed,
        applied_at: d.at,
      };
    case 'effect.apply_failed':
      return { status: 'failed', last_error: event.data.code };
    case 'effect.reversal_started':
      return { status: 'reversing' };
    case 'effect.reversed':
      return { status: 'reversed', reversed_at: d.at, last_error: null, retry_at: null };
    case 'effect.reversal_failed':
      return { status: 'reversal_failed', last_error: event.data.code, reversal_attempts: event.data.attempts, retry_at: event.data.retry_at };
  }
}
