/**
 * The search documents (projections/search/documents.ts; docs/configuration.md "Search"):
 * after the projections that write what a document reads, each batch rewrites the
 * document of every case an event of it names (its own events, its tasks', observables'
 * and tickets' events) and of every alert it received, in one statement each. An alert
 * moving in or out of a case changes no case document: the alert's own holds its title
 * and observables. Rewriting from the read models makes a replayed batch write the same.
 */
import type { RecordedEvent } from '../../domain/shared/messages.ts';
import { alertsProjection } from '../alerts/alerts.projection.ts';
import { casesProjection } from '../cases/cases.projection.ts';
import { observablesProjection } from '../observables/observables.projection.ts';
import type { Projection } from '../projector.ts';
import { tasksProjection } from '../tasks/tasks.projection.ts';
import { ticketsProjection } from '../tickets/tickets.projection.ts';
import { writeAlertDocuments, writeCaseDocuments, writeOpenedCaseDocuments } from './documents.ts';

/** Case events that change nothing a case document holds. */
const notInDocument = new Set(['case.alert_appended', 'case.alert_removed']);
const writers = ['case.', 'task.', 'observable.', 'ticket.'];

/** The cases whose document `recorded` may change. */
function casesOf(recorded: RecordedEvent): string[] {
  if (notInDocument.has(recorded.type) || !writers.some((prefix) => recorded.type.startsWith(prefix))) return [];
  // A moved task leaves one case and joins another: both documents change.
  const data = recorded.data as { case_id?: unknown; from_case_id?: unknown };
  return [data.case_id, data.from_case_id].filter((id): id is string => typeof id === 'string');
}

export const searchProjection: Projection = {
  name: 'search',
  after: [casesProjection, alertsProjection, observablesProjection, tasksProjection, ticketsProjection],
  apply: async (trx, batch) => {
    // A case this batch only opened holds its heading and description alone: the cheap document.
    const touched = new Map<string, boolean>();
    for (const recorded of batch) {
      for (const id of casesOf(recorded)) touched.set(id, (touched.get(id) ?? true) && recorded.type === 'case.opened');
    }
    const opened = [...touched].filter(([, only]) => only).map(([id]) => id);
    const changed = [...touched].filter(([, only]) => !only).map(([id]) => id);
    const alerts = [...new Set(batch.filter((e) => e.type === 'alert.received').map((e) => (e.data as { alert_id: string }).alert_id))];
    await writeOpenedCaseDocuments(trx, opened);
    await writeCaseDocuments(trx, changed);
    await writeAlertDocuments(trx, alerts);
  },
};
