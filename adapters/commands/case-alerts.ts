/**
 * Linking alerts to cases by hand (SPEC.md "Cases": `POST /cases/<id>/alerts` links,
 * `DELETE /cases/<id>/alerts/<alert_id>` unlinks). The alert stream is the authority
 * on which case holds the alert; linking an alert that sits in another case moves it.
 * Every move is one atomic append over the alert stream and both case streams, with
 * the versions read, retried on a conflict.
 */
import type { Kysely } from 'kysely';
import type { AlertEvent } from '../../domain/alerts/events.ts';
import { alertReceived, type IncomingAlert } from '../../domain/alerts/intake.ts';
import { caseDecider, type Actor, type CaseEvent } from '../../domain/cases/index.ts';
import { conflict, notFound } from '../../domain/shared/errors.ts';
import { fold } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { Database } from '../../projections/database.ts';
import { StreamVersionConflict, type EventStore, type StreamWrite } from '../event-store/port.ts';
import { conflictBackoff, MAX_CONFLICT_RETRIES } from './aggregate.ts';
import { actorMetadata, nextCaseNumber, openCaseCommand } from './cases.ts';
import type { CaseConfig } from './case-config.ts';
import { alertStreamOf } from './intake.ts';

export type CaseAlertDeps = { store: EventStore; db: Kysely<Database>; now: () => Date; ids: () => string; config: CaseConfig };

/** The case an escalation opens: the alert's title, severity and team unless given. */
export type EscalatedCase = { title: string | null; severity: string | null; private: boolean };

