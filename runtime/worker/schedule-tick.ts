/**
 * Schedule triggers (SPEC.md "Runbooks and runs", Triggers; "Runs, steps and gates":
 * a due `schedule` runbook that is enabled gets a run with no bound case and its
 * `next_fire_at` advanced). Every worker runs a ticker, every `SVC_SCHEDULE_TICK_MS`.
 *
 * Two workers never fire the same tick twice: the run of one fire time has a run id
 * derived from (runbook, fire time), and `run.queued` is appended at stream version 0,
 * so the event store lets exactly one append through; the loser reads the stream again
 * and the Run decider queues nothing on a run that exists. The winner and the loser both
 * then advance `next_fire_at` with `update ... where next_fire_at = <fire time>`, which
 * only the first of them changes. A crash between the two steps leaves the row due;
 * the next tick appends nothing (the run exists) and advances it.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { RunbookDefinition } from '../../domain/runbooks/model.ts';
import { nextFireAt } from '../../domain/runbooks/schedule.ts';
import { runDecider, type RunCommand } from '../../domain/runs/index.ts';
import { streams } from '../../domain/shared/streams.ts';
import { decideAndAppend } from '../../adapters/commands/aggregate.ts';
import type { EventStore } from '../../adapters/event-store/port.ts';
import type { Database } from '../../projections/database.ts';

export type ScheduleTickerOptions = {
  db: Kysely<Database>;
  store: EventStore;
  /** False for a runbook that may not run (it needs a product that is not installed): its time passes unfired. */
  runnable: (runbook: RunbookDefinition) => boolean;
  now: () => Date;
  /** Ms between ticks. */
  intervalMs: number;
  onError: (error: unknown) => void;
};

export type ScheduleTicker = {
  /** One pass over the due runbooks; returns the ids of the runs this call queued. */
  tick: () => Promise<string[]>;
  stop: () => Promise<void>;
};

/** The run id of `slug`'s run at `fireAt`: a UUID (version 5 layout) of their sha256. */
export function scheduledRunId(slug: string, fireAt: Date): string {
  const hex = createHash('sha256').update(`schedule\u0000${slug}\u0000${fireAt.toISOString()}`).digest('hex');
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Starts ticking at once and then every `intervalMs`; `stop()` waits for a tick in progress. */
export function startScheduleTicker(options: ScheduleTickerOptions): ScheduleTicker {
  const { db, store } = options;

  const fire = async (slug: string, runbook: RunbookDefinition, fireAt: Date, now: Date): Promise<string | null> => {
    let queuedId: string | null = null;
    if (options.runnable(runbook)) {
      const runId = scheduledRunId(slug, fireAt);
      const schedule = runbook.trigger.type === 'schedule' ? runbook.trigger : null;
      const decided = await decideAndAppend(
        store,
        streams.run(runId),
        runDecider,
        (): RunCommand => ({
          type: 'queue_run',
          runbook,
          runId,
          caseId: null,
          triggerType: 'schedule',
          trigger: { type: 'schedule', fire_at: fireAt.toISOString(), cron: schedule?.cron ?? null, interval_s: schedule?.interval_s ?? null },
          inputs: {},
          dryRun: false,
          requestedBy: null,
          now: now.toISOString(),
        }),
        { actor: { id: null, email: `schedule:${slug}`, kind: 'system' } },
      );
      // No event: the run of this fire time exists, another worker (or a crashed tick) queued it.
      if (decided.events.length > 0) queuedId = runId;
    }
    await db
      .updateTable('runbooks')
      .set({ next_fire_at: nextFireAt(runbook.trigger, now) })
      .where('slug', '=', slug)
      .where('next_fire_at', '=', fireAt)
      .execute();
    return queuedId;
  };

  const tick = async (): Promise<string[]> => {
    const now = options.now();
    const due = await db
      .selectFrom('runbooks')
      .select(['slug', 'definition', 'next_fire_at'])
      .where('trigger_type', '=', 'schedule')
      .where('enabled', '=', true)
      .where('next_fire_at', '<=', now)
      .orderBy('next_fire_at')
      .execute();
    const queued: string[] = [];
    for (const row of due) {
      if (row.next_fire_at === null) continue;
      const runbook = { ...(row.definition as unknown as RunbookDefinition), enabled: true };
      const runId = await fire(row.slug, runbook, new Date(row.next_fire_at), now);
      if (runId !== null) queued.push(runId);
    }
    return queued;
  };

  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(tick).catch(options.onError);
  }, options.intervalMs);
  running = tick().catch(options.onError);
  return {
    tick: () => {
      const next = running.then(tick);
      running = next.catch(options.onError);
      return next;
    },
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
