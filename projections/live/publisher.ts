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
  const caseIds = [...new Set(refs.flatMap((r) => (r.type === 'case.updated' ? [r.case_id] : [])))];
  const effectIds = [...new Set(refs.flatMap((r) => (r.type === 'effect.updated' ? [r.effect_id] : [])))];
  const found = await audiencesOf(trx, runIds, alertIds, caseIds, effectIds);
  const runCase = new Map(found.filter((r) => r.kind === 'run').map((r) => [r.id, r.case_id]));
  const effectCase = new Map(found.filter((r) => r.kind === 'effect').map((r) => [r.id, r.case_id]));
  const alertTeam = new Map(found.filter((r) => r.kind === 'alert').map((r) => [r.id, r.team]));
  const caseOf = new Map<string, ScopedCase>(
    found
      .filter((r) => r.case_id !== null && r.case_found)
      .map((r) => [r.case_id as string, { team: r.team, private: r.private ?? false, owner_id: r.owner_id, created_by_id: r.created_by_id }]),
  );

  const items: { audience: Audience; frame: UpdateFrame }[] = [];
  for (const ref of refs) {
    if (ref.type === 'case.updated') {
      const c = caseOf.get(ref.case_id);
      if (c) items.push({ audience: { kind: 'case', case: c }, frame: ref });
    } else if (ref.type === 'alert.updated') {
      if (alertTeam.has(ref.alert_id)) items.push({ audience: { kind: 'alert', team: alertTeam.get(ref.alert_id) ?? null }, frame: ref });
    } else {
      // An effect reaches who may see its run: its case's audience, or every reader without a case.
      const owners = ref.type === 'effect.updated' ? effectCase : runCase;
      const id = ref.type === 'effect.updated' ? ref.effect_id : ref.run_id;
      if (!owners.has(id)) continue;
      const caseId = owners.get(id) ?? null;
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

/** A row of `audiencesOf`: a run or an effect with its case's scope, an alert with its team, or a case with its scope. */
type AudienceRow = {
  kind: 'run' | 'alert' | 'case' | 'effect';
  id: string;
  case_id: string | null;
  case_found: boolean;
  team: string | null;
  private: boolean | null;
  owner_id: string | null;
  created_by_id: string | null;
};

/**
 * What decides who may see the frames of these runs, alerts, cases and effects, in one
 * statement: each run's and effect's case (null for none) and that case's scope, each
 * alert's team, each case's scope. A thing whose row is gone has no row here.
 */
async function audiencesOf(trx: Kysely<Database>, runIds: string[], alertIds: string[], caseIds: string[], effectIds: string[]): Promise<AudienceRow[]> {
  if (runIds.length + alertIds.length + caseIds.length + effectIds.length === 0) return [];
  const { rows } = await sql<AudienceRow>`
    select 'run' as kind, r.id::text as id, r.case_id::text as case_id, c.id is not null as case_found,
           c.team, c.private, c.owner_id, c.created_by_id
      from runs as r left join cases as c on c.id = r.case_id
      where r.id = any(${runIds}::uuid[])
    union all
    select 'alert', a.id::text, null, false, a.team, null, null, null
      from alerts as a where a.id = any(${alertIds}::uuid[])
    union all
    select 'case', c.id::text, c.id::text, true, c.team, c.private, c.owner_id, c.created_by_id
      from cases as c where c.id = any(${caseIds}::uuid[])
    union all
    select 'effect', e.id::text, e.case_id::text, c.id is not null, c.team, c.private, c.owner_id, c.created_by_id
      from effects as e left join cases as c on c.id = e.case_id
      where e.id = any(${effectIds}::uuid[])`.execute(trx);
  return rows;
}

/** NOTIFYs the frames of a committed batch on LIVE_CHANNEL, every payload in one statement and in order. */
export async function publishLiveUpdates(db: Kysely<Database>, events: RecordedEvent[]): Promise<void> {
  const payloads = packFrames(await liveFrames(db, events));
  if (payloads.length === 0) return;
  await sql`select pg_notify(${LIVE_CHANNEL}, p.payload) from unnest(${payloads}::text[]) with ordinality as p(payload, n) order by p.n`.execute(db);
}
