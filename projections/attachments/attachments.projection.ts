/**
 * Case attachments read model (`case_attachments`) from `case.attachment_added`. The
 * case timeline row (`attachment_added`) is written by the cases projection, as for
 * every case event. Idempotent: rows are keyed by the attachment id.
 */
import type { Insertable } from 'kysely';
import type { CaseEvent } from '../../domain/cases/index.ts';
import type { CaseAttachmentsTable } from '../database.ts';
import type { Projection } from '../projector.ts';

export const attachmentsProjection: Projection = {
  name: 'attachments',
  apply: async (trx, batch) => {
    const rows: Insertable<CaseAttachmentsTable>[] = [];
    for (const recorded of batch) {
      const event = { type: recorded.type, data: recorded.data } as CaseEvent;
      if (event.type !== 'case.attachment_added') continue;
      const d = event.data;
      rows.push({
        id: d.attachment_id,
        case_id: d.case_id,
        filename: d.filename,
        content_type: d.content_type,
        size: d.size,
        sha256: d.sha256,
        uploaded_by: d.uploaded_by,
        uploaded_at: d.at,
        event_position: recorded.globalPosition,
      });
    }
    if (rows.length > 0)
      await trx
        .insertInto('case_attachments')
        .values(rows)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
  },
};
