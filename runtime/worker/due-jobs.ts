/**
 * Claiming due rows of the `jobs` table (run jobs, effect expiry jobs): the oldest row of
 * `kind` due by the service clock `now` (the clock its `due_at` was computed with) whose
 * lease is free or expired, taken with `FOR UPDATE SKIP LOCKED` so concurrent workers never
 * claim one row twice, and leased to `owner` for `leaseMs` on the database's clock, which
 * every process shares.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../projections/database.ts';
import { claimableJobs } from '../../projections/runs/jobs.queries.ts';

export type DueJobClaim = { kind: string; owner: string; leaseMs: number; now: Date };

/** The keys of up to `limit` claimed jobs, oldest due first in one statement; empty when none of `kind` is due. */
export async function claimDueJobs(db: Kysely<Database>, claim: DueJobClaim, limit: number): Promise<string[]> {
  const { rows } = await sql<{ key: string; due_at: Date; id: string }>`
    update jobs set lease_owner = ${claim.owner}, lease_until = now() + make_interval(secs => ${claim.leaseMs / 1000})
    where id in (
      select id from jobs
      where ${claimableJobs(claim.kind, claim.now)}
      order by due_at, id
      limit ${limit}
      for update skip locked
    )
    returning key, due_at, id`.execute(db);
  // RETURNING follows no order: the oldest due runs start first.
  return rows.sort((a, b) => new Date(a.due_at).getTime() - new Date(b.due_at).getTime() || Number(a.id) - Number(b.id)).map((r) => r.key);
}

/** The claimed job's key, or null when none of `kind` is due. */
export async function claimDueJob(db: Kysely<Database>, claim: DueJobClaim): Promise<string | null> {
  return (await claimDueJobs(db, claim, 1))[0] ?? null;
}
