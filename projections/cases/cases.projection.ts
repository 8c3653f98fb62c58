/**
 * Case read models: `cases` (summary and detail), `case_timeline` (one row per case
 * event, SPEC.md "Timeline event"), `case_comments` and `case_ai_triage_feedback` (the
 * latest feedback of each analyst; a replayed older event never overwrites a newer one
 * because a batch folds in order and a re-applied one carries the same values).
 *
 * Per batch: one read of the touched case rows, a pure fold (case-row.ts), one upsert
 * of the changed rows and one multi-row insert per child table. Re-applying an event
 * changes nothing: rows carry the stream version they reflect, timeline rows their
 * position, comments their id (a deletion stamps `deleted_at` once). A batch is at most the projector's batch size (500),
 * which keeps every multi-row statement under Postgres' 65535 parameters.
 */
import type { Insertable, Kysely } from 'kysely';
import { caseEventTypes, type CaseEvent } from '../../domain/cases/index.ts';
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import type { CaseAiTriageFeedbackTable, CaseCommentsTable, CaseTimelineTable, CasesTable, Database } from '../database.ts';
import type { Projection } from '../projector.ts';
import { insertTimeline, timelineRow } from './timeline.ts';
import { evolveCaseRow, type CaseRecord } from './case-row.ts';
import { settleAll } from '../settle-all.ts';

/** Timeline kinds: the event type without its `case.` prefix (`acknowledged`, `status_changed`, ...). */
const timelineKind = (type: string) => type.replace(/^case\./, '');

const caseColumns = [
  'key',
  'number',
  'title',
  'description',
  'severity',
  'tags',
  'status',
  'owner_id',
  'owner_email',
  'team',
  'alert_count',
  'correlation_key',
  'acknowledged_at',
  'acknowledged_by',
  'created_at',
  'updated_at',
  'resolved_at',
  'closed_at',
  'last_alert_at',
  'private',
  'created_by_id',
  'attack_techniques',
  'version',
  'sla_template_id',
  'sla_ack_minutes',
  'sla_resolve_minutes',
  'sla_applied_at',
  'ai_triage',
  'merged_into',
  'merged_from',
  'custom_fields',
] as const satisfies readonly (keyof CasesTable)[];

const toInsertable = (row: CaseRecord): Insertable<CasesTable> => ({
  ...row,
  tags: JSON.stringify(row.tags),
  attack_techniques: JSON.stringify(row.attack_techniques),
  ai_triage: JSON.stringify(row.ai_triage),
  merged_from: JSON.stringify(row.merged_from),
  custom_fields: JSON.stringify(row.custom_fields),
});

export const casesProjection: Projection = {
  name: 'cases',
  apply: async (trx, batch) => {
    const events = batch.filter((e) => caseEventTypes.has(e.type));
    if (events.length === 0) return;
    const caseIdOf = (e: RecordedEvent) => (e.data as { case_id: string }).case_id;

    const rows = await loadCases(trx, [...new Set(events.map(caseIdOf))]);
    const changed = new Set<string>();
    const timeline: Insertable<CaseTimelineTable>[] = [];
    const comments: Insertable<CaseCommentsTable>[] = [];
    const deletions: { comment_id: string; at: string }[] = [];
    const feedback = new Map<string, Insertable<CaseAiTriageFeedbackTable>>();
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as CaseEvent;
      const caseId = caseIdOf(recorded);
      const before = rows.get(caseId);
      const after = evolveCaseRow(before, event, recorded.streamVersion);
      if (after && after !== before) {
        rows.set(caseId, after);
        changed.add(caseId);
      }
      const { case_id: _caseId, ...payload } = event.data as { case_id: string } & Record<string, unknown>;
      timeline.push(timelineRow(recorded, caseId, timelineKind(recorded.type), payload));
      if (event.type === 'case.comment_added') {
        const d = event.data;
        comments.push({
          id: d.comment_id,
          case_id: d.case_id,
          body: d.body,
          author_id: d.author_id,
          author_email: d.author_email,
          // A merged copy keeps its place among the target's comments: when it was written, not when it was copied.
          created_at: d.merged_from?.at ?? d.at,
          deleted_at: null,
          merged_from: d.merged_from === undefined ? null : JSON.stringify(d.merged_from),
        });
      }
      if (event.type === 'case.comment_deleted') deletions.push(event.data);
      if (event.type === 'case.ai_triage_feedback') {
        const d = event.data;
        feedback.set(`${d.case_id}/${d.analyst_id}`, {
          case_id: d.case_id,
          analyst_id: d.analyst_id,
          analyst_verdict: d.analyst_verdict,
          ai_verdict: d.ai_verdict,
          note: d.note,
          at: d.at,
        });
      }
    }

    const upserts = [...changed].flatMap((id) => {
      const row = rows.get(id);
      return row ? [toInsertable(row)] : [];
    });
    // Independent tables: the statements go out together (pipelined on a server).
    await settleAll([
      upserts.length > 0 &&
        trx
          .insertInto('cases')
          .values(upserts)
          .onConflict((oc) =>
            oc
              .column('id')
              .doUpdateSet((eb) => Object.fromEntries(caseColumns.map((c) => [c, eb.ref(`excluded.${c}`)])))
              .where('cases.version', '<', (eb) => eb.ref('excluded.version')),
          )
          .execute(),
      insertTimeline(trx, timeline),
      comments.length > 0 &&
        trx
          .insertInto('case_comments')
          .values(comments)
          .onConflict((oc) => oc.column('id').doNothing())
          .execute(),
      feedback.size > 0 &&
        trx
          .insertInto('case_ai_triage_feedback')
          .values([...feedback.values()])
          .onConflict((oc) =>
            oc.columns(['case_id', 'analyst_id']).doUpdateSet((eb) => ({
              analyst_verdict: eb.ref('excluded.analyst_verdict'),
              ai_verdict: eb.ref('excluded.ai_verdict'),
              note: eb.ref('excluded.note'),
              at: eb.ref('excluded.at'),
            })),
          )
          .execute(),
    ]);
    // After the comments' insert: a comment added and deleted in one batch is stamped.
    for (const d of deletions) {
      await trx.updateTable('case_comments').set({ deleted_at: d.at }).where('id', '=', d.comment_id).where('deleted_at', 'is', null).execute();
    }
  },
};

async function loadCases(trx: Kysely<Database>, ids: string[]): Promise<Map<string, CaseRecord>> {
  const found = await trx.selectFrom('cases').selectAll().where('id', 'in', ids).execute();
  return new Map(found.map((r) => [r.id, r]));
}
