/**
 * Retention on the real service, on every engine (SPEC.md `GET /retention`; docs/operations.md
 * "Retention"): a sweep purges closed cases past the window with everything that hangs
 * off them (streams, read models, attachment files), in batches with `backlog`, records
 * each purge as an event and an audit entry, and leaves both hash chains verifiable,
 * from their tables and by replaying the event store.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemStore } from '../../adapters/attachments/filesystem.ts';
import { createAuditLog } from '../../adapters/commands/audit.ts';
import { createRetentionCommands, type RetentionCommands } from '../../adapters/commands/retention.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { resolveRetentionPolicy, type RetentionSettings } from '../../domain/retention/policy.ts';
import { replayVerifyChains } from '../../projections/chains/replay-verify.ts';
import { createRetentionSweeper } from '../../runtime/worker/retention-sweep.ts';
import { callAs, detectorIntake, runOnCase, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { recordedEvents } from '../support/events.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);

const annotate = `
id: annotate
name: Annotate
version: 1
trigger: { type: manual }
steps:
  - id: tag
    action: case.update
    with: { tags_add: ["retained-run"] }
`;

const DAY = 86_400_000;
const settings: RetentionSettings = {
  enabled: true,
  class: 'case_records',
  realm: 'default',
  defaultDays: 365,
  minDays: 30,
  maxDays: 3650,
  overrideDays: null,
  sweepIntervalHours: 24,
  batchLimit: 1,
};

const alert = (id: string) => ({
  alert_id: id,
  rule: { id: `rule-${id}`, title: `Rule ${id}`, severity: 'high' },
  detected_at: new Date().toISOString(),
  matched_log: { source: { ip: '203.0.113.7' }, user: { name: 'mallory' } },
});

describe.each(e2eEngines)('retention on $name', ({ server }) => {
  let svc: InProcessService;
  const opened: Record<'first' | 'second' | 'open', string> = { first: '', second: '', open: '' };
  let firstAlertId = '';
  let runId = '';
  let attachmentKey = '';

  /** A sweeper on the service's database whose clock reads `days` ahead. */
  const sweeperAt = (days: number, overrides: Partial<RetentionSettings> = {}, commands?: RetentionCommands) => {
    const { db } = svc.service.opened;
    const now = () => new Date(Date.now() + days * DAY);
    const store = new PostgresEventStore(db);
    return createRetentionSweeper({
      db,
      policy: resolveRetentionPolicy({ ...settings, ...overrides }),
      closedStatuses: ['resolved', 'closed'],
      commands: commands ?? createRetentionCommands({ db, store, audit: createAuditLog({ store, ids: () => crypto.randomUUID(), now }), now }),
      files: createFilesystemStore(join(svc.env.SVC_DATA_DIR!, 'attachments')),
      waitFor: (position) => svc.service.projector.waitFor(position),
      now,
      holdMs: 1000,
    });
  };

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks: { 'annotate.yml': annotate } });
    const intake = await detectorIntake(svc, alert('ret-1'));
    expect(intake.status, intake.text).toBe(202);
    opened.first = intake.body.case_id;
    firstAlertId = intake.body.alert_id;
    const id = opened.first;
    expect((await callAs(svc, ana, 'POST', `/cases/${id}/acknowledge`, {})).status).toBe(200);
    expect((await callAs(svc, ana, 'POST', `/cases/${id}/comments`, { body: 'looked at it' })).status).toBe(201);
    const task = await callAs(svc, ana, 'POST', `/cases/${id}/tasks`, { title: 'Contain host' });
    expect(task.status, task.text).toBe(201);
    expect((await callAs(svc, ana, 'POST', `/cases/${id}/tasks/${task.body.id}/comments`, { body: 'done' })).status).toBe(201);
    expect((await callAs(svc, ana, 'POST', `/cases/${id}/observables`, { type: 'domain', value: 'evil.example' })).status).toBe(201);
    const form = new FormData();
    form.append('file', new Blob([new TextEncoder().encode('retention-attachment-bytes')]), 'note.txt');
    const path = `/cases/${id}/attachments`;
    const token = await svc.identity.sign({
      token_use: 'assertion',
      sub: ana.sub,
      email: ana.email,
      name: ana.email,
      grants: ana.grants,
      htm: 'POST',
      htu: path,
    });
    const uploaded = await svc.request(path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const attachment = (await uploaded.json()) as { id: string; sha256: string };
    expect(uploaded.status).toBe(201);
    attachmentKey = attachment.sha256;
    expect((await callAs(svc, ana, 'POST', `/cases/${id}/evidence`, { kind: 'attachment', ref_id: attachment.id, note: 'the note' })).status).toBe(201);
    const run = await runOnCase(svc, ana, id, 'annotate');
    expect(run.status).toBe('succeeded');
    runId = run.id;
    expect((await callAs(svc, ana, 'POST', `/cases/${id}/status`, { status: 'closed' })).status).toBe(200);

    opened.second = (await callAs(svc, ana, 'POST', '/cases', { title: 'Second closed', severity: 'low' })).body.id;
    expect((await callAs(svc, ana, 'POST', `/cases/${opened.second}/status`, { status: 'resolved' })).status).toBe(200);
    opened.open = (await callAs(svc, ana, 'POST', '/cases', { title: 'Still open', severity: 'low' })).body.id;
  }, 90_000);
  afterAll(async () => svc?.close());

  it('reports the policy and a never-run state to a realm admin only', async () => {
    const answer = await callAs(svc, root, 'GET', '/retention');
    expect(answer.status).toBe(200);
    expect(answer.body.policy).toEqual({
      enabled: true,
      class: 'case_records',
      contract_version: 1,
      realm: 'default',
      resource: 'cases',
      retention_days: 365,
      default_days: 365,
      min_days: 30,
      max_days: 3650,
      provenance: 'default',
      override_days: null,
      cause: null,
      sweep_interval_hours: 24,
      batch_limit: 500,
    });
    expect(answer.body).toMatchObject({ last_deleted: 0, backlog: false, last_error: null, last_error_at: null });
    expect((await callAs(svc, blueAdmin, 'GET', '/retention')).status).toBe(403);
    expect((await callAs(svc, ana, 'GET', '/retention')).status).toBe(403);
  });

  it('sweeps nothing inside the window, and nothing while an override is out of bounds', async () => {
    expect(await sweeperAt(300).sweep()).toEqual({ deleted: 0, skipped: 0, backlog: false, filesRemoved: 0 });
    expect(await sweeperAt(4000, { overrideDays: 0 }).sweep()).toBeNull();
    expect((await callAs(svc, ana, 'GET', `/cases/${opened.first}`)).status).toBe(200);
  });

  it('records a failed sweep by error class, never by message', async () => {
    const failing: RetentionCommands = { purgeCase: async () => Promise.reject(new DomainError('store_unavailable', 503, 'database at 10.1.2.3 is down', {})) };
    await expect(sweeperAt(400, {}, failing).sweep()).rejects.toThrow('down');
    const state = (await callAs(svc, root, 'GET', '/retention')).body;
    expect(state.last_error).toBe('store_unavailable');
    expect(Date.parse(state.last_error_at)).toBeGreaterThan(Date.now() + 399 * DAY);
    expect(JSON.stringify(state)).not.toContain('10.1.2.3');
  });

  it('purges closed cases past the window in batches, with everything that hangs off them', async () => {
    const { db } = svc.service.opened;
    const taskStreams = (await db.selectFrom('case_tasks').select('id').where('case_id', '=', opened.first).execute()).map((t) => `task-${t.id}`);
    // The failed sweep above pushed the schedule a day: the next sweep runs a day later.
    const sweeper = sweeperAt(402);
    expect(await sweeper.sweep()).toEqual({ deleted: 1, skipped: 0, backlog: true, filesRemoved: 1 });

    for (const path of [`/cases/${opened.first}`, `/alerts/${firstAlertId}`, `/cases/${opened.first}/timeline`]) {
      expect((await callAs(svc, root, 'GET', path)).status, path).toBe(404);
    }
    for (const table of [
      'case_timeline',
      'case_comments',
      'case_tasks',
      'case_task_comments',
      'case_observables',
      'case_attachments',
      'case_evidence',
    ] as const) {
      expect(await db.selectFrom(table).select('case_id').where('case_id', '=', opened.first).execute(), table).toEqual([]);
    }
    expect(await db.selectFrom('alerts').select('id').where('id', '=', firstAlertId).execute()).toEqual([]);
    expect(existsSync(join(svc.env.SVC_DATA_DIR!, 'attachments', attachmentKey))).toBe(false);
    const purgedStreams = new Set([`case-${opened.first}`, ...taskStreams, `retention-${opened.first}`]);
    const left = await recordedEvents(db, (e) => purgedStreams.has(e.streamId));
    expect(left.map((e) => [e.streamId, e.type])).toEqual([[`retention-${opened.first}`, 'retention.case_purged']]);
    expect(left[0]?.data).toMatchObject({ case_id: opened.first, retention_days: 365, alert_ids: [firstAlertId], attachment_keys: [attachmentKey] });
    expect(JSON.stringify(left[0]?.data)).not.toContain('mallory');

    // The run and its action log stay, and both chains still verify, from the tables and by replay.
    expect((await db.selectFrom('action_log').select('run_id').where('run_id', '=', runId).execute()).length).toBeGreaterThan(0);
    expect((await callAs(svc, root, 'GET', '/runs/chain/verify')).body).toMatchObject({ valid: true });
    expect((await callAs(svc, root, 'GET', '/audit/verify')).body).toMatchObject({ valid: true, first_broken_index: null });
    const store = new PostgresEventStore(db);
    const replayed = await replayVerifyChains(db, (after, limit) => store.readAll(after, limit), await store.headPosition());
    expect(replayed.action_log.valid && replayed.audit_log.valid).toBe(true);
    const purges = (await callAs(svc, root, 'GET', '/audit?action=retention.case_purge')).body.items;
    expect(purges).toEqual([
      expect.objectContaining({
        action: 'retention.case_purge',
        target: { type: 'case', id: opened.first },
        actor: expect.objectContaining({ kind: 'system' }),
      }),
    ]);
    expect((await callAs(svc, root, 'GET', '/audit?action=case.acknowledge')).body.items).toHaveLength(1);

    expect(await callAs(svc, root, 'GET', '/retention')).toMatchObject({ body: { last_deleted: 1, total_deleted: 1, backlog: true } });
    // The backlog makes the next sweep due at once; it takes the resolved case.
    expect(await sweeper.sweep()).toEqual({ deleted: 1, skipped: 0, backlog: true, filesRemoved: 0 });
    expect(await sweeper.sweep()).toEqual({ deleted: 0, skipped: 0, backlog: false, filesRemoved: 0 });
    expect(await sweeper.sweep()).toBeNull();
    expect(await callAs(svc, root, 'GET', '/retention')).toMatchObject({ body: { last_deleted: 0, total_deleted: 2, backlog: false } });
    expect((await callAs(svc, ana, 'GET', `/cases/${opened.second}`)).status).toBe(404);
    expect((await callAs(svc, ana, 'GET', `/cases/${opened.open}`)).status).toBe(200);
  });

  it('takes the same detector alert in again as a new alert on a new case after its case was purged', async () => {
    const again = await detectorIntake(svc, alert('ret-1'));
    expect(again.status, again.text).toBe(202);
    expect(again.body).toMatchObject({ deduplicated: false });
    expect(again.body.case_id).not.toBe(opened.first);
    expect((await callAs(svc, ana, 'GET', `/cases/${again.body.case_id}`)).status).toBe(200);
  });
});
