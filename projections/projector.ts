/**
 * The projector (DESIGN.md "The shape"): applies events in global order to every
 * read model, with the checkpoint stored in the same transaction, so a restart
 * resumes where it stopped and never applies an event twice.
 *
 * The checkpoint row is locked (`FOR UPDATE`) for the batch, so several processes
 * on one database project each event once. `waitFor(position)` gives
 * read-your-writes: a command answers only after its events are projected.
 */
import type { Kysely } from 'kysely';
import { startCatchUpLoop } from './catch-up.ts';
import type { RecordedEvent } from '../domain/shared/messages.ts';
import type { Database } from './database.ts';
import { toRecordedEvent } from './event-row.ts';

export type Projection = {
  name: string;
  /** Applies one event inside the projector's transaction; must ignore events it does not handle. */
  apply: (trx: Kysely<Database>, event: RecordedEvent) => Promise<void>;
};

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
  /** Called after a batch is committed (the worker wakes to claim newly projected jobs). */
  onAdvance?: () => void;
};

export function createProjector(db: Kysely<Database>, projections: Projection[], options: ProjectorOptions = {}): Projector {
  const name = options.checkpointName ?? 'main';
  const batchSize = options.batchSize ?? 500;
  let position = 0;
  const waiters = new Set<{ position: number; resolve: () => void }>();
  let loop: ReturnType<typeof startCatchUpLoop> | null = null;

  const release = () => {
    for (const w of waiters) {
      if (w.position <= position) {
        waiters.delete(w);
        w.resolve();
      }
    }
  };

  /** Projects one batch; resolves true when it applied any event. */
  const step = async (): Promise<boolean> => {
    const applied = await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('projection_checkpoints')
        .values({ name, position: 0, updated_at: new Date() })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const checkpoint = await trx
        .selectFrom('projection_checkpoints')
        .select('position')
        .where('name', '=', name)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const from = Number(checkpoint.position);
      const rows = await trx
        .selectFrom('events')
        .selectAll()
        .where('global_position', '>', from)
        .orderBy('global_position')
        .limit(batchSize)
        .execute();
      if (rows.length === 0) return { from, to: from };
      for (const row of rows) {
        const event = toRecordedEvent(row);
        for (const projection of projections) await projection.apply(trx, event);
      }
      const to = Number(rows[rows.length - 1]?.global_position ?? from);
      await trx
        .updateTable('projection_checkpoints')
        .set({ position: to, updated_at: new Date() })
        .where('name', '=', name)
        .execute();
      return { from, to };
    });
    position = Math.max(position, applied.to);
    release();
    if (applied.to > applied.from) options.onAdvance?.();
    return applied.to > applied.from;
  };

  const readCheckpoint = async () => {
    const row = await db.selectFrom('projection_checkpoints').select('position').where('name', '=', name).executeTakeFirst();
    position = Math.max(position, Number(row?.position ?? 0));
    release();
  };

  return {
    start: () => {
      loop ??= startCatchUpLoop({
        step: async () => {
          const progressed = await step();
          if (!progressed && waiters.size > 0) await readCheckpoint();
          return progressed;
        },
        pollIntervalMs: options.pollIntervalMs ?? 250,
        onError: options.onError ?? (() => {}),
      });
    },
    stop: async () => {
      await loop?.stop();
      loop = null;
    },
    wake: () => loop?.wake(),
    waitFor: (target, timeoutMs = 10_000) => {
      if (target <= position) return Promise.resolve();
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
        waiters.add(waiter);
        loop?.wake();
      });
    },
    catchUp: async () => {
      while (await step());
    },
    position: () => position,
  };
}
