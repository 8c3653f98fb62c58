/**
 * Run read models (SPEC.md "Run and action log"): `runs`, `run_steps`, the
 * hash-chained `action_log`, and the worker's `jobs` row for each unfinished run.
 *
 * The chain is computed here, in global event order: each row's
 * `hash = sha256(prev_hash || canonical_json(row))` (domain/shared/hash-chain.ts,
 * projections/chains/chain-table.ts). A row is appended once: its event position is
 * unique and the checkpoint moves in the same transaction.
 *
 * A batch's rows are written once at its end, in that order: one INSERT each for its new
 * runs, their step rows and their jobs; one UPDATE for every run row and one for every
 * step row it changed; the jobs made due again; one DELETE for the jobs of runs that
 * ended; one INSERT for its action-log rows. So neither a run nor a step costs a
 * statement of its own: under load a batch carries many runs' queueing, starts and ends.
 * Gate rows, rare, are written as their events come.
 */
import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import { executionOrder } from '../../domain/runbooks/dag.ts';
import type { RunEvent } from '../../domain/runs/events.ts';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import { chainRowOf } from '../../domain/audit/chain-rows.ts';
import { appendChainRows, type ChainEntry } from '../chains/chain-table.ts';
import type { Database } from '../database.ts';
import type { Projection } from '../projector.ts';
import { settleAll } from '../settle-all.ts';

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
    const pending = emptyWrites();
    for (const recorded of batch) if (runTypes.has(recorded.type)) await applyRunEvent(trx, recorded, pending);
    await writePending(trx, pending);
  },
};

/** A `run_steps` row's changed columns, as JSON (`output` null for none, times ISO strings). */
export type StepPatch = Partial<{
  status: string;
  attempt: number;
  output: unknown;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
}>;

/** A `runs` row's changed columns (times ISO strings). */
export type RunPatch = Partial<{ status: string; error: string | null; started_at: string; finished_at: string }>;

/**
 * What a batch writes at its end: new runs with their step rows and jobs; each touched
 * run and step row's changes merged in event order; jobs made due again; jobs of ended
 * runs; the action-log rows.
 */
type PendingWrites = {
  newRuns: Insertable<Database['runs']>[];
  newSteps: Insertable<Database['run_steps']>[];
  newJobs: Insertable<Database['jobs']>[];
  runs: Map<string, RunPatch>;
  steps: Map<string, { run_id: string; step_id: string; patch: StepPatch }>;
  jobsDue: Map<string, string>;
  jobsDone: Set<string>;
  chain: ChainEntry<'action_log'>[];
};

const emptyWrites = (): PendingWrites => ({
  newRuns: [],
  newSteps: [],
  newJobs: [],
  runs: new Map(),
  steps: new Map(),
  jobsDue: new Map(),
  jobsDone: new Set(),
  chain: [],
});

function patchRun(pending: PendingWrites, runId: string, patch: RunPatch): void {
  pending.runs.set(runId, { ...pending.runs.get(runId), ...patch });
}

/**
 * The batch's writes as four independent chains, issued together (pipelined on a
 * server): each table's new rows before their changes, and the action-log rows. The
 * tables have no foreign keys between them, so the chains need no order among themselves.
 */
async function writePending(trx: Kysely<Database>, pending: PendingWrites): Promise<void> {
  await settleAll([writeRuns(trx, pending), writeSteps(trx, pending), writeJobs(trx, pending), appendChainRows(trx, 'action_log', pending.chain)]);
}

