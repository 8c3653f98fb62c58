/**
 * Drives one run to its end (the worker side of domain/runbooks/run-workflow.ts):
 * reads the run stream, asks the workflow for the next move, carries it out and
 * appends the outcome with the version it read. A version conflict means another
 * worker took the run over: this one stops driving it.
 *
 * Crash safety: a step is recorded `step.started` before its action runs and
 * `step.finished` after; on restart a finished step is never executed again, and a
 * started-but-unfinished one runs again as the next attempt (its webhook id differs
 * per attempt, so receivers can tell a redelivery).
 */
import type { CaseCommands } from '../../adapters/actions/action.ts';
import { asJsonb } from '../../adapters/event-store/jsonb.ts';
import { StreamVersionConflict, type EventStore } from '../../adapters/event-store/port.ts';
import type { TemplateEngine } from '../../adapters/templates/liquid.ts';
import { nextMove } from '../../domain/runbooks/run-workflow.ts';
import { decideRun, type RunCommand } from '../../domain/runs/decide.ts';
import { evolveRun, finishedStatuses, initialRunState, type RunState } from '../../domain/runs/state.ts';
import type { ActionLogRow, RunEvent } from '../../domain/runs/events.ts';
import type { EventMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import { executeStep, type StepExecutorDeps, type StepOutcome, type StepRequest } from './step-executor.ts';

export type RunDriverDeps = StepExecutorDeps & {
  store: EventStore;
  templates: TemplateEngine;
  /** Case fields for the template context (`case`), read fresh at each step. */
  caseContext: (caseId: string) => Promise<Record<string, unknown> | null>;
  /** Case commands bound to a case, acting as the runbook. */
  caseCommands: (caseId: string, runbookId: string) => CaseCommands;
  /** Still holding the run's lease? Checked before each move. */
  stillOwned: () => boolean;
  /** SVC_MAX_STEP_VISITS: re-entries a goto target allows before the run fails. */
  maxStepVisits: number;
  /** SVC_APPROVAL_DEFAULT_TIMEOUT_H: a gate's deadline when its step names no `timeout_h`. */
  defaultApprovalTimeoutH: number;
};

type Existing = Extract<RunState, { exists: true }>;
type FinishStep = Extract<RunCommand, { type: 'finish_step' }>;

const systemActor: EventMetadata = { actor: { id: null, email: null, kind: 'system' } };

/**
 * Drives the run until it is idle (finished, or waiting at a gate), the lease is lost
 * or another writer moved the run on. Resolves true when it left the run finished.
 *
 * The stream is read once: while the driver holds the lease it is the run's only
 * writer, so it evolves the state with its own events (as the store gives them back,
 * see `asJsonb`); a StreamVersionConflict on append means someone else moved the run.
 * Decided events wait in memory and are appended together with the next
 * `step.started`, before that step's action runs, or when the driver stops: a
 * 10-step run takes 11 appends (`run.started` with the first start, each finish with
 * the next start, the last finish with `run.finished`). Nothing outside the run
 * stream happens between deciding an event and appending it but reads, so a crash in
 * between loses only decisions that are taken again on restart.
 */
export async function driveRun(deps: RunDriverDeps, runId: string): Promise<boolean> {
  const streamId = streams.run(runId);
  const history = await deps.store.readStream(streamId);
  let state = history.reduce((s, e) => evolveRun(s, e as unknown as RunEvent), initialRunState());
  let version = history.length;
  let unwritten: RunEvent[] = [];
  /** The outcome of an action that ran, while it is still unwritten. */
  let executed: FinishStep | null = null;

  const now = () => deps.now().toISOString();
  const record = (command: RunCommand) => {
    const events = decideRun(command, state).map((e) => asJsonb(e) as RunEvent);
    state = events.reduce(evolveRun, state);
    unwritten.push(...events);
  };
  const flush = async () => {
    if (unwritten.length === 0) return;
    await deps.store.append(streamId, unwritten.map((e) => ({ ...e, metadata: systemActor })), version);
    version += unwritten.length;
    unwritten = [];
    executed = null;
  };

  try {
    for (;;) {
      if (!deps.stillOwned() || !state.exists) {
        await flush();
        return false;
      }
      const move = nextMove(state, {
        maxStepVisits: deps.maxStepVisits,
        defaultApprovalTimeoutH: deps.defaultApprovalTimeoutH,
        now: now(),
        riskOf: (action) => deps.actions.riskOf(action),
        bounded: (action) => deps.actions.isBounded(action),
      });
      if (move.kind === 'idle') {
        await flush();
        return finishedStatuses.includes(state.status);
      }
      switch (move.kind) {
        case 'start_run':
          record({ type: 'start_run', now: now() });
          break;
        case 'finish_run':
          record({ type: 'finish_run', status: move.status, error: move.error, now: now() });
          break;
        case 'goto':
          record({ type: 'goto', stepId: move.step.id, target: move.target, visit: move.visit, reset: move.reset, now: now() });
          break;
        case 'open_gate': {
          const { step, reason, roles, message, deadline } = move;
          record({ type: 'open_gate', stepId: step.id, reason, roles, message, deadline, now: now() });
          break;
        }
        case 'expire_gate':
          record({ type: 'expire_gate', stepId: move.stepId, now: now() });
          break;
        case 'loop_cap_exceeded':
          record({ type: 'exceed_loop_cap', stepId: move.step.id, target: move.target, visits: move.visits, cap: move.cap, now: now() });
          break;
        case 'skip_step': {
          const at = now();
          const log = logRow(state, move.step.id, move.step.action, move.attempt, 'skipped', null, null, move.reason, at, at);
          record({ type: 'finish_step', stepId: move.step.id, attempt: move.attempt, status: 'skipped', output: null, error: move.reason, log, now: at });
          break;
        }
        case 'evaluate_branch': {
          const startedAt = now();
          let outcome: { status: 'ok' | 'error'; output: unknown; error: string | null };
          try {
            const result = await deps.templates.evaluateCondition(move.step.when ?? 'false', await templateContext(deps, state));
            outcome = { status: 'ok', output: { result }, error: null };
          } catch (error) {
            outcome = { status: 'error', output: null, error: error instanceof Error ? error.message : String(error) };
          }
          const log = logRow(state, move.step.id, null, move.attempt, outcome.status, move.step.when, outcome.output, outcome.error, startedAt, now());
          record({ type: 'finish_step', stepId: move.step.id, attempt: move.attempt, ...outcome, log, now: now() });
          break;
        }
        case 'execute_step': {
          const before = state;
          const startedAt = now();
          record({ type: 'start_step', stepId: move.step.id, attempt: move.attempt, now: startedAt });
          // The start is durable before the action runs (a crash from here on reruns the
          // step as its next attempt); the template context is only read meanwhile.
          const [, context] = await Promise.all([flush(), templateContext(deps, before)]);
          const request = {
            runId,
            step: move.step,
            attempt: move.attempt,
            caseId: before.caseId,
            dryRun: before.dryRun,
            context,
            cases: before.caseId ? deps.caseCommands(before.caseId, before.runbook.id) : null,
          };
          const outcome = move.step.for_each === null ? await executeStep(deps, request) : await executeForEach(deps, request, move.step.for_each);
          const finishedAt = now();
          const status = before.dryRun && outcome.status === 'ok' ? 'dry_run' : outcome.status;
          const log = logRow(before, move.step.id, move.step.action, move.attempt, status, outcome.input, outcome.output, outcome.error, startedAt, finishedAt);
          const finish: FinishStep = {
            type: 'finish_step',
            stepId: move.step.id,
            attempt: move.attempt,
            status: outcome.status,
            output: outcome.output,
            error: outcome.error,
            log,
            now: finishedAt,
          };
          record(finish);
          executed = finish;
          break;
        }
      }
    }
  } catch (error) {
    if (!(error instanceof StreamVersionConflict)) throw error;
    if (executed !== null) await recordLateFinish(deps, streamId, executed);
    return false;
  }
}

/**
 * A `for_each` step (SPEC.md "Step object"): renders the template to a list and runs
 * the action once per item, in order, with `item`, `loop.index` (0-based) and
 * `loop.count` in the context. Output `{items, count, errors}`: `items[i]` is item i's
 * action output (null when it failed), `errors` lists `{index, error}` of failed items.
 * The step is `error` when any item failed. A crash mid-loop reruns the whole step as
 * its next attempt, like any unfinished step.
 */
async function executeForEach(deps: RunDriverDeps, request: StepRequest, template: string): Promise<StepOutcome> {
  let list: unknown;
  try {
    list = await deps.templates.renderValue(template, request.context);
  } catch (error) {
    return { status: 'error', input: template, output: null, error: `for_each template error: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!Array.isArray(list)) return { status: 'error', input: template, output: null, error: `for_each must yield a list, got ${list === null ? 'null' : typeof list}` };
  const count = list.length;
  const inputs: unknown[] = [];
  const items: unknown[] = [];
  const errors: { index: number; error: string }[] = [];
  for (const [index, item] of list.entries()) {
    const outcome = await executeStep(deps, { ...request, context: { ...request.context, item, loop: { index, count } } });
    inputs.push(outcome.input);
    items.push(outcome.status === 'ok' ? outcome.output : null);
    if (outcome.status === 'error') errors.push({ index, error: outcome.error ?? 'error' });
  }
  const failed = errors.length === 0 ? null : `${errors.length} of ${count} items failed: ${errors.map((e) => `[${e.index}] ${e.error}`).join('; ')}`;
  return { status: failed === null ? 'ok' : 'error', input: inputs, output: { items, count, errors }, error: failed };
}

function logRow(
  state: Existing,
  stepId: string,
  action: string | null,
  attempt: number,
  status: ActionLogRow['status'],
  input: unknown,
  output: unknown,
  error: string | null,
  startedAt: string,
  finishedAt: string,
): ActionLogRow {
  return { run_id: state.id, step_id: stepId, action, attempt, status, input: input ?? null, output: output ?? null, error, started_at: startedAt, finished_at: finishedAt };
}

/**
 * The run moved on while an action was in flight (cancelled, or taken over by another
 * worker). If that attempt is still the running one, its outcome is recorded so the
 * action log holds every action that ran; otherwise the run belongs to someone else.
 */
async function recordLateFinish(deps: RunDriverDeps, streamId: string, finish: FinishStep): Promise<void> {
  const history = await deps.store.readStream(streamId);
  const state = history.reduce((s, e) => evolveRun(s, e as unknown as RunEvent), initialRunState());
  if (!state.exists || !finishedStatuses.includes(state.status)) return;
  const step = state.steps[finish.stepId];
  if (step?.status !== 'running' || step.attempt !== finish.attempt) return;
  try {
    await deps.store.append(streamId, decideRun(finish, state).map((e) => ({ ...e, metadata: systemActor })), history.length);
  } catch (error) {
    if (!(error instanceof StreamVersionConflict)) throw error;
  }
}

/** SPEC.md "Template context": `trigger`, `case`, `steps.<id>.output`, `inputs`. Secrets never enter it. */
async function templateContext(deps: RunDriverDeps, state: Existing): Promise<Record<string, unknown>> {
  const steps: Record<string, { output: unknown; status: string }> = {};
  for (const [id, s] of Object.entries(state.steps)) steps[id] = { output: s.output, status: s.status };
  return {
    trigger: state.trigger,
    case: state.caseId ? await deps.caseContext(state.caseId) : null,
    steps,
    inputs: state.inputs,
    run: { id: state.id, runbook: state.runbook.id, dry_run: state.dryRun },
  };
}
