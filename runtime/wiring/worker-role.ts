/**
 * The worker role (SVC_ROLE `worker` or `all`; docs/architecture.md "Run path: a queued
 * run is driven to its end"): the schedule ticker, the retention sweep, ticket mirroring,
 * containment expiry, queued AI triage, the run worker with its step executor, and the
 * worker's metrics port.
 */
import { createRunCaseEffects } from '../../adapters/commands/run-case-effects.ts';
import { createRetentionCommands } from '../../adapters/commands/retention.ts';
import { retentionCutoff } from '../../domain/retention/policy.ts';
import { findCaseContext } from '../../projections/cases/cases.queries.ts';
import { startMetricsServer } from '../metrics-server.ts';
import { startAutoTriage } from '../worker/auto-triage.ts';
import { startEffectExpiry } from '../worker/effect-expiry.ts';
import { createRetentionSweeper, startRetentionLoop } from '../worker/retention-sweep.ts';
import { startScheduleTicker } from '../worker/schedule-tick.ts';
import { createTicketOutbox } from '../worker/ticket-outbox.ts';
import { createTicketPoller, startTicketLoop } from '../worker/ticket-poll.ts';
import { startWorker } from '../worker/worker.ts';
import { createWorkerMetrics, type WorkerMetrics } from '../worker/worker-metrics.ts';
import type { Automation } from './automation.ts';
import type { CaseWork } from './cases.ts';
import type { Core } from './core.ts';
import type { Peers } from './peers.ts';
import type { ReadModels } from './projector.ts';

export type WorkerRole = {
  /** The worker's metrics endpoint (SVC_WORKER_METRICS_PORT). */
  metricsUrl: string;
  metrics: WorkerMetrics;
  /** Stops the loops in turn, then the run worker (its steps in flight end first), then the metrics port. */
  stop: () => Promise<void>;
};

/** Starts the worker's loops. Throws listenError's answer when the metrics port is taken; the loops started are stopped first. */
export async function startWorkerRole(
  core: Core,
  peers: Peers,
  { projector, listeners }: ReadModels,
  automation: Automation,
  work: CaseWork,
): Promise<WorkerRole> {
  const { config, log, db, store, ids, now, audit, failure } = core;
  const { connections, reverser } = automation;
  const waitFor = (position: number) => projector.waitFor(position);
  const loops: { stop: () => Promise<void> }[] = [];
  loops.push(
    startScheduleTicker({
      db,
      store,
      runnable: automation.runbooks.runnable,
      now,
      intervalMs: config.scheduleTickMs,
      onError: failure('schedule.tick_failed', 'schedule tick failed'),
    }),
  );
  if (retentionCutoff(core.retentionPolicy, now()) !== null) {
    const sweeper = createRetentionSweeper({
      db,
      policy: core.retentionPolicy,
      closedStatuses: config.closedStatuses,
      commands: createRetentionCommands({ db, store, audit, now }),
      files: core.files,
      waitFor,
      now,
      holdMs: config.workerLeaseMs,
    });
    loops.push(startRetentionLoop(sweeper, db, now, failure('retention.sweep_failed', 'retention sweep failed')));
  } else log.warn({ cause: core.retentionPolicy.cause, enabled: core.retentionPolicy.enabled }, 'retention sweeping is off');
  const ticketWork = {
    db,
    mirror: work.ticketMirror,
    resolveConnection: connections.resolveByName,
    outbound: peers.outbound,
    now,
    batch: config.ticketPoll.batch,
    timeoutMs: config.ticketPoll.timeoutMs,
    onError: failure('tickets.poll_failed', 'ticket mirroring failed'),
  };
  const ticketPoller = createTicketPoller({ ...ticketWork, closedStatuses: config.closedStatuses, headPosition: () => store.headPosition(), waitFor });
  loops.push(
    startTicketLoop(
      [createTicketOutbox(ticketWork).drain, ticketPoller.tick],
      config.ticketPoll.tickMs,
      failure('tickets.poll_failed', 'ticket mirroring failed'),
    ),
  );
  const leased = { db, now, leaseMs: config.workerLeaseMs, pollIntervalMs: config.pollIntervalMs };
  loops.push(startEffectExpiry({ ...leased, reverser, onError: failure('worker.step_failed', 'effect reversal failed') }));
  loops.push(startAutoTriage({ ...leased, triage: work.caseTriage, cases: work.cases, onError: failure('worker.step_failed', 'queued AI triage failed') }));
  const stopLoops = async () => {
    for (const loop of loops) await loop.stop();
  };
  const metrics = createWorkerMetrics(now);
  const metricsServer = await startMetricsServer({
    registry: metrics.registry,
    token: config.metrics.token,
    host: config.metrics.workerHost,
    port: config.metrics.workerPort,
    alive: () => now().getTime() - metrics.lastBeatAt() <= config.workerLeaseMs,
  }).catch(async (error: unknown) => {
    await stopLoops();
    throw error;
  });
  log.info({ url: metricsServer.url }, 'worker metrics listening');
  const worker = startWorker({
    db,
    metrics,
    leaseMs: config.workerLeaseMs,
    pollIntervalMs: config.pollIntervalMs,
    concurrency: config.workerConcurrency,
    onError: failure('worker.step_failed', 'worker step failed'),
    driver: {
      store: metrics.metered(store),
      templates: automation.templates,
      actions: automation.actions,
      resolveConnection: connections.resolveByName,
      now,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      backoffBaseMs: config.stepBackoffBaseMs,
      gateEvaluationTries: config.gateEvaluationTries,
      maxStepVisits: config.maxStepVisits,
      approvalDeadlineHours: peers.approvalDefaults.deadlineHours,
      caseContext: (caseId) => findCaseContext(db, caseId),
      caseEffects: createRunCaseEffects({
        db,
        severities: config.severities,
        statuses: config.statuses,
        permissions: work.permissions,
        ids,
        now,
        audit,
        fieldRules: work.customFields.rules,
      }),
      audit,
    },
  });
  listeners.worker = worker;
  return {
    metricsUrl: metricsServer.url,
    metrics,
    stop: async () => {
      await stopLoops();
      await worker.stop();
      await metricsServer.close();
    },
  };
}
