/**
 * Linking alerts to cases by hand (SPEC.md "Cases": `POST /cases/<id>/alerts` links,
 * `DELETE /cases/<id>/alerts/<alert_id>` unlinks). The alert stream is the authority
 * on which case holds the alert; linking an alert that sits in another case moves it.
 * Every move is one atomic append over the alert stream and both case streams, with
 * the versions read, retried on a conflict. What the alert does is `alertDecider`'s
 * decision (domain/alerts/); each case follows the alert's events.
 *
 * Link, escalate and dismiss take `heldBy`, the case the route saw holding the alert
 * (null: none) when it checked the caller may see that case, and refuse with 404
 * `alert_not_found` when the alert's stream shows another case at the version they
 * decide on: the alert may have moved into a case the caller cannot see since the check.
 */
import type { Kysely } from 'kysely';
import { alertDecider, type AlertCommand, type AlertEvent, type AlertState } from '../../domain/alerts/index.ts';
import type { IncomingAlert } from '../../domain/alerts/intake.ts';
import { caseDecider, type Actor, type CaseEvent, type CaseState } from '../../domain/cases/index.ts';
import { notFound } from '../../domain/shared/errors.ts';
import { fold } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { Database } from '../../projections/database.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import { decideAndAppend, retryOnConflict } from './aggregate.ts';
import { actorMetadata, nextCaseNumber, openCaseCommand } from './cases.ts';
import type { CaseConfig } from './case-config.ts';
import { alertStreamOf } from './intake.ts';
import { streamStatesOf } from './stream-states.ts';

export type CaseAlertDeps = { store: EventStore; db: Kysely<Database>; now: () => Date; ids: () => string; config: CaseConfig };

/** The case an escalation opens: the alert's title, severity and team unless given (`team` absent: the alert's). */
export type EscalatedCase = { title: string | null; severity: string | null; private: boolean; team?: string | null };

/** An alert as a move reads it: its row (title, severity, team), its stream, and the state and version read. */
type LoadedAlert = {
  row: { source: string; external_id: string; title: string; severity: string; team: string | null };
  streamId: string;
  state: AlertState;
  version: number;
};

