/**
 * Single-use token ids for request-bound assertions (CONTRACTS.md section 2,
 * "a `jti` is accepted once"), kept in the `used_token_ids` table so every API
 * process of a scale-out shares them.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../projections/database.ts';
import type { JtiStore } from './verifier.ts';
import { systemClock } from '../shared/clock.ts';

export type JtiStoreOptions = {
  now?: () => Date;
  /** Least time between two deletions of expired rows, in milliseconds (default 60 000). */
  sweepIntervalMs?: number;
};

/**
 * A JtiStore on `db`: `claim(jti, expiresAt)` inserts the id and resolves true,
 * or resolves false when the id is already stored (a replay). The primary key
 * decides races between processes. At most once per `sweepIntervalMs` a claim
 * also deletes rows whose `expiresAt` has passed: those tokens are refused as
 * expired anyway, so their ids need not be kept.
 */
export function createJtiStore(db: Kysely<Database>, options: JtiStoreOptions = {}): JtiStore {
  const now = options.now ?? systemClock;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  let lastSweep = 0;

  return {
    claim: async (jti, expiresAt) => {
      const at = now();
      if (at.getTime() - lastSweep >= sweepIntervalMs) {
        lastSweep = at.getTime();
        await db.deleteFrom('used_token_ids').where('expires_at', '<', at).execute();
      }
      const inserted = await db
        .insertInto('used_token_ids')
        .values({ jti, expires_at: expiresAt })
        .onConflict((oc) => oc.column('jti').doNothing())
        .returning('jti')
        .executeTakeFirst();
      return inserted !== undefined;
    },
  };
}
