/** Maps a row of the `events` table to a RecordedEvent (shared by the store and the projector). */
import type { Selectable } from 'kysely';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import type { EventsTable } from '../../projections/database.ts';

export function toRecordedEvent(row: Selectable<EventsTable>): RecordedEvent {
  return {
    globalPosition: Number(row.global_position),
    streamId: row.stream_id,
    streamVersion: Number(row.stream_version),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    recordedAt: new Date(row.recorded_at).toISOString(),
  };
}
