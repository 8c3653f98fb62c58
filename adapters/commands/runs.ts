/**
 * Manual runs (SPEC.md `POST /cases/<id>/runbooks/<slug>/run`): queues a run of an
 * enabled runbook bound to a case, with `inputs` and `dry_run`. The worker picks it
 * up from the projected job row. Also the human moves on a run in flight: deciding its
 * approval gate and cancelling it (SPEC.md "Runs, steps and gates"). Every command goes
 * through `decideAndAppend`, so the worker racing on the run stream costs a retry, never
 * a lost decision.
 */
import { notFound } from '../../domain/shared/errors.ts';
import type { RunbookDefinition } from '../../domain/runbooks/model.ts';
import { runDecider, type RunCommand } from '../../domain/runs/index.ts';
import type { RunState } from '../../domain/runs/state.ts';
import type { EventMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { EventStore } from '../event-store/port.ts';
import { decideAndAppend } from './aggregate.ts';
import type { StreamState } from './stream-states.ts';

export type RunCommandDeps = {
  store: EventStore;
  runbook: (slug: string) => RunbookDefinition | undefined;
  ids: () => string;
  now: () => Date;
};

/** A person's move on a run is recorded as theirs. */
const userActor = (email: string | null): EventMetadata => ({ actor: { id: null, email, kind: 'user' } });

export function createRunCommands(deps: RunCommandDeps) {
  /** Decides `command` on the run's current state and appends it; returns the last position written. */
  const onRun = async (runId: string, actorEmail: string | null, command: () => RunCommand, known?: StreamState<RunState>): Promise<number | null> =>
    (await decideAndAppend(deps.store, streams.run(runId), runDecider, command, userActor(actorEmail), undefined, known)).position;
  return {
    /**
     * Approves or denies the gate open on `stepId`. `roles` are the caller's roles in the
     * run's team. Errors: see domain/runs/decide.ts (`approval_expired`, `gate_not_open`,
     * `approval_role_required`, `run_finished`).
     */
    decideGate: (input: { runId: string; stepId: string; decision: 'approved' | 'denied'; note: string | null; by: string | null; roles: string[] }) =>
      onRun(input.runId, input.by, () => ({
        type: 'decide_gate',
        stepId: input.stepId,
        decision: input.decision,
        by: input.by,
        roles: input.roles,
        note: input.note,
        now: deps.now().toISOString(),
      })),
    /** Cancels a run that has not finished; `run_finished` (409) otherwise. */
    cancel: (input: { runId: string; by: string | null }) =>
      onRun(input.runId, input.by, () => ({ type: 'cancel', by: input.by, now: deps.now().toISOString() })),
    /**
     * Queues a run of the stored runbook `slug`, or of `draft` (a definition not saved, for a
     * dry run from the editor) when given. Errors: `runbook_not_found` (404);
     * `runbook_disabled` and `runbook_input_missing` (422, domain/runs/decide.ts).
     */
    queueManual: async (input: {
      slug: string;
      draft?: RunbookDefinition;
      caseId: string;
      caseTrigger: Record<string, unknown>;
      inputs: Record<string, unknown>;
      dryRun: boolean;
      requestedBy: string | null;
    }): Promise<{ runId: string; position: number | null }> => {
      const runbook = input.draft ?? deps.runbook(input.slug);
      if (!runbook) throw notFound('runbook_not_found', 'runbook not found', { slug: input.slug });
      const runId = deps.ids();
      // A fresh id has no stream yet: decided on the initial state with no read, as intake
      // queues its runs; the expected version 0 still catches a stream that is not empty.
      const position = await onRun(
        runId,
        input.requestedBy,
        () => ({
          type: 'queue_run',
          runbook,
          runId,
          caseId: input.caseId,
          triggerType: 'manual',
          trigger: input.caseTrigger,
          inputs: input.inputs,
          dryRun: input.dryRun,
          requestedBy: input.requestedBy,
          now: deps.now().toISOString(),
        }),
        { state: runDecider.initialState(), version: 0 },
      );
      return { runId, position };
    },
  };
}

export type RunCommands = ReturnType<typeof createRunCommands>;