async function writeRuns(trx: Kysely<Database>, pending: PendingWrites): Promise<void> {
  if (pending.newRuns.length > 0) {
    await trx
      .insertInto('runs')
      .values(pending.newRuns)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
  if (pending.runs.size > 0) await runRowsUpdate(pending.runs).execute(trx);
}

async function writeSteps(trx: Kysely<Database>, pending: PendingWrites): Promise<void> {
  if (pending.newSteps.length > 0) {
    await trx
      .insertInto('run_steps')
      .values(pending.newSteps)
      .onConflict((oc) => oc.columns(['run_id', 'step_id']).doNothing())
      .execute();
  }
  if (pending.steps.size > 0) await stepRowsUpdate([...pending.steps.values()]).execute(trx);
}

/** New jobs, then the due times moved (one row each, together), then the jobs of ended runs. */
async function writeJobs(trx: Kysely<Database>, pending: PendingWrites): Promise<void> {
  if (pending.newJobs.length > 0) {
    await trx
      .insertInto('jobs')
      .values(pending.newJobs)
      .onConflict((oc) => oc.columns(['kind', 'key']).doNothing())
      .execute();
  }
  await settleAll(
    [...pending.jobsDue].map(([runId, dueAt]) => trx.updateTable('jobs').set({ due_at: dueAt }).where('kind', '=', RUN_JOB).where('key', '=', runId).execute()),
  );
  if (pending.jobsDone.size > 0) {
    await trx
      .deleteFrom('jobs')
      .where('kind', '=', RUN_JOB)
      .where('key', 'in', [...pending.jobsDone])
      .execute();
  }
}

/**
 * One UPDATE for every patched run row; a column a patch does not name keeps its value.
 * The `any` of the ids lets the planner use the primary key: it takes a JSON array for
 * 100 elements and would otherwise scan the whole table to join it.
 */
export function runRowsUpdate(runs: ReadonlyMap<string, RunPatch>): RawBuilder<unknown> {
  const rows = JSON.stringify([...runs].map(([id, patch]) => ({ ...patch, id })));
  return sql`
    update runs as r set
      status = case when p ? 'status' then p->>'status' else r.status end,
      error = case when p ? 'error' then p->>'error' else r.error end,
      started_at = case when p ? 'started_at' then (p->>'started_at')::timestamptz else r.started_at end,
      finished_at = case when p ? 'finished_at' then (p->>'finished_at')::timestamptz else r.finished_at end
    from jsonb_array_elements(${rows}::jsonb) as x(p)
    where r.id = any(${[...runs.keys()]}::uuid[]) and r.id = (p->>'id')::uuid`;
}

function patchStep(pending: PendingWrites, runId: string, stepId: string, patch: StepPatch): void {
  const key = `${runId}\u0000${stepId}`;
  const row = pending.steps.get(key);
  if (row) Object.assign(row.patch, patch);
  else pending.steps.set(key, { run_id: runId, step_id: stepId, patch: { ...patch } });
}

/** One UPDATE for every patched step row; a column a patch does not name keeps its value (the `any` as for runs). */
export function stepRowsUpdate(steps: readonly { run_id: string; step_id: string; patch: StepPatch }[]): RawBuilder<unknown> {
  const rows = JSON.stringify(steps.map((r) => ({ ...r.patch, run_id: r.run_id, step_id: r.step_id })));
  return sql`
    update run_steps as s set
      status = case when p ? 'status' then p->>'status' else s.status end,
      attempt = case when p ? 'attempt' then (p->>'attempt')::int else s.attempt end,
      output = case when p ? 'output' then nullif(p->'output', 'null'::jsonb) else s.output end,
      error = case when p ? 'error' then p->>'error' else s.error end,
      started_at = case when p ? 'started_at' then (p->>'started_at')::timestamptz else s.started_at end,
      finished_at = case when p ? 'finished_at' then (p->>'finished_at')::timestamptz else s.finished_at end
    from jsonb_array_elements(${rows}::jsonb) as x(p)
    where s.run_id = any(${[...new Set(steps.map((r) => r.run_id))]}::uuid[])
      and s.run_id = (p->>'run_id')::uuid and s.step_id = p->>'step_id'`;
}

async function applyRunEvent(trx: Kysely<Database>, recorded: RecordedEvent, pending: PendingWrites): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as RunEvent;
  switch (event.type) {
    case 'run.queued': {
      const d = event.data;
      pending.newRuns.push({
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
      });
      executionOrder(d.runbook.steps).forEach((stepId, position) => {
        pending.newSteps.push({
          run_id: d.run_id,
          step_id: stepId,
          position,
          status: 'pending',
          attempt: 0,
          output: null,
          error: null,
          started_at: null,
          finished_at: null,
        });
      });
      pending.newJobs.push({ kind: RUN_JOB, key: d.run_id, due_at: d.queued_at, lease_owner: null, lease_until: null });
      return;
    }
    case 'run.started':
      patchRun(pending, event.data.run_id, { status: 'running', started_at: event.data.at });
      return;
    case 'step.started':
      patchStep(pending, event.data.run_id, event.data.step_id, { status: 'running', attempt: event.data.attempt, started_at: event.data.at });
      return;
    case 'step.finished': {
      const d = event.data;
      patchStep(pending, d.run_id, d.step_id, {
        status: d.status,
        attempt: d.attempt,
        output: d.output ?? null,
        error: d.error,
        started_at: d.log.started_at,
        finished_at: d.at,
      });
      chain(pending, recorded);
      return;
    }
    case 'step.goto':
      // The rows show the current pass; earlier passes stay in the action log.
      for (const stepId of event.data.reset) {
        patchStep(pending, event.data.run_id, stepId, { status: 'pending', output: null, error: null, started_at: null, finished_at: null });
      }
      return;
    case 'gate.opened': {
      const d = event.data;
      patchRun(pending, d.run_id, { status: 'waiting_approval' });
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
      pending.jobsDue.set(d.run_id, d.deadline);
      return;
    }
    case 'gate.decided': {
      const d = event.data;
      await settleGate(trx, d.run_id, d.step_id, { status: d.decision, decided_by: d.by, decided_at: d.at, note: d.note });
      if (d.decision === 'approved') {
        patchRun(pending, d.run_id, { status: 'running' });
        pending.jobsDue.set(d.run_id, d.at);
      }
      chain(pending, recorded);
      return;
    }
    case 'runbook.approval_expired':
      await settleGate(trx, event.data.run_id, event.data.step_id, { status: 'expired', decided_by: null, decided_at: event.data.at, note: null });
      chain(pending, recorded);
      return;
    case 'runbook.loop_cap_exceeded':
      chain(pending, recorded);
      return;
    case 'run.finished':
      patchRun(pending, event.data.run_id, { status: event.data.status, error: event.data.error, finished_at: event.data.at });
      pending.jobsDone.add(event.data.run_id);
      return;
  }
}

async function settleGate(
  trx: Kysely<Database>,
  runId: string,
  stepId: string,
  outcome: { status: string; decided_by: string | null; decided_at: string; note: string | null },
): Promise<void> {
  await trx.updateTable('run_gates').set(outcome).where('run_id', '=', runId).where('step_id', '=', stepId).where('status', '=', 'pending').execute();
}

/** Queues the action-log row `recorded` carries (domain/audit/chain-rows.ts) for the batch's chain insert. */
function chain(pending: PendingWrites, recorded: RecordedEvent): void {
  const entry = chainRowOf(recorded);
  if (entry?.chain !== 'action_log') return;
  pending.chain.push({ position: recorded.globalPosition, row: entry.row, extras: { run_id: String(entry.row.run_id), step_id: String(entry.row.step_id) } });
}
