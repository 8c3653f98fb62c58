/**
 * The retention sweeper (SPEC.md `GET /retention`; docs/operations.md "Retention"). Every
 * `sweep_interval_hours` one worker takes the sweep (retention.queries.ts `claimSweep`)
 * and purges up to `batch_limit` closed cases past the window, oldest first, then the
 * attachment files nothing refers to any more. A sweep that filled its batch sets
 * `backlog` and is due again at once. A failure is recorded by error class and retried
 * after the interval.
 */
import type { Kysely } from 'kysely';
import type { FileStore } from '../../adapters/attachments/port.ts';
import type { RetentionCommands } from '../../adapters/commands/retention.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { retentionCutoff, type RetentionPolicy } from '../../domain/retention/policy.ts';
import type { Database } from '../../projections/database.ts';
import type { Clock } from '../../adapters/shared/clock.ts';
import {
  CASES_RESOURCE,
  claimSweep,
  failSweep,
  finishSweep,
  purgeCandidates,
  retentionState,
  unreferencedAttachmentKeys,
} from '../../projections/retention/retention.queries.ts';

/** A file written this recently is never removed: an upload of the same bytes may be on its way in. */
const FILE_GRACE_MS = 3_600_000;
/** Longest sleep between looks at the schedule, so a sweep another process rescheduled is noticed. */
const MAX_SLEEP_MS = 3_600_000;

export type RetentionSweeperOptions = {
  db: Kysely<Database>;
  policy: RetentionPolicy;
  closedStatuses: string[];
  commands: RetentionCommands;
  files: Pick<FileStore, 'remove'>;
  /** Resolves once the read models reached `position` (the projector's `waitFor`). */
  waitFor: (position: number) => Promise<void>;
  now: () => Date;
  /** How long a taken sweep is held before another worker may take it, ms. */
  holdMs: number;
};

/** What one sweep did; null when none was due or sweeping is off. */
export type SweepOutcome = { deleted: number; skipped: number; backlog: boolean; filesRemoved: number };

/** The error class stored as `last_error`: a code, never a message (it could carry case data). */
export function sweepErrorClass(error: unknown): string {
  if (error instanceof DomainError) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `database_error:${code}`;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `file_store_error:${code}`;
  return 'internal_error';
}

/** One sweep if due: purges, records the state, and rethrows a failure after recording it. */
export function createRetentionSweeper(options: RetentionSweeperOptions): { sweep: () => Promise<SweepOutcome | null> } {
  const { db, policy } = options;
  const intervalMs = policy.sweep_interval_hours * 3_600_000;
  return {
    sweep: async () => {
      const now = options.now();
      const cutoff = retentionCutoff(policy, now);
      if (cutoff === null || policy.retention_days === null) return null;
      if (!(await claimSweep(db, CASES_RESOURCE, now, new Date(now.getTime() + options.holdMs)))) return null;
      let deleted = 0;
      try {
        const candidates = await purgeCandidates(db, cutoff, options.closedStatuses, policy.batch_limit);
        let last = 0;
        const keys = new Set<string>();
        for (const candidate of candidates) {
          const purged = await options.commands.purgeCase(candidate, policy.retention_days);
          if (purged === null) continue;
          deleted += 1;
          last = purged.position;
          for (const k of purged.attachmentKeys) keys.add(k);
        }
        let filesRemoved = 0;
        if (last > 0) {
          await options.waitFor(last);
          const olderThan = new Date(options.now().getTime() - FILE_GRACE_MS);
          for (const key of await unreferencedAttachmentKeys(db, [...keys])) {
            if (await options.files.remove(key, olderThan)) filesRemoved += 1;
          }
        }
        // A batch of cases that all moved meanwhile is no backlog: retrying at once would spin until the projector caught up.
        const backlog = candidates.length === policy.batch_limit && deleted > 0;
        await finishSweep(db, CASES_RESOURCE, now, deleted, backlog, backlog ? now : new Date(now.getTime() + intervalMs));
        return { deleted, skipped: candidates.length - deleted, backlog, filesRemoved };
      } catch (error) {
        await failSweep(db, CASES_RESOURCE, now, sweepErrorClass(error), deleted, new Date(now.getTime() + intervalMs));
        throw error;
      }
    },
  };
}

/**
 * Sweeps at once and then whenever the stored schedule says a sweep is due; `stop()`
 * waits for a sweep in progress. Not started when the policy cannot sweep.
 */
export function startRetentionLoop(
  sweeper: { sweep: () => Promise<SweepOutcome | null> },
  db: Kysely<Database>,
  now: Clock,
  onError: (error: unknown) => void,
) {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass();
    }, ms);
  };
  const pass = async () => {
    let delay = MAX_SLEEP_MS;
    try {
      await sweeper.sweep();
      const state = await retentionState(db, CASES_RESOURCE);
      if (state) delay = Math.min(MAX_SLEEP_MS, Math.max(0, new Date(state.next_sweep_at).getTime() - now().getTime()));
    } catch (error) {
      onError(error);
    }
    schedule(delay);
  };
  running = pass();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
