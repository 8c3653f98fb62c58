/**
 * Claiming due jobs (runtime/worker/due-jobs.ts) on every engine: one statement claims up
 * to `limit` due jobs of a kind, oldest due first, leaves jobs not yet due by the service
 * clock and jobs another owner holds, and two claimers never take one job twice.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedDatabase } from '../../adapters/db/connect.ts';
import { claimDueJobs } from '../../runtime/worker/due-jobs.ts';
import { engines } from '../support/engines.ts';

describe.each(engines)('claiming due jobs on $name', (engine) => {
  let opened: OpenedDatabase;
  beforeAll(async () => {
    opened = await engine.open();
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('claims the oldest due jobs up to the limit, then the rest, never one twice, and none not yet due', async () => {
    const { db } = opened;
    const now = new Date('2026-11-24T12:00:00.000Z');
    const dueAt = (key: string, offsetS: number) => ({ kind: 'run', key, due_at: new Date(now.getTime() + offsetS * 1000).toISOString() });
    await db
      .insertInto('jobs')
      .values(
        [dueAt('d', -10), dueAt('a', -40), dueAt('later', 60), dueAt('c', -20), dueAt('b', -30)].map((j) => ({ ...j, lease_owner: null, lease_until: null })),
      )
      .execute();
    await db
      .insertInto('jobs')
      .values({ kind: 'effect_expiry', key: 'other-kind', due_at: dueAt('x', -50).due_at, lease_owner: null, lease_until: null })
      .execute();

    const claim = (owner: string, limit: number) => claimDueJobs(db, { kind: 'run', owner, leaseMs: 30_000, now }, limit);
    expect(await claim('worker-1', 3)).toEqual(['a', 'b', 'c']);
    expect(await claim('worker-2', 3)).toEqual(['d']);
    expect(await claim('worker-2', 3)).toEqual([]);
    const { rows } = await sql<{ key: string; lease_owner: string | null }>`select key, lease_owner from jobs order by key`.execute(db);
    expect(rows).toEqual([
      { key: 'a', lease_owner: 'worker-1' },
      { key: 'b', lease_owner: 'worker-1' },
      { key: 'c', lease_owner: 'worker-1' },
      { key: 'd', lease_owner: 'worker-2' },
      { key: 'later', lease_owner: null },
      { key: 'other-kind', lease_owner: null },
    ]);
  });
});
