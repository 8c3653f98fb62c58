/**
 * Publishes the live updates of a projected batch (docs/operations.md "Live updates"):
 * called by the process that projected the batch once it committed, so a client that
 * reads after a frame sees the change. Best effort and outside the projector's
 * transaction: a failure here loses frames, never blocks a projection.
 */
import { sql, type Kysely } from 'kysely';
import { liveRefs } from '../../domain/live/refs.ts';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import type { ScopedCase } from '../cases/case-scope.ts';
import type { Database } from '../database.ts';
import { notifyingEventTypes } from '../notifications/notifications.projection.ts';
import { LIVE_CHANNEL, packFrames, type Audience, type UpdateFrame } from './messages.ts';

/** Frames of `events` with their audiences; a thing whose row is gone (purged, say) is skipped. */
export async function liveFrames(trx: Kysely<Database>, events: RecordedEvent[]): Promise<{ audience: Audience; frame: UpdateFrame }[]> {
  const first = events[0]?.globalPosition;
  const last = events.at(-1)?.globalPosition;
  if (first === undefined || last === undefined) return [];
  const refs = liveRefs(events);
  const runIds = [...new Set(refs.flatMap((r) => (r.type === 'run.updated' || r.type === 'approval.updated' ? [r.run_id] : [])))];
  const alertIds = [...new Set(refs.flatMap((r) => (r.type === 'alert.updated' ? [r.alert_id] : [])))];
  const runs = runIds.length === 0 ? [] : await trx.selectFrom('runs').select(['id', 'case_id']).where('id', 'in', runIds).execute();
  const alerts = alertIds.length === 0 ? [] : await trx.selectFrom('alerts').select(['id', 'team']).where('id', 'in', alertIds).execute();
  const runCase = new Map(runs.map((r) => [r.id, r.case_id]));
  const caseIds = [
    ...new Set([...refs.flatMap((r) => (r.type === 'case.updated' ? [r.case_id] : [])), ...runs.flatMap((r) => (r.case_id ? [r.case_id] : []))]),
  ];
  const cases =
    caseIds.length === 0
      ? []
      : await trx.selectFrom('cases').select(['id', 'team', 'private', 'owner_id', 'created_by_id']).where('id', 'in', caseIds).execute();
  const caseOf = new Map<string, ScopedCase>(
    cases.map((c) => [c.id, { team: c.team, private: c.private, owner_id: c.owner_id, created_by_id: c.created_by_id }]),
  );
  const alertTeam = new Map(alerts.map((a) => [a.id, a.team]));

  const items: { audience: Audience; frame: UpdateFrame }[] = [];
  for (const ref of refs) {
    if (ref.type === 'case.updated') {
      const c = caseOf.get(ref.case_id);
      if (c) items.push({ audience: { kind: 'case', case: c }, frame: ref });
    } else if (ref.type === 'alert.updated') {
      if (alertTeam.has(ref.alert_id)) items.push({ audience: { kind: 'alert', team: alertTeam.get(ref.alert_id) ?? null }, frame: ref });
    } else {
      if (!runCase.has(ref.run_id)) continue;
      const caseId = runCase.get(ref.run_id) ?? null;
      const c = caseId === null ? null : caseOf.get(caseId);
      if (c !== undefined) items.push({ audience: { kind: 'run', case: c }, frame: ref });
    }
  }
  // Most batches (alerts, runs) cannot have written a notification: one statement fewer each.
  if (!events.some((e) => notifyingEventTypes.has(e.type))) return items;
  const notifications = await trx
    .selectFrom('notifications')
    .select(['id', 'user_id'])
    .where('event_position', '>=', first)
    .where('event_position', '<=', last)
    .orderBy('event_position')
    .execute();
  for (const n of notifications) items.push({ audience: { kind: 'user', user_id: n.user_id }, frame: { type: 'notification.created', notification_id: n.id } });
  return items;
}

/** NOTIFYs the frames of a committed batch on LIVE_CHANNEL. */
export async function publishLiveUpdates(db: Kysely<Database>, events: RecordedEvent[]): Promise<void> {
  for (const payload of packFrames(await liveFrames(db, events))) {
    await sql`select pg_notify(${LIVE_CHANNEL}, ${payload})`.execute(db);
  }
}
