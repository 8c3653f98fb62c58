/**
 * The live publisher's reads (projections/live/publisher.ts): a projected batch that holds
 * no event a notification can come from does not look for notifications (one statement
 * fewer for almost every intake and engine batch), and one that does still yields the
 * `notification.created` frames of the rows it wrote. On every engine.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import { taskEventTypes } from '../../domain/tasks/index.ts';
import { packFrames } from '../../projections/live/messages.ts';
import { liveFrames, publishLiveUpdates } from '../../projections/live/publisher.ts';
import { engines } from '../support/engines.ts';
import { recording } from '../support/recording.ts';

const event = (globalPosition: number, type: string, data: Record<string, unknown>, streamId = `case-${String(data.case_id)}`): RecordedEvent => ({
  globalPosition,
  streamId,
  streamVersion: globalPosition,
  type,
  data,
  metadata: {},
  recordedAt: '2026-11-28T08:00:00.000Z',
});

describe.each(engines)('live frames of a batch on $name', (engine) => {
  let opened: Awaited<ReturnType<typeof engine.open>>;
  beforeAll(async () => {
    opened = await engine.open();
  }, 60_000);
  afterAll(async () => opened?.close());

  it('does not read notifications for a batch no notification can come from', async () => {
    const seen: string[] = [];
    const caseId = randomUUID();
    await liveFrames(recording(opened.db, seen), [
      event(1, 'alert.received', { alert_id: randomUUID(), case_id: caseId }),
      event(2, 'case.tags_changed', { case_id: caseId }),
    ]);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((q) => q.includes('"notifications"'))).toEqual([]);
  });

  it('reads who may see a batch of case, alert, run and effect updates in one statement, and sends its frames in one more', async () => {
    const caseId = randomUUID();
    const runId = randomUUID();
    const ownerId = randomUUID();
    const creatorId = randomUUID();
    // Enough alerts for the frames to fill two NOTIFY payloads (7,000 bytes each at most).
    const alertIds = Array.from({ length: 120 }, () => randomUUID());
    const now = new Date();
    await opened.db
      .insertInto('cases')
      .values({
        id: caseId,
        key: `LIVE-${caseId.slice(0, 8)}`,
        number: 0,
        title: 'Live',
        severity: 'high',
        status: 'new',
        tags: '[]',
        alert_count: 0,
        attack_techniques: '[]',
        created_at: now,
        updated_at: now,
        private: true,
        team: 'blue',
        owner_id: ownerId,
        created_by_id: creatorId,
        version: 1,
      })
      .execute();
    await opened.db
      .insertInto('alerts')
      .values(
        alertIds.map((id) => ({
          id,
          source: 'detector',
          external_id: id,
          title: 'Live',
          severity: 'high',
          status: 'new',
          team: 'red',
          payload: '{}',
          repeat_count: 0,
          version: 1,
          received_at: now,
          last_seen_at: now,
        })),
      )
      .execute();
    await opened.db
      .insertInto('runs')
      .values({ id: runId, runbook_id: 'live', runbook_version: 1, case_id: caseId, status: 'running', trigger_type: 'manual', dry_run: false, queued_at: now })
      .execute();
    // One effect of the private case, one of no case (every reader sees it), one whose row is gone.
    const [effectOfCase, effectOfNone, effectGone] = [randomUUID(), randomUUID(), randomUUID()];
    const effect = (id: string, ofCase: string | null) => ({
      id,
      effect_type: 'block',
      target_type: 'ip',
      target: '203.0.113.9',
      status: 'active',
      ttl_seconds: 600,
      case_id: ofCase,
      requested_at: now,
      updated_at: now,
      stream_version: 1,
    });
    await opened.db
      .insertInto('effects')
      .values([effect(effectOfCase, caseId), effect(effectOfNone, null)])
      .execute();
    const batch = [
      event(21, 'case.tags_changed', { case_id: caseId }),
      event(22, 'run.started', { run_id: runId }, `run-${runId}`),
      ...[effectOfCase, effectOfNone, effectGone].map((id, i) => event(25 + i, 'effect.applied', { effect_id: id }, `effect-${id}`)),
      ...alertIds.map((id, i) => event(30 + i, 'alert.repeated', { alert_id: id }, `alert-${id}`)),
    ];
    const frames = await liveFrames(opened.db, batch);
    const scope = { team: 'blue', private: true, owner_id: ownerId, created_by_id: creatorId };
    expect(frames).toContainEqual({ audience: { kind: 'case', case: scope }, frame: { type: 'case.updated', case_id: caseId, event: 'case.tags_changed' } });
    expect(frames).toContainEqual({
      audience: { kind: 'run', case: scope },
      frame: { type: 'run.updated', run_id: runId, event: 'run.started', status: 'running' },
    });
    expect(frames.filter((f) => f.frame.type === 'alert.updated' && f.audience.kind === 'alert' && f.audience.team === 'red')).toHaveLength(alertIds.length);
    expect(frames.filter((f) => f.frame.type === 'effect.updated')).toEqual([
      { audience: { kind: 'run', case: scope }, frame: { type: 'effect.updated', effect_id: effectOfCase, event: 'effect.applied' } },
      { audience: { kind: 'run', case: null }, frame: { type: 'effect.updated', effect_id: effectOfNone, event: 'effect.applied' } },
    ]);
    expect(packFrames(frames).length).toBeGreaterThan(1);

    const seen: string[] = [];
    await publishLiveUpdates(recording(opened.db, seen), batch);
    expect(seen).toHaveLength(2);
  });

  it.each([
    ['a case comment', 'case.comment_added', 11],
    ['a task event', [...taskEventTypes][0] as string, 12],
  ])('still sends the frames of the notifications %s wrote', async (_what, type, position) => {
    const userId = randomUUID();
    const notificationId = randomUUID();
    await opened.db
      .insertInto('notifications')
      .values({
        id: notificationId,
        user_id: userId,
        kind: 'mention',
        severity: 'info',
        title: 'Someone mentioned you',
        context: JSON.stringify({}),
        href: '/cases/x',
        at: new Date(),
        read_at: null,
        event_position: position,
      })
      .execute();
    const frames = await liveFrames(opened.db, [
      event(position - 2, 'case.tags_changed', { case_id: randomUUID() }),
      event(position, type, { case_id: randomUUID() }),
    ]);
    expect(frames).toContainEqual({ audience: { kind: 'user', user_id: userId }, frame: { type: 'notification.created', notification_id: notificationId } });
  });
});