export function createCaseAlertCommands(deps: CaseAlertDeps) {
  /** The alert's stream, its events and the case holding it now (null when unlinked). */
  const loadAlert = async (alertId: string) => {
    const row = await deps.db.selectFrom('alerts').select(['source', 'external_id', 'title', 'severity', 'team']).where('id', '=', alertId).executeTakeFirst();
    if (!row) throw notFound('alert_not_found', 'alert not found', { alert_id: alertId });
    const streamId = alertStreamOf(row);
    const events = (await deps.store.readStream(streamId)) as unknown as AlertEvent[];
    const lastMove = [...events].reverse().find((e) => e.type === 'alert.linked' || e.type === 'alert.unlinked' || e.type === 'alert.dismissed');
    const caseId = lastMove?.type === 'alert.linked' ? lastMove.data.case_id : null;
    return { row, streamId, version: events.length, caseId, dismissed: lastMove?.type === 'alert.dismissed' };
  };

  const caseWrite = async (caseId: string, decide: (state: ReturnType<typeof caseDecider.initialState>) => CaseEvent[], actor: Actor): Promise<StreamWrite & { key: string }> => {
    const history = await deps.store.readStream(streams.case(caseId));
    const state = fold(caseDecider, history);
    const events = decide(state);
    return { streamId: streams.case(caseId), events: events.map((e) => ({ ...e, metadata: actorMetadata(actor, 'user') })), expectedVersion: history.length, key: state.exists ? state.key : '' };
  };

  const retrying = async (attempt: () => Promise<number | null>): Promise<number | null> => {
    for (let n = 0; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof StreamVersionConflict) || n >= MAX_CONFLICT_RETRIES) throw error;
        await conflictBackoff(n);
      }
    }
  };

  return {
    /** Puts the alert in the case (moving it out of another); returns the last position written, null when already there. */
    link: (caseId: string, alertId: string, actor: Actor) =>
      retrying(async () => {
        const alert = await loadAlert(alertId);
        if (alert.caseId === caseId) return null;
        const at = deps.now().toISOString();
        const target = await caseWrite(
          caseId,
          (state) => caseDecider.decide({ type: 'append_alert', alertId, title: alert.row.title, severity: alert.row.severity, correlated: false, now: at }, state),
          actor,
        );
        const writes: StreamWrite[] = [];
        const alertEvents: AlertEvent[] = [];
        if (alert.caseId !== null) {
          const from = alert.caseId;
          writes.push(await caseWrite(from, (state) => caseDecider.decide({ type: 'remove_alert', alertId, now: at }, state), actor));
          alertEvents.push({ type: 'alert.unlinked', data: { alert_id: alertId, case_id: from, at } });
        }
        alertEvents.push({ type: 'alert.linked', data: { alert_id: alertId, case_id: caseId, case_key: target.key, correlated: false, at } });
        writes.push(target, { streamId: alert.streamId, events: alertEvents.map((e) => ({ ...e, metadata: actorMetadata(actor, 'user') })), expectedVersion: alert.version });
        return (await deps.store.appendMany(writes.map(({ streamId, events, expectedVersion }) => ({ streamId, events, expectedVersion })))).lastPosition;
      }),
    /**
     * Records an alert an analyst entered by hand (SPEC.md "Alerts": POST /alerts) in the
     * inbox, in no case and triggering no runbook: escalate or link it next. A second
     * alert with the same (source, external id) is 409 `alert_exists`.
     */
    createManual: async (alert: IncomingAlert, actor: Actor): Promise<{ alertId: string; position: number }> => {
      const alertId = deps.ids();
      const received = alertReceived(alert, alertId, deps.now().toISOString());
      try {
        const r = await deps.store.append(alertStreamOf(alert), [{ ...received, metadata: actorMetadata(actor, 'user') }], 0);
        return { alertId, position: r.lastPosition };
      } catch (error) {
        if (!(error instanceof StreamVersionConflict)) throw error;
        throw conflict('alert_exists', `an alert from ${alert.source} with that external id already exists`, { source: alert.source, external_id: alert.external_id });
      }
    },
    /**
     * Opens a new case holding the alert (moved out of the case that held it, if any), in
     * one atomic append. Answers the new case id and the last position written.
     */
    escalate: async (alertId: string, input: EscalatedCase, actor: Actor): Promise<{ caseId: string; position: number }> => {
      const caseId = deps.ids();
      const number = await nextCaseNumber(deps.db);
      let position = 0;
      await retrying(async () => {
        const alert = await loadAlert(alertId);
        const at = deps.now().toISOString();
        const opening = { caseId, number, title: input.title ?? alert.row.title, description: null, severity: input.severity ?? alert.row.severity, tags: [], team: alert.row.team, private: input.private };
        const opened = caseDecider.decide(openCaseCommand(deps.config, opening, actor, at), caseDecider.initialState());
        const appended = caseDecider.decide({ type: 'append_alert', alertId, title: alert.row.title, severity: alert.row.severity, correlated: false, now: at }, fold(caseDecider, opened));
        const metadata = actorMetadata(actor, 'user');
        const writes: StreamWrite[] = [{ streamId: streams.case(caseId), events: [...opened, ...appended].map((e) => ({ ...e, metadata })), expectedVersion: 0 }];
        const alertEvents: AlertEvent[] = [];
        if (alert.caseId !== null) {
          const from = await caseWrite(alert.caseId, (state) => caseDecider.decide({ type: 'remove_alert', alertId, now: at }, state), actor);
          writes.push({ streamId: from.streamId, events: from.events, expectedVersion: from.expectedVersion });
          alertEvents.push({ type: 'alert.unlinked', data: { alert_id: alertId, case_id: alert.caseId, at } });
        }
        const key = opened[0]?.type === 'case.opened' ? opened[0].data.key : '';
        alertEvents.push({ type: 'alert.linked', data: { alert_id: alertId, case_id: caseId, case_key: key, correlated: false, at } });
        writes.push({ streamId: alert.streamId, events: alertEvents.map((e) => ({ ...e, metadata })), expectedVersion: alert.version });
        position = (await deps.store.appendMany(writes)).lastPosition;
        return position;
      });
      return { caseId, position };
    },
    /** Dismisses an alert that no case holds; 409 `alert_in_case` otherwise. Null when it was dismissed already. */
    dismiss: (alertId: string, reason: string | null, actor: Actor) =>
      retrying(async () => {
        const alert = await loadAlert(alertId);
        if (alert.caseId !== null) throw conflict('alert_in_case', 'unlink the alert from its case before dismissing it', { alert_id: alertId, case_id: alert.caseId });
        if (alert.dismissed) return null;
        const dismissed: AlertEvent = { type: 'alert.dismissed', data: { alert_id: alertId, reason, by: actor.email ?? actor.userId, at: deps.now().toISOString() } };
        return (await deps.store.append(alert.streamId, [{ ...dismissed, metadata: actorMetadata(actor, 'user') }], alert.version)).lastPosition;
      }),
    /** Takes the alert out of the case; 404 `alert_not_in_case` when the case does not hold it. */
    unlink: (caseId: string, alertId: string, actor: Actor) =>
      retrying(async () => {
        const alert = await loadAlert(alertId);
        if (alert.caseId !== caseId) throw notFound('alert_not_in_case', 'the case does not hold this alert', { alert_id: alertId, case_id: caseId });
        const at = deps.now().toISOString();
        const from = await caseWrite(caseId, (state) => caseDecider.decide({ type: 'remove_alert', alertId, now: at }, state), actor);
        const unlinked: AlertEvent = { type: 'alert.unlinked', data: { alert_id: alertId, case_id: caseId, at } };
        const appended = await deps.store.appendMany([
          { streamId: from.streamId, events: from.events, expectedVersion: from.expectedVersion },
          { streamId: alert.streamId, events: [{ ...unlinked, metadata: actorMetadata(actor, 'user') }], expectedVersion: alert.version },
        ]);
        return appended.lastPosition;
      }),
  };
}

export type CaseAlertCommands = ReturnType<typeof createCaseAlertCommands>;
