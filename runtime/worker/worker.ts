/**
 * The worker (docs/architecture.md "Run path"): claims run jobs from the `jobs` table
 * with `FOR UPDATE SKIP LOCKED` and a lease, renews the lease while it drives the
 * run, and leaves the job to the projector to delete when the run finishes. A job
 * whose lease expired (its worker died) is claimed again by any worker.
 *
 * One claim loop fills `concurrency` slots: each claim takes up to as many due runs as
 * there are free slots, in one statement, and each run is driven on its own; a run that
 * ends frees its slot, and wakes the loop when runs were left waiting for one. Runs spend most of their time waiting (on the
 * database, on an action's peer), so many slots keep a worker busy without a claim
 * query per slot, and a wake-up costs one claim however many slots are free.
 *
 * A job is due by the service clock (`driver.now`), the clock its `due_at` was computed
 * with (queue time, gate deadline), so a test that moves the clock expires a gate
 * (due-jobs.ts).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { startCatchUpLoop } from '../../projections/catch-up.ts';
import type { Database } from '../../projections/database.ts';
import { RUN_JOB } from '../../projections/runs/runs.projection.ts';
import { claimDueJobs } from './due-jobs.ts';
import { driveRun, type RunDriverDeps } from './run-driver.ts';
import type { WorkerMetrics } from './worker-metrics.ts';

export type WorkerOptions = {
  db: Kysely<Database>;
  driver: Omit<RunDriverDeps, 'stillOwned'>;
  /** How long a claim holds, ms; renewed every third of it. */
  leaseMs: number;
  pollIntervalMs: number;
  /** Runs driven at once by this process. */
  concurrency: number;
  onError: (error: unknown) => void;
  /** Heartbeat and claim counters (worker-metrics.ts). */
  metrics: Pick<WorkerMetrics, 'heartbeat' | 'claimed'>;
};

export type Worker = { wake: () => void; stop: () => Promise<void> };

/** Whether projected `events` give the worker something to claim: a queued run, or a gate decided (its run resumes). */
export function wakesWorker(events: readonly { type: string }[]): boolean {
  return events.some((e) => e.type === 'run.queued' || e.type === 'gate.decided');
}

export function startWorker(options: WorkerOptions): Worker {
  const owner = `worker-${randomUUID()}`;
  const { db } = options;
  const driving = new Set<Promise<void>>();

  const renew = async (runId: string): Promise<boolean> => {
    const r = await sql`
      update jobs set lease_until = now() + make_interval(secs => ${options.leaseMs / 1000})
      where kind = ${RUN_JOB} and key = ${runId} and lease_owner = ${owner}`.execute(db);
    return Number(r.numAffectedRows ?? 0) > 0;
  };

  /** Drives one claimed run until it is idle or its lease is lost. */
  const drive = async (runId: string): Promise<void> => {
    let owned = true;
    const timer = setInterval(
      () => {
        renew(runId).then(
          (ok) => {
            owned = ok;
          },
          (error) => options.onError(error),
        );
      },
      Math.max(50, options.leaseMs / 3),
    );
    let finished: boolean;
    try {
      finished = await driveRun({ ...options.driver, stillOwned: () => owned }, runId);
    } finally {
      clearInterval(timer);
    }
    // A finished run keeps its lease until the projector deletes its job: freed, it would
    // be claimed again and again only to be found finished, until the projector catches up.
    if (finished) return;
    // A run waiting on a gate stops here with its job still present: free it at once so
    // the worker that claims it at the deadline, or after a decision, need not wait out this lease.
    await sql`update jobs set lease_owner = null, lease_until = null where kind = ${RUN_JOB} and key = ${runId} and lease_owner = ${owner}`.execute(db);
  };

  // Whether due runs may be left unclaimed: the last claim filled every free slot, or
  // none was free. Only then does a run's end wake the loop; otherwise nothing is waiting
  // that a projected `run.queued` or the poll would not announce, and an empty claim is
  // the costliest statement of a quiet worker.
  let backlog = true;
  const loop = startCatchUpLoop({
    pollIntervalMs: options.pollIntervalMs,
    onError: options.onError,
    step: async () => {
      options.metrics.heartbeat();
      const free = options.concurrency - driving.size;
      if (free <= 0) {
        backlog = true;
        return false;
      }
      const runIds = await claimDueJobs(db, { kind: RUN_JOB, owner, leaseMs: options.leaseMs, now: options.driver.now() }, free);
      backlog = runIds.length === free;
      for (const runId of runIds) {
        options.metrics.claimed();
        // A failed drive keeps its lease until it expires, then any worker takes the run up again.
        const driven: Promise<void> = drive(runId)
          .catch(options.onError)
          .finally(() => {
            driving.delete(driven);
            if (backlog) loop.wake();
          });
        driving.add(driven);
      }
      return backlog;
    },
  });

  return {
    wake: loop.wake,
    stop: async () => {
      await loop.stop();
      while (driving.size > 0) await Promise.all(driving);
    },
  };
}
