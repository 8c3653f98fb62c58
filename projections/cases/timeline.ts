/**
 * Case timeline rows (SPEC.md "Timeline event": kind plus payload), written by every
 * projection whose events belong on a case's timeline (cases, observables, tasks).
 * Keyed by event position, so re-applying an event adds nothing.
 */
import type { Insertable, Kysely } from 'kysely';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import type { CaseTimelineTable, Database } from '../database.ts';

/** The timeline row of `recorded` on case `caseId`. */
export function timelineRow(recorded: RecordedEvent, caseId: string, kind: string, payload: Record<string, unknown>): Insertable<CaseTimelineTable> {
  return {
    event_position: recorded.globalPosition,
    case_id: caseId,
    kind,
    payload: JSON.stringify(payload),
    actor_id: recorded.metadata.actor?.id ?? null,
    actor_email: recorded.metadata.actor?.email ?? null,
    at: recorded.recordedAt,
  };
}

export async function insertTimeline(trx: Kysely<Database>, rows: Insertable<CaseTimelineTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('case_timeline')
    .values(rows)
    .onConflict((oc) => oc.column('event_position').doNothing())
    .execute();
}
