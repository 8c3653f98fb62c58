/**
 * Alert intake against a real store on every engine: de-duplication and correlation
 * stay right when the intake's cache is stale (a second API process, a case command
 * in this one) and under concurrent alerts of one key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseConfig } from '../../adapters/commands/case-config.ts';
import { createCaseCommands } from '../../adapters/commands/cases.ts';
import { createAlertIntake, withObservables, type AlertIntake } from '../../adapters/commands/intake.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { defaultPermissionMatrix } from '../../adapters/identity/permissions.ts';
import type { IncomingAlert } from '../../domain/alerts/intake.ts';
import { streams } from '../../domain/shared/streams.ts';
import { createAuditLog } from '../../adapters/commands/audit.ts';
import { engines, type TestEngine } from '../support/engines.ts';
import { eventsOfType } from '../support/events.ts';

const config: CaseConfig = {
  severities: ['low', 'medium', 'high', 'critical'],
  statuses: ['new', 'in_progress', 'resolved', 'closed'],
  closedStatuses: new Set(['resolved', 'closed']),
  initialStatus: 'new',
  mergedStatus: 'closed',
  keyPrefix: 'SVC',
  correlationWindowMs: 24 * 3600 * 1000,
};

const alert = (externalId: string, ruleId: string): IncomingAlert =>
  withObservables({
    source: 'detector',
    external_id: externalId,
    rule_id: ruleId,
    title: `Rule ${ruleId}`,
    severity: 'medium',
    detected_at: null,
    url: null,
    correlation_root: null,
    suite_correlation_id: null,
    team: null,
    matched_log: {},
    observables: [],
    payload: {},
  });

describe.each(engines)('alert intake on $name', (engine: TestEngine) => {
  const ctx = {} as { opened: Awaited<ReturnType<TestEngine['open']>>; store: PostgresEventStore; newIntake: () => AlertIntake };
  beforeAll(async () => {
    ctx.opened = await engine.open();
    ctx.store = new PostgresEventStore(ctx.opened.db);
    ctx.newIntake = () =>
      createAlertIntake({ store: ctx.store, db: ctx.opened.db, config, alertRunbooks: () => [], ids: randomUUID, now: () => new Date(), cacheEntries: 100 });
  });
  afterAll(async () => ctx.opened.close());

  const alertsOfCase = async (caseId: string) =>
    (await ctx.store.readStream(streams.case(caseId))).filter((e) => e.type === 'case.alert_appended').map((e) => e.data.alert_id);

  it('keeps one case per key and de-duplicates when two processes take alerts of that key in turn', async () => {
    const [a, b] = [ctx.newIntake(), ctx.newIntake()];
    const first = await a.ingest(alert('two-1', 'two'));
    const second = await b.ingest(alert('two-2', 'two'));
    const third = await a.ingest(alert('two-3', 'two'));
    const repeatOnOther = await b.ingest(alert('two-1', 'two'));
    const repeatAgain = await a.ingest(alert('two-1', 'two'));

    expect(first.result).toMatchObject({ deduplicated: false, correlated: false });
    expect(second.result).toMatchObject({ case_id: first.result.case_id, correlated: true });
    expect(third.result).toMatchObject({ case_id: first.result.case_id, correlated: true });
    expect(repeatOnOther.result).toMatchObject({
      deduplicated: true,
      alert_id: first.result.alert_id,
      case_id: first.result.case_id,
      case_key: first.result.case_key,
    });
    expect(repeatAgain.result).toMatchObject({ deduplicated: true, alert_id: first.result.alert_id });
    expect(await alertsOfCase(first.result.case_id)).toHaveLength(3);
    const receivedRows = await eventsOfType(ctx.opened.db, 'alert.received');
    const streamId = receivedRows.find((r) => r.data.alert_id === first.result.alert_id)?.streamId ?? '';
    expect((await ctx.store.readStream(streamId)).map((e) => e.type)).toEqual(['alert.received', 'alert.linked', 'alert.repeated', 'alert.repeated']);
  });

  it('opens a new case when an analyst closed the cached one in the meantime', async () => {
    const intake = ctx.newIntake();
    const cases = createCaseCommands({
      store: ctx.store,
      db: ctx.opened.db,
      config,
      ids: randomUUID,
      now: () => new Date(),
      permissions: defaultPermissionMatrix,
      audit: createAuditLog({ store: ctx.store, ids: randomUUID, now: () => new Date() }),
      fieldRules: async () => ({ definitions: [], closedStatuses: [] }),
    });
    const first = await intake.ingest(alert('closed-1', 'closed'));
    await cases.changeStatus(first.result.case_id, 'closed', 'false positive', { userId: null, email: 'ana@example.com' });
    const next = await intake.ingest(alert('closed-2', 'closed'));
    expect(next.result.case_id).not.toBe(first.result.case_id);
    expect(next.result).toMatchObject({ deduplicated: false, correlated: false });
    expect(await alertsOfCase(first.result.case_id)).toHaveLength(1);
  });

  it('appends to a case an analyst changed in the meantime without losing an alert', async () => {
    const intake = ctx.newIntake();
    const cases = createCaseCommands({
      store: ctx.store,
      db: ctx.opened.db,
      config,
      ids: randomUUID,
      now: () => new Date(),
      permissions: defaultPermissionMatrix,
      audit: createAuditLog({ store: ctx.store, ids: randomUUID, now: () => new Date() }),
      fieldRules: async () => ({ definitions: [], closedStatuses: [] }),
    });
    const first = await intake.ingest(alert('busy-1', 'busy'));
    await cases.comment(
      first.result.case_id,
      'looking',
      { userId: null, email: 'ana@example.com' },
      { team: null, private: false, owner_id: null, created_by_id: null },
    );
    const next = await intake.ingest(alert('busy-2', 'busy'));
    expect(next.result).toMatchObject({ case_id: first.result.case_id, correlated: true });
    expect(await alertsOfCase(first.result.case_id)).toHaveLength(2);
  });

  it('answers a repeat decided on a guess that lost to another process with the alert that process stored', async () => {
    const [a, b] = [ctx.newIntake(), ctx.newIntake()];
    const stored = await b.ingest(alert('lost-guess', 'lost-guess'));
    // `a` has never seen the alert: its first ingest guesses a new one and its second repeats that
    // guess, whose receipt then loses to the one `b` stored at the same stream version.
    const [first, second] = await Promise.all([a.ingest(alert('lost-guess', 'lost-guess')), a.ingest(alert('lost-guess', 'lost-guess'))]);
    for (const o of [first, second]) {
      expect(o.result).toMatchObject({
        deduplicated: true,
        alert_id: stored.result.alert_id,
        case_id: stored.result.case_id,
        case_key: stored.result.case_key,
      });
    }
    const receivedRows = await eventsOfType(ctx.opened.db, 'alert.received');
    const streamId = receivedRows.find((r) => r.data.alert_id === stored.result.alert_id)?.streamId ?? '';
    const history = await ctx.store.readStream(streamId);
    expect(history.map((e) => [e.type, e.data.alert_id])).toEqual([
      ['alert.received', stored.result.alert_id],
      ['alert.linked', stored.result.alert_id],
      ['alert.repeated', stored.result.alert_id],
      ['alert.repeated', stored.result.alert_id],
    ]);
  });

  it('holds a receipt only once it is stored: one whose append fails is not held (a backfill takes the alert in)', async () => {
    let failAppend: (error: Error) => void = () => {};
    let appendCalled: () => void = () => {};
    const appending = new Promise<void>((resolve) => {
      appendCalled = resolve;
    });
    // The store as a lost connection leaves it: the append never commits.
    const failing = Object.create(ctx.store) as PostgresEventStore;
    failing.appendMany = () => {
      appendCalled();
      return new Promise((_, reject) => {
        failAppend = reject;
      });
    };
    const intake = createAlertIntake({
      store: failing,
      db: ctx.opened.db,
      config,
      alertRunbooks: () => [],
      ids: randomUUID,
      now: () => new Date(),
      cacheEntries: 100,
    });
    const ingesting = intake.ingest(alert('failed-receipt', 'failed-receipt'));
    await appending;
    const held = intake.holds(alert('failed-receipt', 'failed-receipt'));
    failAppend(new Error('connection lost'));
    await expect(ingesting).rejects.toThrow('connection lost');
    expect(await held).toBe(false);
    const stored = await ctx.newIntake().ingest(alert('failed-receipt', 'failed-receipt'));
    expect(await intake.holds(alert('failed-receipt', 'failed-receipt'))).toBe(true);
    expect(stored.result.deduplicated).toBe(false);
  });

  it('takes 40 concurrent alerts of one key and 10 concurrent repeats into one case, each counted once', async () => {
    const [a, b] = [ctx.newIntake(), ctx.newIntake()];
    const fresh = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).ingest(alert(`burst-${i}`, 'burst')));
    const repeats = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? b : a).ingest(alert(`burst-${i}`, 'burst')));
    const outcomes = await Promise.all([...fresh, ...repeats]);
    const caseIds = new Set(outcomes.map((o) => o.result.case_id));
    expect(caseIds.size).toBe(1);
    const received = outcomes.filter((o) => !o.result.deduplicated);
    expect(received).toHaveLength(40);
    expect(await alertsOfCase([...caseIds][0]!)).toHaveLength(40);
    expect(outcomes.filter((o) => o.result.deduplicated)).toHaveLength(10);
  });
});
