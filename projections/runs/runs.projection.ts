/**
 * Run read models (SPEC.md "Run and action log"): `runs`, `run_steps`, the
 * hash-chained `action_log`, and the worker's `jobs` row for each unfinished run.
 *
 * The chain is computed here, in global event order: each row's
 * `hash = sha256(prev_hash || canonical_json(row))` (domain/shared/hash-chain.ts,
 * projections/chains/chain-table.ts). A row is appended once: its event position is
 * unique and the checkpoint moves in the same transaction.
 */
import type { Kysely } from 'kysely';
import { executionOrder } from '../../domain/runbooks/dag.ts';
import type { RunEvent } from '../../domain/runs/events.ts';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import { chainRowOf } from '../../domain/audit/chain-rows.ts';
import { appendChainRow } from '../chains/chain-table.ts';
import type { Database } from '../database.ts';
import type { Projection } from '../projector.ts';

const runTypes = new Set<string>([
  'run.queued',
  'run.started',
  'step.started',
  'step.finished',
  'step.goto',
  'gate.opened',
  'gate.decided',
  'runbook.approval_expired',
  'runbook.loop_cap_exceeded',
  'run.finished',
]);

/** The worker job kind that drives one run to its end. */
export const RUN_JOB = 'run';

export const runsProjection: Projection = {
  name: 'runs',
  apply: async (trx, batch) => {
    for (const recorded of batch) if (runTypes.has(recorded.type)) await applyRunEvent(trx, recorded);
  },
};

async function applyRunEvent(trx: Kysely<Database>, recorded: RecordedEvent): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as RunEvent;
  switch (event.type) {
    case 'run.queued': {
      const d = event.data;
      await trx
        .insertInto('runs')
        .values({
          id: d.run_id,
          runbook_id: d.runbook.id,
          runbook_version: d.runbook.version,
          case_id: d.case_id,
          status: 'queued',
          trigger_type: d.trigger_type,
          dry_run: d.dry_run,
          requested_by: d.requested_by,
          error: null,
          queued_at: d.queued_at,
          started_at: null,
          finished_at: null,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      const order = executionOrder(d.runbook.steps);
      await trx
        .insertInto('run_steps')
        .values(
          order.map((stepId, position) => ({
            run_id: d.run_id,
            step_id: stepId,
            position,
            status: 'pending',
            attempt: 0,
            output: null,
            error: null,
            started_at: null,
            finished_at: null,
          })),
        )
        .onConflict((oc) => oc.columns(['run_id', 'step_id']).doNothing())
        .execute();
      await trx
        .insertInto('jobs')
        .values({ kind: RUN_JOB, key: d.run_id, due_at: d.queued_at, lease_owner: null, lease_until: null })
        .onConflict((oc) => oc.columns(['kind', 'key']).doNothing())
        .execute();
      return;
    }
    case 'run.started':
      await trx.updateTable('runs').set({ status: 'running', started_at: event.data.at }).where('id', '=', event.data.run_id).execute();
      return;
    case 'step.started':
      await trx
        .updateTable('run_steps')
        .set({ status: 'running', attempt: event.data.attempt, started_at: event.data.at })
        .where('run_id', '=', event.data.run_id)
        .where('step_id', '=', event.data.step_id)
        .execute();
      return;
    case 'step.finished': {
      const d = event.data;
      await trx
        .updateTable('run_steps')
        .set({
          status: d.status,
          attempt: d.attempt,
          output: d.output === undefined || d.output === null ? null : JSON.stringify(d.output),
          error: d.error,
          started_at: d.log.started_at,
          finished_at: d.at,
        })
        .where('run_id', '=', d.run_id)
        .where('step_id', '=', d.step_id)
        .execute();
      await appendToChain(trx, recorded);
      return;
    }
    case 'step.goto':
      // The rows show the current pass; earlier passes stay in the action log.
      await trx
        .updateTable('run_steps')
        .set({ status: 'pending', output: null, error: null, started_at: null, finished_at: null })
        .where('run_id', '=', event.data.run_id)
        .where('step_id', 'in', event.data.reset)
        .execute();
      return;
    case 'gate.opened': {
      const d = event.data;
      await trx.updateTable('runs').set({ status: 'waiting_approval' }).where('id', '=', d.run_id).execute();
      await trx
        .insertInto('run_gates')
        .values({
          run_id: d.run_id,
          step_id: d.step_id,
          opened_at: d.at,
          reason: d.reason,
          roles: JSON.stringify(d.roles),
          message: d.message,
          deadline: d.deadline,
          status: 'pending',
          decided_by: null,
          decided_at: null,
          note: null,
        })
        .onConflict((oc) => oc.columns(['run_id', 'step_id', 'opened_at']).doNothing())
        .execute();
      // The waiting run needs no worker until the deadline, when one expires the gate.
      await setJobDue(trx, d.run_id, d.deadline);
      return;
    }
    case 'gate.decided': {
      const d = event.data;
      await settleGate(trx, d.run_id, d.step_id, { status: d.decision, decided_by: d.by, decided_at: d.at, note: d.note });
      if (d.decision === 'approved') {
        await trx.updateTable('runs').set({ status: 'running' }).where('id', '=', d.run_id).execute();
        await setJobDue(trx, d.run_id, d.at);
      }
      await appendToChain(trx, recorded);
      return;
    }
    case 'runbook.approval_expired':
      await settleGate(trx, event.data.run_id, event.data.step_id, { status: 'expired', decided_by: null, decided_at: event.data.at, note: null });
      await appendToChain(trx, recorded);
      return;
    case 'runbook.loop_cap_exceeded':
      await appendToChain(trx, recorded);
      return;
    case 'run.finished':
      await trx
        .updateTable('runs')
        .set({ status: event.data.status, error: event.data.error, finished_at: event.data.at })
        .where('id', '=', event.data.run_id)
        .execute();
      await trx.deleteFrom('jobs').where('kind', '=', RUN_JOB).where('key', '=', event.data.run_id).execute();
      return;
  }
}

async function setJobDue(trx: Kysely<Database>, runId: string, dueAt: string): Promise<void> {
  await trx.updateTable('jobs').set({ due_at: dueAt }).where('kind', '=', RUN_JOB).where('key', '=', runId).execute();
}

async function settleGate(
  trx: Kysely<Database>,
  runId: string,
  stepId: string,
  outcome: { status: string; decided_by: string | null; decided_at: string; note: string | null },
): Promise<void> {
  await trx.updateTable('run_gates').set(outcome).where('run_id', '=', runId).where('step_id', '=', stepId).where('status', '=', 'pending').execute();
}

/** Chains the action-log row `recorded` carries (domain/audit/chain-rows.ts). */
async function appendToChain(trx: Kysely<Database>, recorded: RecordedEvent): Promise<void> {
  const entry = chainRowOf(recorded);
  if (entry?.chain !== 'action_log') return;
  await appendChainRow(trx, 'action_log', recorded.globalPosition, entry.row, { run_id: String(entry.row.run_id), step_id: String(entry.row.step_id) });
}
