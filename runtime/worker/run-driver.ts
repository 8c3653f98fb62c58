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
import { StreamVersionConflict, type EventStore } from '../../adapters/event-store/port.ts';
import type { TemplateEngine } from '../../adapters/templates/liquid.ts';
import { nextMove } from '../../domain/runbooks/run-workflow.ts';
import { decideRun, type RunCommand } from '../../domain/runs/decide.ts';
import { evolveRun, initialRunState, type RunState } from '../../domain/runs/state.ts';
import type { ActionLogRow, RunEvent } from '../../domain/runs/events.ts';
import type { EventMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import { executeStep, type StepExecutorDeps } from './step-executor.ts';

export type RunDriverDeps = StepExecutorDeps & {
  store: EventStore;
  templates: TemplateEngine;
  /** Case fields for the template context (`case`), read fresh at each step. */
  caseContext: (caseId: string) => Promise<Record<string, unknown> | null>;
  /** Case commands bound to a case, acting as the runbook. */
  caseCommands: (caseId: string, runbookId: string) => CaseCommands;
  /** Still holding the run's lease? Checked before each move. */
  stillOwned: () => boolean;
};

type Existing = Extract<RunState, { exists: true }>;

const systemActor: EventMetadata = { actor: { id: null, email: null, kind: 'system' } };

export async function driveRun(deps: RunDriverDeps, runId: string): Promise<void> {
  const streamId = streams.run(runId);
  for (;;) {
    if (!deps.stillOwned()) return;
    const history = await deps.store.readStream(streamId);
    const state = history.reduce((s, e) => evolveRun(s, e as unknown as RunEvent), initialRunState());
    if (!state.exists) return;
    const move = nextMove(state);
    if (move.kind === 'idle') return;
    const now = () => deps.now().toISOString();
    /** Decides against `from` (at stream version `version`) and appends; returns the events written. */
    const appendFrom = async (from: RunState, version: number, command: RunCommand) => {
      const events = decideRun(command, from);
      await deps.store.append(streamId, events.map((e) => ({ ...e, metadata: systemActor })), version);
      return events;
    };
    const append = (command: RunCommand) => appendFrom(state, history.length, command);
    try {
      switch (move.kind) {
        case 'start_run':
          await append({ type: 'start_run', now: now() });
          break;
        case 'finish_run':
          await append({ type: 'finish_run', status: move.status, error: move.error, now: now() });
          break;
        case 'skip_step': {
          const at = now();
          const log = logRow(state, move.step.id, move.step.action, move.attempt, 'skipped', null, null, move.reason, at, at);
          await append({ type: 'finish_step', stepId: move.step.id, attempt: move.attempt, status: 'skipped', output: null, error: move.reason, log, now: at });
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
          await append({ type: 'finish_step', stepId: move.step.id, attempt: move.attempt, ...outcome, log, now: now() });
          break;
        }
        case 'execute_step': {
          const startedAt = now();
          const startEvents = await append({ type: 'start_step', stepId: move.step.id, attempt: move.attempt, now: startedAt });
          const outcome = await executeStep(deps, {
            runId,
            step: move.step,
            attempt: move.attempt,
            caseId: state.caseId,
            dryRun: state.dryRun,
            context: await templateContext(deps, state),
            cases: state.caseId ? deps.caseCommands(state.caseId, state.runbook.id) : null,
          });
          const finishedAt = now();
          const status = state.dryRun && outcome.status === 'ok' ? 'dry_run' : outcome.status;
          const log = logRow(state, move.step.id, move.step.action, move.attempt, status, outcome.input, outcome.output, outcome.error, startedAt, finishedAt);
          await appendFrom(startEvents.reduce(evolveRun, state), history.length + startEvents.length, {
            type: 'finish_step',
            stepId: move.step.id,
            attempt: move.attempt,
            status: outcome.status,
            output: outcome.output,
            error: outcome.error,
            log,
            now: finishedAt,
          });
          break;
        }
      }
    } catch (error) {
      if (error instanceof StreamVersionConflict) return;
      throw error;
    }
  }
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
