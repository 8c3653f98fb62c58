/**
 * The worker (DESIGN.md "process manager"): claims run jobs from the `jobs` table
 * with `FOR UPDATE SKIP LOCKED` and a lease, renews the lease while it drives the
 * run, and leaves the job to the projector to delete when the run finishes. A job
 * whose lease expired (its worker died) is claimed again by any worker.
 *
 * A job is due by the service clock (`driver.now`), the clock its `due_at` was computed
 * with (queue time, gate deadline), so a test that moves the clock expires a gate
 * (due-jobs.ts).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { startCatchUpLoop, type CatchUpLoop } from '../../projections/catch-up.ts';
import type { Database } from '../../projections/database.ts';
import { RUN_JOB } from '../../projections/runs/runs.projection.ts';
import { claimDueJob } from './due-jobs.ts';
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

  const claim = () => claimDueJob(db, { kind: RUN_JOB, owner, leaseMs: options.leaseMs, now: options.driver.now() });

  const renew = async (runId: string): Promise<boolean> => {
    const r = await sql`
      update jobs set lease_until = now() + make_interval(secs => ${options.leaseMs / 1000})
      where kind = ${RUN_JOB} and key = ${runId} and lease_owner = ${owner}`.execute(db);
    return Number(r.numAffectedRows ?? 0) > 0;
  };

  const step = async (): Promise<boolean> => {
    options.metrics.heartbeat();
    const runId = await claim();
    if (!runId) return false;
    options.metrics.claimed();
    // One claim found work: the idle loops look for more.
    for (const l of loops) l.wake();
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
    if (finished) return true;
    // A run waiting on a gate stops here with its job still present: free it at once so
    // the worker that claims it at the deadline, or after a decision, need not wait out this lease.
    await sql`update jobs set lease_owner = null, lease_until = null where kind = ${RUN_JOB} and key = ${runId} and lease_owner = ${owner}`.execute(db);
    return true;
  };

  // Each loop polls every `concurrency` intervals, so an idle worker costs about one
  // claim query per poll interval however many loops it runs, and a loop busy with a
  // long run never stops the others from finding an expired lease.
  const loops: CatchUpLoop[] = [];
  for (let i = 0; i < options.concurrency; i++) {
    loops.push(startCatchUpLoop({ step, pollIntervalMs: options.pollIntervalMs * options.concurrency, onError: options.onError }));
  }
  return {
    wake: () => {
      for (const l of loops) l.wake();
    },
    stop: async () => {
      await Promise.all(loops.map((l) => l.stop()));
    },
  };
}
