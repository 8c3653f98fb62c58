/**
 * Drives one run to its end (the worker side of domain/runbooks/run-workflow.ts):
 * reads the run stream, asks the workflow for the next move, carries it out and
 * appends the outcome with the version it read. A version conflict means another
 * worker took the run over: this one stops driving it.
 *
 * Crash safety: a step is recorded `step.started` before its action runs and
 * `step.finished` after; on restart a finished step is never executed again, and a
 * started-but-unfinished one runs again as the next attempt, in the same pass: its
 * calls carry the same delivery id as before the crash (`webhook-id`, a custom action's
 * Idempotency-Key, an email's Message-ID), so a receiver can drop the redelivery. An
 * action's effect on our own store (case events, ticket links) is appended in one
 * `appendMany` with its step's `step.finished`, so a restart finds both or neither: it
 * takes effect exactly once.
 */
import type { ActionGate, CaseEffects } from '../../adapters/actions/action.ts';
import { conflictBackoff, MAX_CONFLICT_RETRIES } from '../../adapters/commands/aggregate.ts';
import { systemActor as auditSystemActor, type AuditLog } from '../../adapters/commands/audit.ts';
import { createUnitOfWork, type UnitOfWork } from '../../adapters/commands/unit-of-work.ts';
import { asJsonb } from '../../adapters/event-store/jsonb.ts';
import { StreamVersionConflict, type EventStore, type StreamWrite } from '../../adapters/event-store/port.ts';
import type { TemplateEngine } from '../../adapters/templates/liquid.ts';
import type { StepDefinition } from '../../domain/runbooks/model.ts';
import { gateDeadline, nextMove } from '../../domain/runbooks/run-workflow.ts';
import { finishedStatuses, runDecider, type ActionLogRow, type GateReason, type RunCommand, type RunEvent, type RunState } from '../../domain/runs/index.ts';
import { fold, systemMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import {
  executeStep,
  settleRun,
  stepGate,
  type ActionRun,
  type AskedGate,
  type GateDecision,
  type StepExecutorDeps,
  type StepOutcome,
  type StepRequest,
} from './step-executor.ts';

export type RunDriverDeps = StepExecutorDeps & {
  store: EventStore;
  templates: TemplateEngine;
  /** Case fields for the template context (`case`), read fresh at each step. */
  caseContext: (caseId: string) => Promise<Record<string, unknown> | null>;
  /** What a step may change on its run's case, staged in `unit` and acting as the runbook (adapters/commands/run-case-effects.ts). */
  caseEffects: (unit: UnitOfWork, caseId: string, runbookId: string) => CaseEffects;
  /** Still holding the run's lease? Checked before each move. */
  stillOwned: () => boolean;
  /** SVC_MAX_STEP_VISITS: re-entries a goto target allows before the run fails. */
  maxStepVisits: number;
  /**
   * Hours a gate stays open when its step names no `timeout_h`: the install default from
   * the suite's approval settings, else 24 (adapters/identity-service/approval-defaults.ts).
   * Read only when such a gate opens; the deadline is then fixed in `gate.opened`, so a
   * replay after a crash never reads it again.
   */
  approvalDeadlineHours: () => Promise<number>;
  /**
   * Where a live execution of an arbitrary-tier custom action is audited
   * (`custom_action.execute`, in the same append as the step's end); absent, it is not.
   */
  audit?: AuditLog;
};

type Existing = Extract<RunState, { exists: true }>;
type FinishStep = Extract<RunCommand, { type: 'finish_step' }>;
/** The attempt whose action ran while its end is unwritten; `settle` stages its store effects into `unit` and gives its end (once per append try). */
type InFlight = { stepId: string; attempt: number; settle: (unit: UnitOfWork) => Promise<FinishStep> };

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
 * between loses only decisions that are taken again on restart. A step with store
 * effects costs one more append: its end is appended at once, with its effects
 * (`finishAttempt`).
 */
export async function driveRun(deps: RunDriverDeps, runId: string): Promise<boolean> {
  const streamId = streams.run(runId);
  const history = await deps.store.readStream(streamId);
  let state = fold(runDecider, history);
  let version = history.length;
  let unwritten: RunEvent[] = [];
  let inFlight: InFlight | null = null;

  const now = () => deps.now().toISOString();
  const record = (command: RunCommand) => {
    const events = runDecider.decide(command, state).map((e) => asJsonb(e) as RunEvent);
    state = events.reduce(runDecider.evolve, state);
    unwritten.push(...events);
  };
  /** Appends the unwritten run events, with `effects` in the same transaction when given. */
  const flush = async (effects: StreamWrite[] = []) => {
    if (unwritten.length === 0) return;
    const events = unwritten.map((e) => ({ ...e, metadata: systemMetadata }));
    if (effects.length === 0) await deps.store.append(streamId, events, version);
    else await deps.store.appendMany([{ streamId, events, expectedVersion: version }, ...effects]);
    version += unwritten.length;
    unwritten = [];
    inFlight = null;
  };
  /**
   * Settles the attempt in a fresh unit and records its end. An end without store effects
   * waits for the next append like any decision; one with effects is appended at once,
   * in one appendMany with them, each stream at the version it was read at. A conflict
   * on an effect's stream means another command moved it first and nothing was written:
   * the attempt is settled again on the moved stream, so nothing applies twice. After
   * MAX_CONFLICT_RETRIES the step ends `error` with no effect. A conflict on the run
   * stream reaches the caller: the run moved on.
   */
  const finishAttempt = async (current: InFlight) => {
    for (let retry = 0; ; retry++) {
      const unit = createUnitOfWork(deps.store);
      const finish = await current.settle(unit);
      const effects = unit.writes();
      const kept = { state, unwritten: [...unwritten] };
      record(finish);
      if (effects.length === 0) return;
      try {
        await flush(effects);
        return;
      } catch (error) {
        if (!(error instanceof StreamVersionConflict) || error.params.stream_id === streamId) throw error;
        state = kept.state;
        unwritten = kept.unwritten;
        if (retry >= MAX_CONFLICT_RETRIES) {
          const abandoned = withoutEffect(finish, `effect_conflict: ${error.message}`, now());
          record(abandoned);
          inFlight = { ...current, settle: async () => abandoned };
          return;
        }
        await conflictBackoff(retry);
      }
    }
  };

  /** Whether a live execution of `step` asks its action's gate first (ActionDefinition.gate). */
  const hasActionGate = (current: Existing, step: StepDefinition): boolean =>
    step.action !== null && !current.dryRun && deps.actions.implementation(step.action)?.gate !== undefined;
  /**
   * What `step`'s action asks a person to approve before `attempt` starts
   * (runtime/worker/step-executor.ts `stepGate`), and the template context it was asked
   * on (null when the action has no gate): the step's own context too, read once.
   */
  const actionGate = async (
    current: Existing,
    step: StepDefinition,
    attempt: number,
  ): Promise<{ asked: GateDecision; context: Record<string, unknown> | null }> => {
    if (!hasActionGate(current, step)) return { asked: { kind: 'run' }, context: null };
    const context = await templateContext(deps, current, step);
    const pass = current.steps[step.id]?.pass ?? 1;
    return { asked: await stepGate(deps, { runId, step, attempt, pass, item: null, caseId: current.caseId, dryRun: false, context, approval: null }), context };
  };
  /** Opens `gate` on `stepId`, its deadline `timeoutH` hours away (null: the install default). */
  const openGate = async (
    stepId: string,
    timeoutH: number | null,
    gate: Omit<Extract<RunCommand, { type: 'open_gate' }>, 'type' | 'stepId' | 'deadline' | 'now'>,
  ) => {
    const at = now();
    const deadline = gateDeadline(at, timeoutH ?? (await deps.approvalDeadlineHours()));
    record({ type: 'open_gate', stepId, ...gate, deadline, now: at });
  };
  /** Ends `stepId` as `error` without starting it: nothing was called (a gate that could not be decided). */
  const refuseStep = (stepId: string, action: string | null, attempt: number, input: unknown, error: string) => {
    if (!state.exists) return;
    const at = now();
    const log = logRow(state, stepId, action, attempt, 'error', input, null, error, at, at);
    record({ type: 'finish_step', stepId, attempt, status: 'error', output: null, error, log, now: at });
  };

  try {
    for (;;) {
      if (!deps.stillOwned() || !state.exists) {
        await flush();
        return false;
      }
      const move = nextMove(state, {
        maxStepVisits: deps.maxStepVisits,
        now: now(),
        riskOf: (action) => deps.actions.riskOf(action),
        bounded: (action) => deps.actions.isBounded(action),
        adminGate: (action) => deps.actions.needsAdminGate(action),
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
          const { step, reason, roles, message, timeoutH } = move;
          // The step's own gate also names the request its action would make, so approving
          // the step approves that request (and no second gate opens for it).
          const { asked } = await actionGate(state, step, move.attempt);
          if (asked.kind === 'failed') {
            refuseStep(step.id, step.action, move.attempt, step.with, asked.error);
            break;
          }
          const gates = asked.kind === 'gate' ? asked.gates : [];
          const messages = [message, ...gates.map((g) => g.message)].filter((m): m is string => m !== null);
          await openGate(step.id, timeoutH, {
            reason,
            roles,
            message: messages.length === 0 ? null : messages.join('; '),
            requests: gates.map((g) => g.request),
          });
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
            const result = await deps.templates.evaluateCondition(move.step.when ?? 'false', await templateContext(deps, state, move.step));
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
          const { step, attempt } = move;
          const pass = before.steps[step.id]?.pass ?? 1;
          const approval = Object.hasOwn(before.approvals, step.id) ? (before.approvals[step.id] ?? null) : null;
          // An approved step asks its action nothing here: the action decides again when it runs.
          const { asked, context: gateContext } = approval === null ? await actionGate(before, step, attempt) : { asked: null, context: null };
          if (asked?.kind === 'failed') {
            refuseStep(step.id, step.action, attempt, step.with, asked.error);
            break;
          }
          if (asked?.kind === 'gate') {
            await openGate(step.id, step.approval?.timeout_h ?? null, gateOf(asked.gates));
            break;
          }
          const startedAt = now();
          record({ type: 'start_step', stepId: step.id, attempt, now: startedAt });
          // The start is durable before the action runs (a crash from here on reruns the
          // step as its next attempt); the template context is only read meanwhile.
          const [, context] = await Promise.all([flush(), gateContext ?? templateContext(deps, before, step)]);
          const request: StepRequest = { runId, step, attempt, pass, item: null, caseId: before.caseId, dryRun: before.dryRun, context, approval };
          const { executed, gates } = step.for_each === null ? settleOne(await executeStep(deps, request)) : await executeForEach(deps, request, step.for_each);
          if (gates.length > 0) {
            // Decided again at execution, the request needs an approval the step does not
            // hold: the step waits at a gate instead of ending, and runs again once approved.
            await openGate(step.id, step.approval?.timeout_h ?? null, gateOf(gates));
            break;
          }
          inFlight = {
            stepId: step.id,
            attempt,
            settle: async (unit) => {
              const outcome = await executed(unit, before.caseId === null ? null : deps.caseEffects(unit, before.caseId, before.runbook.id));
              const finishedAt = now();
              const status = before.dryRun && outcome.status === 'ok' ? 'dry_run' : outcome.status;
              const log = logRow(before, step.id, step.action, attempt, status, outcome.input, outcome.output, outcome.error, startedAt, finishedAt);
              if (!before.dryRun && step.action !== null && deps.audit && deps.actions.needsAdminGate(step.action)) {
                const entry = deps.audit.write({
                  action: 'custom_action.execute',
                  actor: auditSystemActor('runbook_run'),
                  target: { type: 'run', id: runId },
                  team: null,
                  detail: { action: step.action, runbook_id: before.runbook.id, step_id: step.id, attempt, status: outcome.status },
                });
                unit.create(entry.streamId, entry.events, entry.events[0]?.metadata ?? systemMetadata);
              }
              return {
                type: 'finish_step',
                stepId: step.id,
                attempt,
                status: outcome.status,
                output: outcome.output,
                error: outcome.error,
                log,
                now: finishedAt,
              };
            },
          };
          await finishAttempt(inFlight);
          break;
        }
      }
    }
  } catch (error) {
    if (!(error instanceof StreamVersionConflict)) throw error;
    if (inFlight !== null) await recordLateFinish(deps, streamId, inFlight);
    return false;
  }
}

/** An executed step not yet settled: stages its store effects into `unit` through `cases` and resolves its outcome. */
type Executed = (unit: UnitOfWork, cases: CaseEffects | null) => Promise<StepOutcome>;

/** A step's action calls once made: how to settle them, and the gates they asked for instead of running (empty: none). */
type Execution = { executed: Executed; gates: readonly AskedGate[] };

const settleOne = (run: ActionRun): Execution => ({ executed: (unit, cases) => settleRun(run, unit, cases), gates: run.gates });

/** One gate for the gates a step's action asked for: the first's reason and roles, every message, request and resume. */
function gateOf(gates: readonly (ActionGate & { deliveryId?: string })[]): {
  reason: GateReason;
  roles: string[];
  message: string;
  requests: string[];
  resume: Record<string, Record<string, unknown>>;
} {
  const first = gates[0];
  if (first === undefined) throw new Error('gateOf needs a gate');
  const resume: Record<string, Record<string, unknown>> = {};
  for (const g of gates) if (g.resume !== undefined && g.deliveryId !== undefined) resume[g.deliveryId] = g.resume;
  return {
    reason: first.reason,
    roles: [...first.roles],
    message: gates.map((g) => g.message).join('; '),
    requests: [...new Set(gates.map((g) => g.request))],
    resume,
  };
}

/** `finish` as an `error` that applied nothing: its effects could not be appended. */
function withoutEffect(finish: FinishStep, error: string, at: string): FinishStep {
  return { ...finish, status: 'error', output: null, error, log: { ...finish.log, status: 'error', output: null, error, finished_at: at }, now: at };
}

/**
 * A `for_each` step (SPEC.md "Step object"): renders the template to a list and runs
 * the action once per item, in order, with `item`, `loop.index` (0-based) and
 * `loop.count` in the context. Output `{items, count, errors}`: `items[i]` is item i's
 * action output (null when it failed), `errors` lists `{index, error}` of failed items.
 * The step is `error` when any item failed. Each item's call has its own delivery id (by
 * its index). A crash mid-loop reruns the whole step as its next attempt, like any
 * unfinished step, each item with the delivery id it had. The items' store effects are settled in
 * item order into one unit, so all of them land with the step's end.
 */
async function executeForEach(deps: RunDriverDeps, request: StepRequest, template: string): Promise<Execution> {
  const failed = (error: string): Execution => ({ executed: async () => ({ status: 'error', input: template, output: null, error }), gates: [] });
  let list: unknown;
  try {
    list = await deps.templates.renderValue(template, request.context);
  } catch (error) {
    return failed(`for_each template error: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(list)) return failed(`for_each must yield a list, got ${list === null ? 'null' : typeof list}`);
  const count = list.length;
  const runs: ActionRun[] = [];
  for (const [index, item] of list.entries()) {
    runs.push(await executeStep(deps, { ...request, item: index, context: { ...request.context, item, loop: { index, count } } }));
  }
  const gates = runs.flatMap((run, index) => run.gates.map((g) => ({ ...g, message: `[${index}] ${g.message}` })));
  const executed: Executed = async (unit, cases) => {
    const inputs: unknown[] = [];
    const items: unknown[] = [];
    const errors: { index: number; error: string }[] = [];
    for (const [index, run] of runs.entries()) {
      const outcome = await settleRun(run, unit, cases);
      inputs.push(outcome.input);
      items.push(outcome.status === 'ok' ? outcome.output : null);
      if (outcome.status === 'error') errors.push({ index, error: outcome.error ?? 'error' });
    }
    const error = errors.length === 0 ? null : `${errors.length} of ${count} items failed: ${errors.map((e) => `[${e.index}] ${e.error}`).join('; ')}`;
    return { status: error === null ? 'ok' : 'error', input: inputs, output: { items, count, errors }, error };
  };
  return { executed, gates };
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
  return {
    run_id: state.id,
    step_id: stepId,
    action,
    attempt,
    status,
    input: input ?? null,
    output: output ?? null,
    error,
    started_at: startedAt,
    finished_at: finishedAt,
  };
}

/**
 * The run moved on while an action was in flight (cancelled, or taken over by another
 * worker). If that attempt is still the running one of a run that ended, its end is
 * appended with its store effects, so the action log holds every action that ran;
 * otherwise the run belongs to someone else, who runs the step again, and this attempt
 * applies nothing. Conflicts are retried as in `finishAttempt`, then the end is left.
 */
async function recordLateFinish(deps: RunDriverDeps, streamId: string, attempt: InFlight): Promise<void> {
  for (let retry = 0; ; retry++) {
    const history = await deps.store.readStream(streamId);
    const state = fold(runDecider, history);
    if (!state.exists || !finishedStatuses.includes(state.status)) return;
    const step = state.steps[attempt.stepId];
    if (step?.status !== 'running' || step.attempt !== attempt.attempt) return;
    const unit = createUnitOfWork(deps.store);
    const events = runDecider.decide(await attempt.settle(unit), state).map((e) => ({ ...e, metadata: systemMetadata }));
    try {
      await deps.store.appendMany([{ streamId, events, expectedVersion: history.length }, ...unit.writes()]);
      return;
    } catch (error) {
      if (!(error instanceof StreamVersionConflict)) throw error;
      if (retry >= MAX_CONFLICT_RETRIES) return;
      await conflictBackoff(retry);
    }
  }
}

/**
 * SPEC.md "Template context": `trigger`, `case`, `steps.<id>.output`, `inputs`, for the
 * templates of `step`. Secrets never enter it. The case is read fresh for each step whose
 * templates may reach it, and left null for one whose templates cannot (no read for them).
 */
async function templateContext(
  deps: RunDriverDeps,
  state: Existing,
  step: Pick<StepDefinition, 'with' | 'when' | 'for_each'>,
): Promise<Record<string, unknown>> {
  const steps: Record<string, { output: unknown; status: string }> = {};
  for (const [id, s] of Object.entries(state.steps)) steps[id] = { output: s.output, status: s.status };
  const { caseId } = state;
  return {
    trigger: state.trigger,
    case: caseId !== null && deps.templates.mayRead([step.with, step.when, step.for_each], 'case') ? await deps.caseContext(caseId) : null,
    steps,
    inputs: state.inputs,
    run: { id: state.id, runbook: state.runbook.id, dry_run: state.dryRun },
  };
}
