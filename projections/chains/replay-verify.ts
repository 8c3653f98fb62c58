/**
 * Verification by replay (issue "Audit": "an auditor can also verify by replaying the
 * event streams"; docs/operations.md "Audit log"). The chained tables are read models:
 * this recomputes both chains from the events themselves, in global order, with the one
 * event-to-row mapping the projector uses (domain/audit/chain-rows.ts), and compares
 * every recomputed row and hash with the stored one. A row edited, inserted, removed or
 * re-hashed in a table shows as the first index where the two disagree, even when the
 * table's own chain was recomputed to look intact.
 */
import type { Kysely } from 'kysely';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';
import { chainRowOf, type ChainName } from '../../domain/audit/chain-rows.ts';
import { GENESIS_HASH, chainHashOfText } from '../../domain/shared/hash-chain.ts';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import type { Database } from '../database.ts';
import { chainRows, nativeSha256Hex, type StoredChainRow } from './chain-table.ts';

/** Per chain: rows recomputed from events, and the first chain index where the table differs (null: none). */
export type ReplayVerdict = { valid: boolean; replayed: number; first_mismatch_index: number | null };

/** Reads events after a global position in order (the event store's `readAll`). */
export type ReadAll = (afterPosition: number, limit: number) => Promise<RecordedEvent[]>;

/**
 * Replays every event up to `upTo` (the projector's checkpoint: later events are not
 * chained yet) and compares both chains with their tables.
 */
export async function replayVerifyChains(db: Kysely<Database>, readAll: ReadAll, upTo: number, pageSize = 1000): Promise<Record<ChainName, ReplayVerdict>> {
  const checks = { action_log: createReplayCheck(chainRows(db, 'action_log', pageSize)), audit_log: createReplayCheck(chainRows(db, 'audit_log', pageSize)) };
  let after = 0;
  while (after < upTo) {
    const events = await readAll(after, pageSize);
    if (events.length === 0) break;
    for (const event of events) {
      if (event.globalPosition > upTo) break;
      const entry = chainRowOf(event);
      if (entry !== null) await checks[entry.chain].next(event.globalPosition, entry.row);
    }
    after = events[events.length - 1]?.globalPosition ?? after;
  }
  return { action_log: await checks.action_log.finish(), audit_log: await checks.audit_log.finish() };
}

function createReplayCheck(stored: AsyncGenerator<StoredChainRow>) {
  let prevHash = GENESIS_HASH;
  let replayed = 0;
  let mismatch: number | null = null;
  return {
    /** The next recomputed row of this chain, from the event at `position`. */
    async next(position: number, row: Record<string, unknown>): Promise<void> {
      const index = replayed;
      replayed += 1;
      const text = canonicalJson(row);
      const hash = chainHashOfText(prevHash, text, nativeSha256Hex);
      const actual = (await stored.next()).value as StoredChainRow | undefined;
      const same =
        actual !== undefined &&
        actual.chain_index === index &&
        actual.event_position === position &&
        actual.prev_hash === prevHash &&
        actual.hash === hash &&
        actual.text === text;
      if (!same && mismatch === null) mismatch = index;
      prevHash = hash;
    },
    /** The verdict; a table holding more rows than the events produce mismatches at the first extra one. */
    async finish(): Promise<ReplayVerdict> {
      if (mismatch === null && !(await stored.next()).done) mismatch = replayed;
      await stored.return(undefined);
      return { valid: mismatch === null, replayed, first_mismatch_index: mismatch };
    },
  };
}
