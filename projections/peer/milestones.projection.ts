/**
 * Org milestones (migration 0032), read by the setup steps of `GET /peer/v1/home` (SPEC.md
 * "Peer endpoints": "setup has two steps (open first case, finish an approved response)
 * done from org milestone stamps"):
 *
 * - `first_case_opened`: the first `case.opened`, stamped at its `opened_at`;
 * - `first_approved_response`: the first `run.finished` with status `succeeded` of a run
 *   that is not a dry run and passed an approved gate, stamped at its `at`.
 *
 * A stamp is inserted once and never updated: a later event, or the same events applied
 * again from an older checkpoint, leave the first one. The gate is read from `run_gates`,
 * which the runs projection settles earlier in the same batch, so this projection is
 * registered after it (runtime/wiring/projector.ts).
 */
import type { Kysely } from 'kysely';
import type { CaseEvent } from '../../domain/cases/index.ts';
import type { RunEvent } from '../../domain/runs/events.ts';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import type { Database } from '../database.ts';
import type { Projection } from '../projector.ts';
import { runsProjection } from '../runs/runs.projection.ts';

type CaseOpened = Extract<CaseEvent, { type: 'case.opened' }>['data'];
type RunFinished = Extract<RunEvent, { type: 'run.finished' }>['data'];

/** The milestones of the setup steps, by the name each is stored under. */
export const milestones = ['first_case_opened', 'first_approved_response'] as const;
export type Milestone = (typeof milestones)[number];

type Stamp = { milestone: Milestone; reached_at: string; ref_id: string; event_position: number };

async function stamp(trx: Kysely<Database>, row: Stamp): Promise<void> {
  await trx
    .insertInto('org_milestones')
    .values(row)
    .onConflict((oc) => oc.column('milestone').doNothing())
    .execute();
}

/** The first run of `finished` (in event order) that is not a dry run and had a gate approved. */
async function firstApprovedRun(trx: Kysely<Database>, finished: RecordedEvent[]): Promise<RecordedEvent | undefined> {
  const ids = finished.map((e) => (e.data as RunFinished).run_id);
  const approved = await trx
    .selectFrom('runs')
    .select('runs.id')
    .where('runs.id', 'in', ids)
    .where('runs.dry_run', '=', false)
    .where((eb) =>
      eb.exists(eb.selectFrom('run_gates').select('run_gates.run_id').whereRef('run_gates.run_id', '=', 'runs.id').where('run_gates.status', '=', 'approved')),
    )
    .execute();
  const approvedIds = new Set(approved.map((r) => r.id));
  return finished.find((e) => approvedIds.has((e.data as RunFinished).run_id));
}

export const milestonesProjection: Projection = {
  name: 'org-milestones',
  after: [runsProjection],
  apply: async (trx, batch) => {
    const opened = batch.find((e) => e.type === 'case.opened');
    if (opened) {
      const d = opened.data as CaseOpened;
      await stamp(trx, { milestone: 'first_case_opened', reached_at: d.opened_at, ref_id: d.case_id, event_position: opened.globalPosition });
    }
    const succeeded = batch.filter((e) => e.type === 'run.finished' && (e.data as RunFinished).status === 'succeeded');
    if (succeeded.length === 0) return;
    const reached = await firstApprovedRun(trx, succeeded);
    if (reached) {
      const d = reached.data as RunFinished;
      await stamp(trx, { milestone: 'first_approved_response', reached_at: d.at, ref_id: d.run_id, event_position: reached.globalPosition });
    }
  },
};
