/**
 * Applies a retention purge to the read models (domain/retention/events.ts): every row
 * of the purged case and of the alerts and tasks that belonged to it goes. Runs, their
 * action log and the audit log stay: they are the chained record (docs/operations.md
 * "Retention"). Idempotent: applying the event again deletes nothing more.
 */
import { sql } from 'kysely';
import { CASE_PURGED, type CasePurged } from '../../domain/retention/events.ts';
import type { Projection } from '../projector.ts';
import { alertsProjection } from '../alerts/alerts.projection.ts';
import { attachmentsProjection } from '../attachments/attachments.projection.ts';
import { casesProjection } from '../cases/cases.projection.ts';
import { pagesProjection } from '../cases/pages.projection.ts';
import { evidenceProjection } from '../evidence/evidence.projection.ts';
import { notificationsProjection } from '../notifications/notifications.projection.ts';
import { taskNotificationsProjection } from '../notifications/task-notifications.projection.ts';
import { observablesProjection } from '../observables/observables.projection.ts';
import { tasksProjection } from '../tasks/tasks.projection.ts';
import { ticketOutboxProjection } from '../tickets/outbox.projection.ts';
import { ticketsProjection } from '../tickets/tickets.projection.ts';
import { searchProjection } from '../search/search.projection.ts';

export const retentionProjection: Projection = {
  name: 'retention',
  // Every projection that writes a row a purge deletes: the purge comes after its inserts.
  after: [
    casesProjection,
    alertsProjection,
    notificationsProjection,
    observablesProjection,
    tasksProjection,
    taskNotificationsProjection,
    attachmentsProjection,
    evidenceProjection,
    pagesProjection,
    ticketsProjection,
    ticketOutboxProjection,
    searchProjection,
  ],
  apply: async (trx, batch) => {
    for (const recorded of batch) {
      if (recorded.type !== CASE_PURGED) continue;
      const d = (recorded as unknown as CasePurged).data;
      const caseId = d.case_id;
      if (d.alert_ids.length > 0) {
        await trx.deleteFrom('alert_observables').where('alert_id', 'in', d.alert_ids).execute();
        await trx.deleteFrom('alert_search').where('alert_id', 'in', d.alert_ids).execute();
        await trx.deleteFrom('alerts').where('id', 'in', d.alert_ids).execute();
      }
      if (d.task_ids.length > 0) await trx.deleteFrom('case_task_comments').where('task_id', 'in', d.task_ids).execute();
      await trx
        .deleteFrom('ticket_outbox')
        .where('link_id', 'in', trx.selectFrom('case_tickets').select('link_id').where('case_id', '=', caseId))
        .execute();
      for (const table of [
        'case_timeline',
        'case_comments',
        'case_observables',
        'case_tasks',
        'case_attachments',
        'case_evidence',
        'case_pages',
        'case_tickets',
        'case_ai_triage_feedback',
        'case_search',
      ] as const) {
        await trx.deleteFrom(table).where('case_id', '=', caseId).execute();
      }
      await trx.deleteFrom('notifications').where(sql<boolean>`context->>'case_id' = ${caseId}`).execute();
      await trx.deleteFrom('cases').where('id', '=', caseId).execute();
    }
  },
};
