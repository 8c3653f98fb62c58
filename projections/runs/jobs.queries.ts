/**
 * The `jobs` table as its readers see it (the runs and effects projections write it):
 * which jobs a worker may claim. The claim (runtime/worker/due-jobs.ts) and intake's
 * back-pressure (adapters/commands/run-backlog.ts) use one condition, so "waiting for a
 * worker" means exactly what a worker would take next.
 */
import { sql, type RawBuilder } from 'kysely';

/** SQL condition on `jobs`: of `kind`, due by `now` (the service clock its `due_at` was computed with), and held by no live lease. */
export const claimableJobs = (kind: string, now: Date): RawBuilder<unknown> =>
  sql`kind = ${kind} and due_at <= ${now} and (lease_until is null or lease_until < now())`;
