/**
 * Manual runs (SPEC.md `POST /cases/<id>/runbooks/<slug>/run`): queues a run of an
 * enabled runbook bound to a case, with `inputs` and `dry_run`. The worker picks it
 * up from the projected job row.
 */
import { notFound, unprocessable } from '../../domain/shared/errors.ts';
import type { RunbookDefinition } from '../../domain/runbooks/model.ts';
import type { RunQueued } from '../../domain/runs/events.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { EventStore } from '../event-store/port.ts';

export type RunCommandDeps = {
  store: EventStore;
  runbook: (slug: string) => RunbookDefinition | undefined;
  ids: () => string;
  now: () => Date;
};

export function createRunCommands(deps: RunCommandDeps) {
  return {
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
