/**
 * The projector (docs/architecture.md "Event sourcing"): applies events in global order to every
 * read model, with the checkpoint stored in the same transaction, so a restart
 * resumes where it stopped and never applies an event twice.
 *
 * Events arrive only through the event store port, as a catch-up subscription from the
 * stored checkpoint (projections/subscription.ts), so another store needs no other
 * projector. The checkpoint row is locked (`FOR UPDATE`) while a batch is applied, and a
 * batch read before another process moved the checkpoint is cut to what that process
 * had not applied, so several processes on one database project each event once.
 * `waitFor(position)` gives read-your-writes: a command answers only after its events
 * are projected.
 *
 * The projections of a batch run concurrently, each once those it names in `after` have
 * finished, and the transaction is pipelined on a server (adapters/db/pipelined.ts): the
 * batch costs about as many round trips as its longest chain of dependent statements
 * rather than one per statement. On PGlite the statements interleave in the order issued.
 */
import { sql, type Kysely } from 'kysely';
import type { RecordedEvent } from '../domain/shared/messages.ts';
import type { Database } from './database.ts';
import { settleAll } from './settle-all.ts';
import { createSubscription, type EventFeed } from './subscription.ts';
export type Projection = {
  name: string;
  /**
   * Applies a batch of events, in global order, inside the projector's transaction.
   * Must ignore event types it does not handle. Batches let a projection write one
   * multi-row statement per table instead of one statement per event.
   */
  apply: (trx: Kysely<Database>, events: RecordedEvent[]) => Promise<void>;
  /**
   * The projections whose writes of the same batch this one reads or must follow (a purge
   * after the inserts it removes); where the projector has them, they must be listed before
   * this one. Statements of projections that do not wait for each other may reach the
   * server in any order.
   */
  after?: readonly Projection[];
};

/** Runs `body` in one transaction; its concurrent statements are pipelined where the engine can (adapters/db/pipelined.ts). */
export type TransactionRunner = <T>(body: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;

/** Transactions as Kysely runs them, each statement after the answer to the one before (PGlite's, and the projector's default). */
export const plainTransactions =
  (db: Kysely<Database>): TransactionRunner =>
  (body) =>
    db.transaction().execute(body);

export type Projector = {
  start: () => void;
  stop: () => Promise<void>;
  /** Wakes the loop: new events were appended in this process. */
  wake: () => void;
  /** Resolves once everything up to `position` is projected; rejects after `timeoutMs`. */
  waitFor: (position: number, timeoutMs?: number) => Promise<void>;
  /** Projects everything committed so far, then resolves (used by tests and `svc migrate`). */
  catchUp: () => Promise<void>;
  position: () => number;
};

export type ProjectorOptions = {
  batchSize?: number;
  pollIntervalMs?: number;
  onError?: (error: unknown) => void;
  checkpointName?: string;
  /** Called with each committed batch (the worker wakes when it projected new jobs). */
  onAdvance?: (applied: RecordedEvent[]) => void;
  /** How a batch's transaction runs (default: a Kysely transaction on `db`); `OpenedDatabase.pipelinedTransaction` on a server. */
  transaction?: TransactionRunner;
};

/** Refuses a projection listed before one it must run after. */
function checkOrder(projections: readonly Projection[]): void {
  projections.forEach((p, i) => {
    for (const before of p.after ?? []) {
      if (projections.indexOf(before) > i) throw new Error(`projection ${p.name} runs after ${before.name}, which is listed after it`);
    }
  });
}

/**
 * Applies `events` with every projection, each once its `after` have finished. Waits for
 * all of them even when one fails (settle-all.ts), so no statement is still to be issued
 * when the transaction ends.
 */
async function applyAll(trx: Kysely<Database>, projections: readonly Projection[], events: RecordedEvent[]): Promise<void> {
  const running = new Map<Projection, Promise<void>>();
  for (const p of projections) {
    const before = (p.after ?? []).map((q) => running.get(q));
    running.set(
      p,
      Promise.all(before).then(() => p.apply(trx, events)),
    );
  }
  await settleAll([...running.values()]);
}

export function createProjector(db: Kysely<Database>, feed: EventFeed, projections: Projection[], options: ProjectorOptions = {}): Projector {
  checkOrder(projections);
  const name = options.checkpointName ?? 'main';
  const transaction = options.transaction ?? plainTransactions(db);
  const waiters = new Set<{ position: number; resolve: () => void }>();

  const release = (position: number) => {
    for (const w of waiters) {
      if (w.position <= position) {
        waiters.delete(w);
        w.resolve();
      }
    }
  };

  let checkpointRow: Promise<unknown> | null = null;
  const ensureCheckpointRow = () => {
    checkpointRow ??= db
      .insertInto('projection_checkpoints')
      .values({ name, position: 0, updated_at: sql`now()` })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute()
      .catch((error: unknown) => {
        checkpointRow = null;
        throw error;
      });
    return checkpointRow;
  };

  /** Applies the part of `batch` past the stored checkpoint; answers the checkpoint now stored. */
  const apply = async (batch: RecordedEvent[]): Promise<number> => {
    await ensureCheckpointRow();
    const batchEnd = batch[batch.length - 1]?.globalPosition ?? 0;
    const applied = await transaction(async (trx) => {
      // One round trip locks the checkpoint, reads where it stood and moves it to the batch's
      // end (never back): the row lock is what a second process waits on, and should this
      // batch fail, the rollback undoes the move with the read models. `held` is the row as
      // locked, so the position it answers is the one before this update. Read models are
      // derived: a batch lost in a server crash is projected again from the checkpoint
      // committed with it, so this commit need not wait for the WAL flush.
      const { rows } = await sql<{ held: string | number }>`
        update projection_checkpoints as c
        set position = greatest(c.position, ${batchEnd}), updated_at = now()
        from (select position from projection_checkpoints where name = ${name} for update) as held
        where c.name = ${name}
        returning held.position as held, set_config('synchronous_commit', 'off', true) as synchronous_commit`.execute(trx);
      const row = rows[0];
      if (!row) throw new Error(`projection checkpoint ${name} is missing`);
      const from = Number(row.held);
      const events = batch.filter((e) => e.globalPosition > from);
      const last = events[events.length - 1];
      if (!last) return { to: from, events };
      await applyAll(trx, projections, events);
      return { to: last.globalPosition, events };
    });
    release(applied.to);
    if (applied.events.length > 0) options.onAdvance?.(applied.events);
    return applied.to;
  };

  const subscription = createSubscription(feed, {
    fromPosition: 0,
    handle: apply,
    batchSize: options.batchSize ?? 500,
    pollIntervalMs: options.pollIntervalMs ?? 250,
    onError: options.onError ?? (() => {}),
  });

  return {
    start: subscription.start,
    stop: subscription.stop,
    wake: subscription.wake,
    waitFor: (target, timeoutMs = 10_000) => {
      if (target <= subscription.position()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          position: target,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`projections did not reach position ${target} within ${timeoutMs} ms`));
        }, timeoutMs);
        // No wake-up here: this process's appends already woke the loop, and other
        // processes' appends are found by the poll.
        waiters.add(waiter);
      });
    },
    catchUp: async () => {
      while (await subscription.poll());
    },
    position: subscription.position,
  };
}
