/**
 * TTL expiry of containment effects (SPEC.md "Managed containment effects": "TTL expiry
 * reverses through the bound unblock action from a due-time row any worker can claim").
 * Claims one due `effect_expiry` job (projections/effects/effects.projection.ts) at a time
 * (due-jobs.ts: by the service clock, with a lease) and reverses its effect (adapters/effects/reversal.ts). The projector then
 * deletes the job (reversed) or moves it to the retry time (failed) and frees it; a worker
 * that dies mid-reversal leaves the lease to expire and another worker claims the job.
 */
import { sql, type Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { EffectReverser } from '../../adapters/effects/reversal.ts';
import { startCatchUpLoop, type CatchUpLoop } from '../../projections/catch-up.ts';
import type { Database } from '../../projections/database.ts';
import { EFFECT_EXPIRY_JOB } from '../../projections/effects/effects.projection.ts';
import { claimDueJob } from './due-jobs.ts';

export type EffectExpiryOptions = {
  db: Kysely<Database>;
  reverser: EffectReverser;
  now: () => Date;
  leaseMs: number;
  pollIntervalMs: number;
  onError: (error: unknown) => void;
};

/** Starts the loop; `stop` waits for a reversal in flight. */
export function startEffectExpiry(options: EffectExpiryOptions): CatchUpLoop {
  const owner = `effects-${randomUUID()}`;
  const claim = () => claimDueJob(options.db, { kind: EFFECT_EXPIRY_JOB, owner, leaseMs: options.leaseMs, now: options.now() });
  return startCatchUpLoop({
    pollIntervalMs: options.pollIntervalMs,
    onError: options.onError,
    step: async () => {
      const effectId = await claim();
      if (effectId === null) return false;
      const { outcome } = await options.reverser.reverse(effectId);
      // Nothing to reverse (a job left behind): drop it, or it would be claimed forever.
      if (outcome === 'not_due')
        await sql`delete from jobs where kind = ${EFFECT_EXPIRY_JOB} and key = ${effectId} and lease_owner = ${owner}`.execute(options.db);
      return true;
    },
  });
}
