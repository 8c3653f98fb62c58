/**
 * What alert intake remembers between alerts, so the hot path reads no stream:
 * each recent alert stream (for de-duplication), each correlation binding, and the
 * state of each bound case, all with the stream version they reflect.
 *
 * The cache is only a guess: every append still carries the expected versions, so
 * a stale entry (another process, or a case command in this one, moved the stream)
 * surfaces as a StreamVersionConflict; the intake forgets the entries of a failed
 * append and retries reading every stream from the store. Entries are written when an
 * append is queued, before it commits, so alerts of one key pipeline into one batch. Bounded LRU, `maxEntries` per kind.
 */
import { LRUCache } from 'lru-cache';
import type { AlertState } from '../../domain/alerts/state.ts';
import type { CaseState } from '../../domain/cases/state.ts';

/**
 * An alert stream that exists: a repeat of it is decided against this state. `received`
 * settles once the alert's receipt is committed: at once for a stream read from the
 * store, else when the queued append that writes it does. The alert stream's id is a
 * digest every process computes alike, so its version alone cannot tell this process's
 * guessed receipt from another process's receipt of the same alert: a repeat decided on
 * a guess is appended only after the guess committed (a failed one fails the repeat too).
 */
export type KnownAlert = { state: Extract<AlertState, { exists: true }>; version: number; received: Promise<unknown> };
export type KnownBinding = { caseId: string | null; version: number };
export type KnownCase = { state: CaseState; version: number };

export type IntakeCache = {
  alerts: LRUCache<string, KnownAlert>;
  bindings: LRUCache<string, KnownBinding>;
  cases: LRUCache<string, KnownCase>;
  /** Drops what is known of these streams (their append failed). */
  forget: (streamIds: Iterable<string>) => void;
};

export function createIntakeCache(maxEntries: number): IntakeCache {
  const alerts = new LRUCache<string, KnownAlert>({ max: maxEntries });
  const bindings = new LRUCache<string, KnownBinding>({ max: maxEntries });
  const cases = new LRUCache<string, KnownCase>({ max: maxEntries });
  return {
    alerts,
    bindings,
    cases,
    forget: (streamIds) => {
      for (const id of streamIds) {
        alerts.delete(id);
        bindings.delete(id);
        cases.delete(id);
      }
    },
  };
}
