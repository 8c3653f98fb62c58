/**
 * Manual runs (SPEC.md `POST /cases/<id>/runbooks/<slug>/run`): queues a run of an
 * enabled runbook bound to a case, with `inputs` and `dry_run`. The worker picks it
 * up from the projected job row. Also the human moves on a run in flight: deciding its
 * approval gate and cancelling it (SPEC.md "Runs, steps and gates").
 */
import { notFound, unprocessable } from '../../domain/shared/errors.ts';
import type { RunbookDefinition } from '../../domain/runbooks/model.ts';
import { decideRun, type RunCommand } from '../../domain/runs/decide.ts';
import type { RunEvent, RunQueued } from '../../domain/runs/events.ts';
import { evolveRun, initialRunState } from '../../domain/runs/state.ts';
import { streams } from '../../domain/shared/streams.ts';
import { StreamVersionConflict, type EventStore } from '../event-store/port.ts';

export type RunCommandDeps = {
  store: EventStore;
  runbook: (slug: string) => RunbookDefinition | undefined;
  ids: () => string;
  now: () => Date;
};

/** Appending races the worker on the run stream; a conflict means re-read and decide again. */
const CONFLICT_ATTEMPTS = 5;

export function createRunCommands(deps: RunCommandDeps) {
  /** Decides `command` on the run's current state and appends it; returns the last position written. */
  const onRun = async (runId: string, actorEmail: string | null, command: () => RunCommand): Promise<number> => {
    const streamId = streams.run(runId);
    for (let attempt = 1; ; attempt++) {
      const history = await deps.store.readStream(streamId);
      const state = history.reduce((s, e) => evolveRun(s, e as unknown as RunEvent), initialRunState());
      const events = decideRun(command(), state);
      try {
        const r = await deps.store.append(streamId, events.map((e) => ({ ...e, metadata: { actor: { id: null, email: actorEmail, kind: 'user' as const } } })), history.length);
        return r.lastPosition;
      } catch (error) {
        if (!(error instanceof StreamVersionConflict) || attempt >= CONFLICT_ATTEMPTS) throw error;
      }
    }
  };
  return {
    /**
     * Approves or denies the gate open on `stepId`. `roles` are the caller's roles in the
     * run's team. Errors: see domain/runs/decide.ts (`approval_expired`, `gate_not_open`,
     * `approval_role_required`, `run_finished`).
     */
    decideGate: (input: { runId: string; stepId: string; decision: 'approved' | 'denied'; note: string | null; by: string | null; roles: string[] }) =>
      onRun(input.runId, input.by, () => ({ type: 'decide_gate', stepId: input.stepId, decision: input.decision, by: input.by, roles: input.roles, note: input.note, now: deps.now().toISOString() })),
    /** Cancels a run that has not finished; `run_finished` (409) otherwise. */
    cancel: (input: { runId: string; by: string | null }) => onRun(input.runId, input.by, () => ({ type: 'cancel', by: input.by, now: deps.now().toISOString() })),
    /** Errors: `runbook_not_found` (404), `runbook_disabled` and `runbook_input_missing` (422). */
    queueManual: async (input: {
      slug: string;
      caseId: string;
      caseTrigger: Record<string, unknown>;
      inputs: Record<string, unknown>;
      dryRun: boolean;
      requestedBy: string | null;
    }): Promise<{ runId: string; position: number }> => {
      const runbook = deps.runbook(input.slug);
      if (!runbook) throw notFound('runbook_not_found', 'runbook not found', { slug: input.slug });
      if (!runbook.enabled) throw unprocessable('runbook_disabled', 'runbook is disabled', { slug: input.slug });
      const missing = runbook.inputs.filter((i) => i.required && input.inputs[i.name] === undefined).map((i) => i.name);
      if (missing.length > 0) throw unprocessable('runbook_input_missing', `missing required inputs: ${missing.join(', ')}`, { missing });
      const runId = deps.ids();
      const queued: RunQueued = {
        type: 'run.queued',
        data: {
          run_id: runId,
          runbook,
          case_id: input.caseId,
          trigger_type: 'manual',
          trigger: input.caseTrigger,
          inputs: input.inputs,
          dry_run: input.dryRun,
          requested_by: input.requestedBy,
          queued_at: deps.now().toISOString(),
        },
      };
      const r = await deps.store.append(streams.run(runId), [{ ...queued, metadata: { actor: { id: null, email: input.requestedBy, kind: 'user' } } }], 0);
      return { runId, position: r.lastPosition };
    },
  };
}

export type RunCommands = ReturnType<typeof createRunCommands>;
