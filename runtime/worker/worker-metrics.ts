/**
 * The worker's process-local Prometheus series (SPEC.md "Metrics": run and heartbeat
 * series on the private port 9101), on a registry of its own.
 *
 * The run and step series are read off the events the run driver appends, through a
 * metered event store, so the driver itself knows nothing of metrics.
 *
 * Series (prefix `svc_worker_`):
 * - `svc_worker_heartbeat_timestamp_seconds`: Unix time of the last claim attempt of any loop.
 * - `svc_worker_jobs_claimed_total`: run jobs this process claimed.
 * - `svc_worker_runs_finished_total{status}`: runs this process finished, by run status
 *   (a deny or a cancel ends a run in the API process that took it, so it is not here).
 * - `svc_worker_steps_total{status}`: action-log rows this process wrote, by status
 *   (`ok`, `error`, `skipped`, `dry_run`, and `expired` for gates it expired).
 * - `svc_worker_step_duration_seconds{action}`: histogram of executed steps' wall time.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventStore, NewEvent } from '../../adapters/event-store/port.ts';
import type { ActionLogRow } from '../../domain/runs/events.ts';
import type { Clock } from '../../adapters/shared/clock.ts';

export type WorkerMetrics = {
  registry: Registry;
  heartbeat: () => void;
  /** Epoch ms of the last heartbeat (0 before the first). */
  lastBeatAt: () => number;
  claimed: () => void;
  /** `store` with its run-driver appends counted. */
  metered: (store: EventStore) => EventStore;
};

/** A fresh registry with the series above, all at zero; the heartbeat gauge is unset until the first claim attempt. */
export function createWorkerMetrics(now: Clock): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const heartbeat = new Gauge({ name: 'svc_worker_heartbeat_timestamp_seconds', help: 'Unix time of the last claim attempt', registers });
  const claimed = new Counter({ name: 'svc_worker_jobs_claimed_total', help: 'Run jobs claimed by this process', registers });
  const runs = new Counter({ name: 'svc_worker_runs_finished_total', help: 'Runs finished by this process, by status', labelNames: ['status'], registers });
  const steps = new Counter({ name: 'svc_worker_steps_total', help: 'Action-log rows written by this process, by status', labelNames: ['status'], registers });
  const stepDuration = new Histogram({
    name: 'svc_worker_step_duration_seconds',
    help: 'Wall time of executed steps, seconds',
    labelNames: ['action'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120],
    registers,
  });
  let lastBeat = 0;
  const count = (events: NewEvent[]) => {
    for (const e of events) {
      if (e.type === 'run.finished') runs.inc({ status: String(e.data.status) });
      const log = e.data.log as ActionLogRow | undefined;
      if (log === undefined) continue;
      steps.inc({ status: log.status });
      if (e.type === 'step.finished' && log.action !== null) {
        stepDuration.observe({ action: log.action }, Math.max(0, Date.parse(log.finished_at) - Date.parse(log.started_at)) / 1000);
      }
    }
  };
  return {
    registry,
    heartbeat: () => {
      lastBeat = now().getTime();
      heartbeat.set(lastBeat / 1000);
    },
    lastBeatAt: () => lastBeat,
    claimed: () => claimed.inc(),
    metered: (store) => ({
      append: async (streamId, events, expected) => {
        const result = await store.append(streamId, events, expected);
        count(events);
        return result;
      },
      appendMany: async (writes) => {
        const result = await store.appendMany(writes);
        for (const w of writes) count(w.events);
        return result;
      },
      readStream: (streamId) => store.readStream(streamId),
      readStreamFrom: (streamId, fromVersion) => store.readStreamFrom(streamId, fromVersion),
      readAll: (after, limit) => store.readAll(after, limit),
      headPosition: () => store.headPosition(),
      purge: (purge) => store.purge(purge),
      onAppended: (listener) => store.onAppended(listener),
    }),
  };
}
