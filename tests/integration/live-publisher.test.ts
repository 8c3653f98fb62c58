/**
 * The live publisher's reads (projections/live/publisher.ts): a projected batch that holds
 * no event a notification can come from does not look for notifications (one statement
 * fewer for almost every intake and engine batch), and one that does still yields the
 * `notification.created` frames of the rows it wrote. On every engine.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import { taskEventTypes } from '../../domain/tasks/index.ts';
import type { Database } from '../../projections/database.ts';
import { liveFrames } from '../../projections/live/publisher.ts';
import { engines } from '../support/engines.ts';

const event = (globalPosition: number, type: string, data: Record<string, unknown>): RecordedEvent => ({
  globalPosition,
  streamId: `case-${String(data.case_id)}`,
  streamVersion: globalPosition,
  type,
  data,
  metadata: {},
  recordedAt: '2026-11-28T08:00:00.000Z',
});

/** `db` with every statement's tree kept in `seen`, as JSON. */
function recording(db: Kysely<Database>, seen: string[]): Kysely<Database> {
  return db.withPlugin({
    transformQuery: ({ node }) => {
      seen.push(JSON.stringify(node));
      return node;
    },
    transformResult: async ({ result }) => result,
  });
}

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
