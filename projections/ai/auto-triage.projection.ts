/**
 * The worker's `jobs` row of kind `ai_triage` for each case whose AI triage is pending
 * (SPEC.md "Generic actions": a case policy's `auto_ai_triage` "queues one advisory triage
 * out of band for the case it opens"): a `case.ai_triage` event with a `pending` record
 * inserts it, due at once; one with a `complete` or `failed` record removes it
 * (runtime/worker/auto-triage.ts claims it, by the service clock). Idempotent: a replay
 * inserts nothing twice and removes what is already gone.
 */
import type { Kysely } from 'kysely';
import type { CaseAiTriage } from '../../domain/cases/events.ts';
import type { Database } from '../database.ts';
import type { Projection } from '../projector.ts';

/** The worker job kind that runs one queued advisory triage of a case. */
export const AUTO_TRIAGE_JOB = 'ai_triage';

export const autoTriageProjection: Projection = {
  name: 'auto-triage',
  apply: async (trx, batch) => {
    for (const recorded of batch) {
      if (recorded.type !== 'case.ai_triage') continue;
      await applyOne(trx, recorded.data as CaseAiTriage['data']);
    }
  },
};

async function applyOne(trx: Kysely<Database>, d: CaseAiTriage['data']): Promise<void> {
  if (d.record.state === 'pending') {
    await trx
      .insertInto('jobs')
      .values({ kind: AUTO_TRIAGE_JOB, key: d.case_id, due_at: d.at, lease_owner: null, lease_until: null })
      .onConflict((oc) => oc.columns(['kind', 'key']).doNothing())
      .execute();
    return;
  }
  await trx.deleteFrom('jobs').where('kind', '=', AUTO_TRIAGE_JOB).where('key', '=', d.case_id).execute();
}
