/**
 * Intake back-pressure (issue 23; docs/operations.md "Back-pressure"): alert intake is
 * refused with 429 while the oldest run waiting for a worker has waited longer than
 * SVC_INTAKE_MAX_RUN_LAG_S, so an alert storm makes senders retry instead of growing
 * a backlog that would run containment minutes late.
 *
 * The lag is the age of the oldest due run job no live worker holds (queued runs, runs
 * whose gate was decided, runs whose worker died), on the service clock their `due_at`
 * was computed with. It is sampled at most once per `sampleMs` per process, one indexed
 * query, so a burst of requests costs one read.
 */
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Database } from '../../projections/database.ts';
import { claimableJobs } from '../../projections/runs/jobs.queries.ts';
import { RUN_JOB } from '../../projections/runs/runs.projection.ts';

export type RunBacklogDeps = {
  db: Kysely<Database>;
  now: () => Date;
  /** Longest wait of a due run before intake refuses, ms; 0 never refuses. */
  maxLagMs: number;
  /** How long one sample of the lag is used, ms. */
  sampleMs: number;
};

export type RunBacklog = {
  /** Resolves when intake may take alerts in; throws DomainError `intake_backlog` (429, `params.retry_after_s`) otherwise. */
  admit: () => Promise<void>;
};

/** The age in ms of the oldest due run job that no live lease holds, 0 when none waits. */
export async function oldestWaitingRunMs(db: Kysely<Database>, now: Date): Promise<number> {
  const { rows } = await sql<{ oldest: Date | null }>`
    select min(due_at) as oldest from jobs where ${claimableJobs(RUN_JOB, now)}`.execute(db);
  const oldest = rows[0]?.oldest;
  return oldest ? Math.max(0, now.getTime() - new Date(oldest).getTime()) : 0;
}

export function createRunBacklog(deps: RunBacklogDeps): RunBacklog {
  let sample: { at: number; lagMs: number } | null = null;
  let reading: Promise<number> | null = null;

  const lag = async (): Promise<number> => {
    // The sample ages by elapsed time; the lag itself is read on the service clock.
    const at = performance.now();
    if (sample && at - sample.at < deps.sampleMs) return sample.lagMs;
    reading ??= oldestWaitingRunMs(deps.db, deps.now()).then(
      (lagMs) => {
        sample = { at, lagMs };
        reading = null;
        return lagMs;
      },
      (error: unknown) => {
        reading = null;
        throw error;
      },
    );
    return reading;
  };

  return {
    admit: async () => {
      if (deps.maxLagMs === 0) return;
      const lagMs = await lag();
      if (lagMs <= deps.maxLagMs) return;
      const limitS = deps.maxLagMs / 1000;
      throw new DomainError('intake_backlog', 429, `runs are waiting ${(lagMs / 1000).toFixed(1)} s for a worker, over the ${limitS} s limit: retry later`, {
        waiting_s: Math.round(lagMs / 100) / 10,
        limit_s: limitS,
        retry_after_s: Math.max(1, Math.ceil(limitS)),
      });
    },
  };
}