export function createCaseAlertCommands(deps: CaseAlertDeps) {
  /** The alert's row, 404 `alert_not_found` when the inbox does not know it. */
  const findAlert = async (alertId: string) => {
    const row = await deps.db.selectFrom('alerts').select(['source', 'external_id', 'title', 'severity', 'team']).where('id', '=', alertId).executeTakeFirst();
    if (!row) throw notFound('alert_not_found', 'alert not found', { alert_id: alertId });
    return { row, streamId: alertStreamOf(row) };
  };
  const loadAlert = async (alertId: string): Promise<LoadedAlert> => {
    const { row, streamId } = await findAlert(alertId);
    const { state, version } = await streamStatesOf(deps.store).load(streamId, alertDecider);
    return { row, streamId, state, version };
  };
  /** 404 `alert_not_found`, as for an absent alert, when the alert is no longer where the caller's check saw it. */
  const stillHeldBy = (alertId: string, state: AlertState, heldBy: string | null) => {
    if (state.exists && state.caseId !== heldBy) throw notFound('alert_not_found', 'alert not found', { alert_id: alertId });
  };
  /** The alert's decision as a write at the version read. */
  const alertWrite = (alert: LoadedAlert, command: AlertCommand, actor: Actor): { events: AlertEvent[]; write: StreamWrite } => {
    const events = alertDecider.decide(command, alert.state);
    return {
      events,
      write: { streamId: alert.streamId, events: events.map((e) => ({ ...e, metadata: actorMetadata(actor, 'user') })), expectedVersion: alert.version },
    };
  };

  /** A case decision as a write at the version read, and the case's key. */
  const caseWrite = async (caseId: string, decide: (state: CaseState) => CaseEvent[], actor: Actor): Promise<{ write: StreamWrite; key: string }> => {
    const { state, version } = await streamStatesOf(deps.store).load(streams.case(caseId), caseDecider);
    const events = decide(state);
    return {
      write: { streamId: streams.case(caseId), events: events.map((e) => ({ ...e, metadata: actorMetadata(actor, 'user') })), expectedVersion: version },
      key: state.exists ? state.key : '',
    };
  };
  /** The case side of the alert's move: each case its `alert.unlinked` names gives the alert up. */
  const leaving = (alertEvents: AlertEvent[], at: string, actor: Actor): Promise<StreamWrite[]> =>
    Promise.all(
      alertEvents.flatMap((e) =>
        e.type === 'alert.unlinked'
          ? [
              caseWrite(e.data.case_id, (state) => caseDecider.decide({ type: 'remove_alert', alertId: e.data.alert_id, now: at }, state), actor).then(
                (c) => c.write,
              ),
            ]
          : [],
      ),
    );

  return {
    /**
     * Puts the alert in the case (moving it out of `heldBy`, the case the caller saw it
     * in); returns the last position written, null when already there.
     */
    link: (caseId: string, alertId: string, heldBy: string | null, actor: Actor) =>
      retryOnConflict(async () => {
        const alert = await loadAlert(alertId);
        stillHeldBy(alertId, alert.state, heldBy);
        const at = deps.now().toISOString();
        const target = await caseWrite(
          caseId,
          (state) =>
            caseDecider.decide({ type: 'append_alert', alertId, title: alert.row.title, severity: alert.row.severity, correlated: false, now: at }, state),
          actor,
        );
        const moved = alertWrite(alert, { type: 'link', caseId, caseKey: target.key, now: at }, actor);
        if (moved.events.length === 0) return null;
        const from = await leaving(moved.events, at, actor);
        return (await deps.store.appendMany([...from, target.write, moved.write])).lastPosition;
      }),
    /**
     * Records an alert an analyst entered by hand (SPEC.md "Alerts": POST /alerts) in the
     * inbox, in no case and triggering no runbook: escalate or link it next. A second
     * alert with the same (source, external id) is 409 `alert_exists`.
     */
    createManual: async (alert: IncomingAlert, actor: Actor): Promise<{ alertId: string; position: number | null }> => {
      const alertId = deps.ids();
      const now = deps.now().toISOString();
      const r = await decideAndAppend(
        deps.store,
        alertStreamOf(alert),
        alertDecider,
        (): AlertCommand => ({ type: 'receive', alertId, alert, link: null, now }),
        actorMetadata(actor, 'user'),
      );
      return { alertId, position: r.position };
    },
    /**
     * Opens a new case holding the alert (moved out of `heldBy`, the case the caller saw
     * holding it, if any), in one atomic append. Answers the new case id and the last
     * position written.
     */
    escalate: async (alertId: string, heldBy: string | null, input: EscalatedCase, actor: Actor): Promise<{ caseId: string; position: number }> => {
      const caseId = deps.ids();
      const number = await nextCaseNumber(deps.db);
      const position = await retryOnConflict(async () => {
        const alert = await loadAlert(alertId);
        stillHeldBy(alertId, alert.state, heldBy);
        const at = deps.now().toISOString();
        const opening = {
          caseId,
          number,
          title: input.title ?? alert.row.title,
          description: null,
          severity: input.severity ?? alert.row.severity,
          tags: [],
          team: input.team === undefined ? alert.row.team : input.team,
          private: input.private,
        };
        const opened = caseDecider.decide(openCaseCommand(deps.config, opening, actor, at), caseDecider.initialState());
        const openedState = fold(caseDecider, opened);
        const appended = caseDecider.decide(
          { type: 'append_alert', alertId, title: alert.row.title, severity: alert.row.severity, correlated: false, now: at },
          openedState,
        );
        const metadata = actorMetadata(actor, 'user');
        const created: StreamWrite = { streamId: streams.case(caseId), events: [...opened, ...appended].map((e) => ({ ...e, metadata })), expectedVersion: 0 };
        const moved = alertWrite(alert, { type: 'link', caseId, caseKey: openedState.exists ? openedState.key : '', now: at }, actor);
        const from = await leaving(moved.events, at, actor);
        return (await deps.store.appendMany([created, ...from, moved.write])).lastPosition;
      });
      return { caseId, position };
    },
    /**
     * Dismisses an alert that no case holds; 409 `alert_in_case` when `heldBy`, the case
     * the caller saw holding it, still does. Null when it was dismissed already.
     */
    dismiss: async (alertId: string, heldBy: string | null, reason: string | null, actor: Actor) => {
      const { streamId } = await findAlert(alertId);
      const now = deps.now().toISOString();
      const r = await decideAndAppend(
        deps.store,
        streamId,
        alertDecider,
        (state): AlertCommand => {
          stillHeldBy(alertId, state, heldBy);
          return { type: 'dismiss', reason, by: actor.email ?? actor.userId, now };
        },
        actorMetadata(actor, 'user'),
      );
      return r.position;
    },
    /** Takes the alert out of the case; 404 `alert_not_in_case` when the case does not hold it. */
    unlink: (caseId: string, alertId: string, actor: Actor) =>
      retryOnConflict(async () => {
        const alert = await loadAlert(alertId);
        const at = deps.now().toISOString();
        const unlinked = alertWrite(alert, { type: 'unlink', caseId, now: at }, actor);
        const from = await leaving(unlinked.events, at, actor);
        return (await deps.store.appendMany([...from, unlinked.write])).lastPosition;
      }),
  };
}

export type CaseAlertCommands = ReturnType<typeof createCaseAlertCommands>;
