/**
 * Schedule triggers on every engine (SPEC.md "Runbooks and runs", Triggers; "Runs,
 * steps and gates": due enabled schedule runbooks are enqueued with no bound case and
 * `next_fire_at` advances). Two tickers on one database, as two workers would run
 * them, never queue the same fire time twice; on a server they use separate pools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinActions, createActionRegistry } from '../../adapters/action-registry/registry.ts';
import { openDatabase, type OpenedDatabase } from '../../adapters/db/connect.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { createRunbookStore, type RunbookStore } from '../../adapters/runbooks/runbook-store.ts';
import { createTemplateEngine } from '../../adapters/templates/liquid.ts';
import { startScheduleTicker, type ScheduleTicker } from '../../runtime/worker/schedule-tick.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { engines } from '../support/engines.ts';
import { e2eEngines } from '../support/service-process.ts';
import { eventsOfType } from '../support/events.ts';

const scheduled = (id: string, trigger: string, extra = '', action = 'case.update', stepWith = '{ comment: tick }') => `
id: ${id}
name: ${id}
version: 1
${extra}trigger: ${trigger}
steps:
  - id: work
    action: ${action}
    with: ${stepWith}
`;

const T0 = new Date('2026-03-01T00:00:00.000Z');
const seconds = (s: number) => new Date(T0.getTime() + s * 1000);

describe.each(engines)('schedule ticks on $name', (engine) => {
  let first: OpenedDatabase & { url: string | null };
  let second: OpenedDatabase;
  let runbooks: RunbookStore;
  let clock = T0;
  const tickers: ScheduleTicker[] = [];

  beforeAll(async () => {
    first = await engine.open();
    // A server gets a second pool, as a second worker process would have; PGlite is one in-process database.
    second = first.url ? await openDatabase({ databaseUrl: first.url }) : first;
    runbooks = createRunbookStore({
      db: first.db,
      actions: createActionRegistry(builtinActions(fetch)),
      templates: createTemplateEngine(),
      dir: '/nonexistent',
      now: () => clock,
    });
    for (const opened of [first, second]) {
      tickers.push(
        startScheduleTicker({
          db: opened.db,
          store: new PostgresEventStore(opened.db),
          runnable: runbooks.runnable,
          now: () => clock,
          intervalMs: 3_600_000,
          onError: (e) => {
            throw e;
          },
        }),
      );
    }
    await runbooks.save('every-minute', scheduled('every-minute', '{ type: schedule, interval_s: 60 }'), 'test');
    await runbooks.save('at-five-past', scheduled('at-five-past', '{ type: schedule, cron: "5 * * * *" }'), 'test');
    await runbooks.save('switched-off', scheduled('switched-off', '{ type: schedule, interval_s: 60 }', 'enabled: false\n'), 'test');
    // Stored while the pipeline product was installed; without it the runbook is hidden and cannot run.
    await first.db
      .insertInto('runbooks')
      .values({
        slug: 'needs-pipeline',
        version: 1,
        name: 'p',
        description: '',
        enabled: true,
        trigger_type: 'schedule',
        yaml_text: 'stored',
        source: 'test',
        updated_at: T0,
        next_fire_at: seconds(60),
        definition: JSON.stringify({
          id: 'needs-pipeline',
          name: 'p',
          description: '',
          version: 1,
          enabled: true,
          trigger: { type: 'schedule', cron: null, interval_s: 60 },
          inputs: [],
          steps: [{ id: 'w', kind: 'action', action: 'pipeline.deploy_request' }],
        }),
      })
      .execute();
  });
  afterAll(async () => {
    for (const t of tickers) await t.stop();
    if (second !== first) await second.close();
    await first.close();
  });

  const queuedRuns = async () => {
    const rows = await eventsOfType(first.db, 'run.queued');
    return rows.map(
      (r) => r.data as unknown as { run_id: string; runbook: { id: string }; case_id: string | null; trigger_type: string; trigger: { fire_at: string } },
    );
  };
  const nextFire = async (slug: string) =>
    (await first.db.selectFrom('runbooks').select('next_fire_at').where('slug', '=', slug).executeTakeFirstOrThrow()).next_fire_at;

  it('computes next_fire_at on save', async () => {
    expect(await nextFire('every-minute')).toEqual(seconds(60));
    expect(await nextFire('at-five-past')).toEqual(seconds(300));
  });

  it('queues each due fire time exactly once across two tickers, with no bound case', async () => {
    for (let minute = 1; minute <= 6; minute++) {
      clock = seconds(minute * 60);
      // Both workers tick at the same moment, twice each.
      await Promise.all([tickers[0]?.tick(), tickers[1]?.tick(), tickers[0]?.tick(), tickers[1]?.tick()]);
    }
    const runs = await queuedRuns();
    const fired = runs.map((r) => `${r.runbook.id}@${r.trigger.fire_at}`).sort();
    expect(fired).toEqual(
      [...[1, 2, 3, 4, 5, 6].map((m) => `every-minute@${seconds(m * 60).toISOString()}`), `at-five-past@${seconds(300).toISOString()}`].sort(),
    );
    expect(new Set(runs.map((r) => r.run_id)).size).toBe(runs.length);
    for (const run of runs) expect(run).toMatchObject({ case_id: null, trigger_type: 'schedule' });
    expect(await nextFire('every-minute')).toEqual(seconds(420));
    expect(await nextFire('at-five-past')).toEqual(seconds(3900));
  });

  it('never fires a disabled runbook, and lets a hidden one pass its time unfired', async () => {
    const ids = (await queuedRuns()).map((r) => r.runbook.id);
    expect(ids).not.toContain('switched-off');
    expect(ids).not.toContain('needs-pipeline');
    expect(await nextFire('needs-pipeline')).toEqual(seconds(420));
  });

  it('after a crash between queueing and advancing, the next tick only advances', async () => {
    clock = seconds(7 * 60);
    await tickers[0]?.tick();
    const before = (await queuedRuns()).length;
    await first.db
      .updateTable('runbooks')
      .set({ next_fire_at: seconds(420) })
      .where('slug', '=', 'every-minute')
      .execute();
    await tickers[1]?.tick();
    expect((await queuedRuns()).length).toBe(before);
    expect(await nextFire('every-minute')).toEqual(seconds(480));
  });
});

describe.each(e2eEngines)('schedule runbooks in the service on $name', ({ server }) => {
  let svc: InProcessService;
  const admin = testPerson('admin@example.com', [{ team: null, role: 'admin' }]);
  beforeAll(async () => {
    svc = await startInProcessService({ server }, { extraEnv: { SVC_SCHEDULE_TICK_MS: '50' } });
  });
  afterAll(async () => svc?.close());

  it('runs a saved interval runbook with trigger_type schedule and no case, and advances next_fire_at', async () => {
    const yaml = scheduled('heartbeat', '{ type: schedule, interval_s: 1 }', '', 'http.request', '{ connection: none, method: GET }');
    const saved = await callAs(svc, admin, 'POST', '/runbooks/heartbeat', { yaml_text: yaml });
    expect(saved.status, saved.text).toBe(201);
    const firstFire = saved.body.runbook.next_fire_at;
    expect(firstFire).toEqual(expect.any(String));
    let runs: { runbook_id: string; trigger_type: string; case_id: string | null }[] = [];
    for (let i = 0; i < 200 && runs.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      runs = (await callAs(svc, admin, 'GET', '/runs')).body.items.filter((r: { runbook_id: string }) => r.runbook_id === 'heartbeat');
    }
    expect(runs[0]).toMatchObject({ runbook_id: 'heartbeat', trigger_type: 'schedule', case_id: null });
    const listed = (await callAs(svc, admin, 'GET', '/runbooks')).body.items.find((r: { id: string }) => r.id === 'heartbeat');
    expect(Date.parse(listed.next_fire_at)).toBeGreaterThan(Date.parse(firstFire));
  });

  it('refuses a schedule with both or neither of cron and interval_s, naming the field', async () => {
    const both = await callAs(svc, admin, 'POST', '/runbooks/both-kinds', {
      yaml_text: scheduled('both-kinds', '{ type: schedule, cron: "* * * * *", interval_s: 5 }'),
    });
    expect(both.status).toBe(422);
    expect(both.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'yaml_text', 'trigger'], msg: 'a schedule needs exactly one of cron or interval_s' }),
    ]);
    const badCron = await callAs(svc, admin, 'POST', '/runbooks/bad-cron', { yaml_text: scheduled('bad-cron', '{ type: schedule, cron: "every day" }') });
    expect(badCron.body.detail[0].loc).toEqual(['body', 'yaml_text', 'trigger', 'cron']);
  });
});
