/**
 * The read models (docs/architecture.md "Write path: an alert comes in"): every
 * projection in the order a batch applies them, and what a projected batch wakes in this
 * process: the worker, the custom action registry and the live-update frames of `WS /ws`.
 */
import { alertsProjection } from '../../projections/alerts/alerts.projection.ts';
import { autoTriageProjection } from '../../projections/ai/auto-triage.projection.ts';
import { attachmentsProjection } from '../../projections/attachments/attachments.projection.ts';
import { auditProjection } from '../../projections/audit/audit.projection.ts';
import { casesProjection } from '../../projections/cases/cases.projection.ts';
import { pagesProjection } from '../../projections/cases/pages.projection.ts';
import { customActionsProjection } from '../../projections/custom-actions/custom-actions.projection.ts';
import { effectsProjection } from '../../projections/effects/effects.projection.ts';
import { evidenceProjection } from '../../projections/evidence/evidence.projection.ts';
import { integrationPacksProjection } from '../../projections/integration-packs/integration-packs.projection.ts';
import { publishLiveUpdates } from '../../projections/live/publisher.ts';
import { notificationsProjection } from '../../projections/notifications/notifications.projection.ts';
import { taskNotificationsProjection } from '../../projections/notifications/task-notifications.projection.ts';
import { observablesProjection } from '../../projections/observables/observables.projection.ts';
import { milestonesProjection } from '../../projections/peer/milestones.projection.ts';
import { createProjector, type Projector } from '../../projections/projector.ts';
import { responsePolicyProjection } from '../../projections/response-policy/response-policy.projection.ts';
import { retentionProjection } from '../../projections/retention/retention.projection.ts';
import { runsProjection } from '../../projections/runs/runs.projection.ts';
import { tasksProjection } from '../../projections/tasks/tasks.projection.ts';
import { searchProjection } from '../../projections/search/search.projection.ts';
import { ticketOutboxProjection } from '../../projections/tickets/outbox.projection.ts';
import { ticketsProjection } from '../../projections/tickets/tickets.projection.ts';
import type { CustomActionSync } from '../custom-action-sync.ts';
import { wakesWorker, type Worker } from '../worker/worker.ts';
import type { Core } from './core.ts';

/** What a batch reaches in this process; each is set once its part has started (null before, or in a role without it). */
export type ProjectorListeners = {
  worker: Pick<Worker, 'wake'> | null;
  customActions: Pick<CustomActionSync, 'touches' | 'refresh'> | null;
  /** How many live sockets this process holds. */
  liveSockets: () => number;
};

export type ReadModels = {
  projector: Projector;
  listeners: ProjectorListeners;
  /** Resolves when the live-update frames of every batch so far are published (or their failure logged). */
  published: () => Promise<void>;
};

/** Starts the projector from its stored checkpoints. */
export function startReadModels(core: Core): ReadModels {
  const { db, store, opened, config, failure } = core;
  const listeners: ProjectorListeners = { worker: null, customActions: null, liveSockets: () => 0 };
  let livePublishing: Promise<void> = Promise.resolve();
  const projector = createProjector(
    db,
    store,
    [
      casesProjection,
      alertsProjection,
      runsProjection,
      auditProjection,
      notificationsProjection,
      observablesProjection,
      tasksProjection,
      taskNotificationsProjection,
      attachmentsProjection,
      evidenceProjection,
      pagesProjection,
      ticketsProjection,
      ticketOutboxProjection,
      searchProjection,
      retentionProjection,
      customActionsProjection,
      integrationPacksProjection,
      responsePolicyProjection,
      effectsProjection,
      autoTriageProjection,
      // After runsProjection: it reads the gates that projection settles in the same batch.
      milestonesProjection,
    ],
    {
      pollIntervalMs: config.pollIntervalMs,
      transaction: opened.pipelinedTransaction,
      onError: failure('projector.batch_failed', 'projector batch failed'),
      onAdvance: (applied) => {
        if (wakesWorker(applied)) listeners.worker?.wake();
        // A custom action saved, enabled or disabled anywhere reaches this process's registry.
        const customActions = listeners.customActions;
        if (customActions?.touches(applied)) customActions.refresh().catch(failure('runbooks.refresh_failed', 'custom action refresh failed'));
        // On PGlite this process is the only one that can listen, so frames nobody here
        // holds a socket for would cost queries for nothing; a server has other processes.
        if (opened.embedded !== null && listeners.liveSockets() === 0) return;
        // In order, one batch after the other; a failure loses frames, never a projection.
        livePublishing = livePublishing.then(() => publishLiveUpdates(db, applied)).catch(failure('live.bus_failed', 'live update publish failed'));
      },
    },
  );
  projector.start();
  return { projector, listeners, published: () => livePublishing };
}
