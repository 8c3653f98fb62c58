/**
 * Case read models: `cases` (summary and detail), `case_timeline` (one row per case
 * event, SPEC.md "Timeline event") and `case_comments`. Re-applying an event changes
 * nothing: rows carry the stream version they reflect, timeline rows their position.
 */
import type { Kysely } from 'kysely';
import { caseEventTypes, type CaseEvent } from '../../domain/cases/index.ts';
import type { Database } from '../database.ts';
import type { Projection } from '../projector.ts';

/** Timeline kinds: the event type without its `case.` prefix (`acknowledged`, `status_changed`, ...). */
const timelineKind = (type: string) => type.replace(/^case\./, '');

export const casesProjection: Projection = {
  name: 'cases',
  apply: async (trx, recorded) => {
    if (!caseEventTypes.has(recorded.type)) return;
    const event = { type: recorded.type, data: recorded.data } as CaseEvent;
    await applyCaseEvent(trx, event, recorded.streamVersion);
    const { case_id: caseId, ...payload } = event.data as { case_id: string } & Record<string, unknown>;
    await trx
      .insertInto('case_timeline')
      .values({
        event_position: recorded.globalPosition,
        case_id: caseId,
        kind: timelineKind(recorded.type),
        payload: JSON.stringify(payload),
        actor_id: recorded.metadata.actor?.id ?? null,
        actor_email: recorded.metadata.actor?.email ?? null,
        at: recorded.recordedAt,
      })
      .onConflict((oc) => oc.column('event_position').doNothing())
      .execute();
  },
};

async function applyCaseEvent(trx: Kysely<Database>, event: CaseEvent, version: number): Promise<void> {
  if (event.type === 'case.opened') {
    const d = event.data;
    await trx
      .insertInto('cases')
      .values({
        id: d.case_id,
        key: d.key,
        number: d.number,
        title: d.title,
        description: d.description,
        severity: d.severity,
        tags: JSON.stringify(d.tags),
        status: d.status,
        owner_id: null,
        owner_email: null,
        team: d.team,
        alert_count: 0,
        correlation_key: d.correlation_key,
        acknowledged_at: null,
        acknowledged_by: null,
        created_at: d.opened_at,
        updated_at: d.opened_at,
        resolved_at: null,
        closed_at: null,
        last_alert_at: null,
        version,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return;
  }
  const update = trx.updateTable('cases').where('id', '=', event.data.case_id).where('version', '<', version);
  switch (event.type) {
    case 'case.alert_appended':
      await update
        .set((eb) => ({ alert_count: eb('alert_count', '+', 1), last_alert_at: event.data.at, updated_at: event.data.at, version }))
        .execute();
      return;
    case 'case.status_changed': {
      const d = event.data;
      await update
        .set((eb) => ({
          status: d.to,
          updated_at: d.at,
          version,
          resolved_at: d.to === 'resolved' ? d.at : eb.ref('resolved_at'),
          closed_at: d.to === 'closed' ? d.at : eb.ref('closed_at'),
        }))
        .execute();
      return;
    }
    case 'case.assigned':
      await update.set({ owner_id: event.data.owner_id, owner_email: event.data.owner_email, updated_at: event.data.at, version }).execute();
      return;
    case 'case.acknowledged':
      await update
        .set({ acknowledged_at: event.data.acknowledged_at, acknowledged_by: event.data.acknowledged_by, updated_at: event.data.acknowledged_at, version })
        .execute();
      return;
    case 'case.comment_added': {
      const d = event.data;
      await update.set({ updated_at: d.at, version }).execute();
      await trx
        .insertInto('case_comments')
        .values({ id: d.comment_id, case_id: d.case_id, body: d.body, author_id: d.author_id, author_email: d.author_email, created_at: d.at, deleted_at: null })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      return;
    }
    case 'case.updated': {
      const c = event.data.changes;
      await update
        .set({
          ...(c.title !== undefined && { title: c.title }),
          ...(c.description !== undefined && { description: c.description }),
          ...(c.severity !== undefined && { severity: c.severity }),
          ...(c.tags !== undefined && { tags: JSON.stringify(c.tags) }),
          updated_at: event.data.at,
          version,
        })
        .execute();
      return;
    }
  }
}

