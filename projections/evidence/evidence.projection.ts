/**
 * Evidence pins read model (`case_evidence`) from `case.evidence_pinned`. The case
 * timeline row (`evidence_pinned`) is written by the cases projection, as for every
 * case event. Idempotent: rows are keyed by the pin id.
 */
import type { Insertable } from 'kysely';
import type { CaseEvent } from '../../domain/cases/index.ts';
import type { CaseEvidenceTable } from '../database.ts';
import type { Projection } from '../projector.ts';

export const evidenceProjection: Projection = {
  name: 'evidence',
  apply: async (trx, batch) => {
    const rows: Insertable<CaseEvidenceTable>[] = [];
    for (const recorded of batch) {
      const event = { type: recorded.type, data: recorded.data } as CaseEvent;
      if (event.type !== 'case.evidence_pinned') continue;
      const d = event.data;
      rows.push({
        id: d.pin_id,
        case_id: d.case_id,
        kind: d.kind,
        ref_id: d.ref_id,
        url: d.url,
        note: d.note,
        pinned_by: d.pinned_by,
        pinned_at: d.at,
        event_position: recorded.globalPosition,
      });
    }
    if (rows.length > 0)
      await trx
        .insertInto('case_evidence')
        .values(rows)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
  },
};
