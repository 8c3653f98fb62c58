/**
 * Runs as the run routes and the war-room answer them (SPEC.md "Run and action log",
 * "Runs, steps and gates"): each view next to the valibot schema `/openapi.json`
 * declares for it, its return typed by that schema so tsc holds the two together.
 */
import * as v from 'valibot';
import type { ActionLogRow } from '../../domain/runs/events.ts';
import type { findRun, pendingApprovals, runActionLog, runGates, runSteps } from '../../projections/runs/runs.queries.ts';
import { iso } from '../shared/shapes.ts';

/** A run: what it runs, on which case, why, and where it stands. */
const runObject = v.strictObject({
  id: v.string(),
  runbook_id: v.string(),
  runbook_version: v.number(),
  case_id: v.nullable(v.string()),
  status: v.string(),
  trigger_type: v.string(),
  dry_run: v.boolean(),
  requested_by: v.nullable(v.string()),
  error: v.nullable(v.string()),
  queued_at: v.string(),
  started_at: v.nullable(v.string()),
  finished_at: v.nullable(v.string()),
});
/** `runObject` as the document's component schema `Run`. */
export const runSchema = v.pipe(runObject, v.metadata({ ref: 'Run' }));

type RunRow = NonNullable<Awaited<ReturnType<typeof findRun>>>;
/** A run as the run routes and the war-room show it. */
export const runView = (r: RunRow): v.InferOutput<typeof runSchema> => ({
  id: r.id,
  runbook_id: r.runbook_id,
  runbook_version: r.runbook_version,
  case_id: r.case_id,
  status: r.status,
  trigger_type: r.trigger_type,
  dry_run: r.dry_run,
  requested_by: r.requested_by,
  error: r.error,
  queued_at: iso(r.queued_at),
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
});

/** An approval gate a run opened, and its decision once made; `expires_at` is its deadline. */
export const gateSchema = v.pipe(
  v.strictObject({
    step_id: v.string(),
    reason: v.string(),
    roles: v.array(v.string()),
    message: v.nullable(v.string()),
    status: v.string(),
    opened_at: v.string(),
    expires_at: v.string(),
    decided_by: v.nullable(v.string()),
    decided_at: v.nullable(v.string()),
    note: v.nullable(v.string()),
  }),
  v.metadata({ ref: 'Gate' }),
);

type GateRow = Awaited<ReturnType<typeof runGates>>[number];
/** A gate row as the run routes show it. */
export const gateView = (g: GateRow): v.InferOutput<typeof gateSchema> => ({
  step_id: g.step_id,
  reason: g.reason,
  roles: g.roles,
  message: g.message,
  status: g.status,
  opened_at: iso(g.opened_at),
  expires_at: iso(g.deadline),
  decided_by: g.decided_by,
  decided_at: iso(g.decided_at),
  note: g.note,
});

/** A step of a run: its latest attempt and that attempt's output (free JSON). */
export const stepSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    status: v.string(),
    attempt: v.number(),
    output: v.unknown(),
    error: v.nullable(v.string()),
    started_at: v.nullable(v.string()),
    finished_at: v.nullable(v.string()),
  }),
  v.metadata({ ref: 'Step' }),
);

type StepRow = Awaited<ReturnType<typeof runSteps>>[number];
/** A step row as the run detail shows it. */
export const stepView = (s: StepRow): v.InferOutput<typeof stepSchema> => ({
  id: s.step_id,
  status: s.status,
  attempt: s.attempt,
  output: s.output,
  error: s.error,
  started_at: iso(s.started_at),
  finished_at: iso(s.finished_at),
});

/**
 * An action-log row with its place in the chain (`index`) and its hashes. The row is
 * answered verbatim as it was hashed, so a client can recompute `hash`; an object that
 * keeps members it does not name, since a row rewritten in the database (which the
 * chain badge then reports) is shown as stored.
 */
export const actionLogEntrySchema = v.pipe(
  v.looseObject({
    index: v.number(),
    run_id: v.string(),
    step_id: v.string(),
    action: v.nullable(v.string()),
    attempt: v.number(),
    status: v.string(),
    input: v.unknown(),
    output: v.unknown(),
    error: v.nullable(v.string()),
    started_at: v.string(),
    finished_at: v.string(),
    prev_hash: v.string(),
    hash: v.string(),
  }),
  v.metadata({ ref: 'ActionLogEntry' }),
);

type LogRow = Awaited<ReturnType<typeof runActionLog>>[number];
/** An action-log row as the run detail and the run log show it. */
export const logView = (r: LogRow): v.InferOutput<typeof actionLogEntrySchema> => ({
  index: Number(r.chain_index),
  // The projector stores rows of this shape only (domain/audit/chain-rows.ts).
  ...(r.row as ActionLogRow),
  prev_hash: r.prev_hash,
  hash: r.hash,
});

/** Whether a run's action-log rows hash correctly and link to the rows before them. */
export const chainBadgeSchema = v.strictObject({ valid: v.boolean(), rows: v.number(), first_broken_index: v.nullable(v.number()) });

/** A run with its gates: the answer to a gate decision. */
const runWithGatesObject = v.strictObject({ ...runObject.entries, gates: v.array(gateSchema) });
/** `runWithGatesObject` as the document's component schema `RunWithGates`. */
export const runWithGatesSchema = v.pipe(runWithGatesObject, v.metadata({ ref: 'RunWithGates' }));

/** Run detail (SPEC.md "Run and action log"): the run, its gates, steps, action log and chain badge. */
export const runDetailSchema = v.pipe(
  v.strictObject({
    ...runWithGatesObject.entries,
    steps: v.array(stepSchema),
    action_log: v.array(actionLogEntrySchema),
    chain: chainBadgeSchema,
  }),
  v.metadata({ ref: 'RunDetail' }),
);

/** A pending gate in the approver queue, with what its run is about. */
export const approvalSchema = v.pipe(
  v.strictObject({
    run_id: v.string(),
    step_id: v.string(),
    runbook_id: v.string(),
    case_id: v.nullable(v.string()),
    trigger_type: v.string(),
    requested_by: v.nullable(v.string()),
    reason: v.string(),
    roles: v.array(v.string()),
    message: v.nullable(v.string()),
    opened_at: v.string(),
    expires_at: v.string(),
  }),
  v.metadata({ ref: 'Approval' }),
);

type ApprovalRow = Awaited<ReturnType<typeof pendingApprovals>>[number];
/** A pending gate as the approver queue shows it. */
export const approvalView = (g: ApprovalRow): v.InferOutput<typeof approvalSchema> => ({
  run_id: g.run_id,
  step_id: g.step_id,
  runbook_id: g.runbook_id,
  case_id: g.case_id,
  trigger_type: g.trigger_type,
  requested_by: g.requested_by,
  reason: g.reason,
  roles: g.roles,
  message: g.message,
  opened_at: iso(g.opened_at),
  expires_at: iso(g.deadline),
});
