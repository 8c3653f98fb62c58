/**
 * Alert intake (SPEC.md "Webhook intake", CONTRACTS.md section 5): de-duplication,
 * correlation into an open case or a new one, and the alert trigger matcher that
 * queues runs, all in one atomic append.
 *
 * De-duplication: the alert stream id is a digest of (source, external id), so a
 * repeat finds the stream and is counted on the first alert. Correlation: the
 * correlation stream of (team, key) names the case collecting the key's alerts;
 * binding a new case to it is version-checked, so two concurrent alerts never open
 * two cases for one key.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AlertEvent, CorrelationCaseBound } from '../../domain/alerts/events.ts';
import { flattenDocument } from '../../domain/alerts/flatten.ts';
import { correlationKeyOf, decideCorrelation, type IncomingAlert } from '../../domain/alerts/intake.ts';
import { collectObservables } from '../../domain/alerts/observables.ts';
import { caseDecider, type CaseEvent } from '../../domain/cases/index.ts';
import { matchingRunbooks } from '../../domain/runbooks/triggers.ts';
import type { RunbookDefinition } from '../../domain/runbooks/model.ts';
import type { RunQueued } from '../../domain/runs/events.ts';
import { fold, type EventMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { Database } from '../../projections/database.ts';
import { StreamVersionConflict, type EventStore, type StreamWrite } from '../event-store/port.ts';
import { MAX_CONFLICT_RETRIES } from './aggregate.ts';
import type { CaseConfig } from './case-config.ts';
import { nextCaseNumber } from './cases.ts';
import { createKeyedMutex } from './keyed-mutex.ts';

export type IntakeResult = {
  alert_id: string;
  case_id: string;
  case_key: string;
  deduplicated: boolean;
  correlated: boolean;
  runs: string[];
};

/** An intake result and the last event position it wrote (for read-your-writes). */
export type IntakeOutcome = { result: IntakeResult; position: number };

export type IntakeDeps = {
  store: EventStore;
  db: Kysely<Database>;
  config: CaseConfig;
  /** Enabled runbooks with an alert trigger, as loaded now. */
  alertRunbooks: () => RunbookDefinition[];
  ids: () => string;
  now: () => Date;
};

const digest = (...parts: (string | null)[]) =>
  createHash('sha256').update(parts.map((p) => p ?? '').join('\u0000')).digest('hex').slice(0, 40);

/** The run trigger context of an alert (SPEC.md "Template context": payload plus flattened matched_log). */
export function alertTrigger(alert: IncomingAlert, alertId: string, caseId: string): Record<string, unknown> {
  return {
    ...alert.payload,
    alert_id: alertId,
    external_id: alert.external_id,
    source: alert.source,
    severity: alert.severity,
    title: alert.title,
    rule_id: alert.rule_id,
    case_id: caseId,
    observables: alert.observables,
    matched_log: flattenDocument(alert.matched_log),
  };
}

/** Condition facts: the trigger plus `matched_log.<dotted>` keys, so conditions can name log fields. */
function triggerFacts(trigger: Record<string, unknown>): Record<string, unknown> {
  const flat = trigger.matched_log as Record<string, unknown>;
  const facts: Record<string, unknown> = { ...trigger };
  for (const [k, v] of Object.entries(flat)) facts[`matched_log.${k}`] = v;
  return facts;
}

export function createAlertIntake(deps: IntakeDeps) {
  const withLock = createKeyedMutex();
  const metadata: EventMetadata = { actor: { id: null, email: null, kind: 'webhook' } };

  const attempt = async (alert: IncomingAlert): Promise<IntakeOutcome> => {
    const now = deps.now();
    const at = now.toISOString();
    const alertStream = streams.alert(digest(alert.source, alert.external_id));
    const existing = await deps.store.readStream(alertStream);
    if (existing.length > 0) {
      const alertEvents = existing as unknown as AlertEvent[];
      const received = alertEvents.find((e) => e.type === 'alert.received');
      const linked = [...alertEvents].reverse().find((e) => e.type === 'alert.linked');
      const alertId = received?.data.alert_id ?? '';
      const repeated = await deps.store.append(alertStream, [{ type: 'alert.repeated', data: { alert_id: alertId, at }, metadata }], existing.length);
      const caseId = linked?.type === 'alert.linked' ? linked.data.case_id : '';
      const caseRow = await deps.db.selectFrom('cases').select('key').where('id', '=', caseId).executeTakeFirst();
      return {
        result: { alert_id: alertId, case_id: caseId, case_key: caseRow?.key ?? '', deduplicated: true, correlated: false, runs: [] },
        position: repeated.lastPosition,
      };
    }

    const correlationKey = correlationKeyOf(alert);
    const correlationStream = streams.correlation(digest(alert.team, correlationKey));
    const bindings = await deps.store.readStream(correlationStream);
    const boundCaseId = (bindings[bindings.length - 1]?.data as CorrelationCaseBound['data'] | undefined)?.case_id ?? null;
    const boundHistory = boundCaseId ? await deps.store.readStream(streams.case(boundCaseId)) : [];
    const boundState = boundCaseId ? fold(caseDecider, boundHistory) : null;
    const decision = decideCorrelation(boundState, now, deps.config.correlationWindowMs, deps.config.closedStatuses);

    const alertId = deps.ids();
    const writes: StreamWrite[] = [];
    let caseId: string;
    let caseEvents: CaseEvent[];
    let caseKey: string;
    if (decision.kind === 'append') {
      caseId = decision.caseId;
      const state = boundState ?? caseDecider.initialState();
      caseEvents = caseDecider.decide({ type: 'append_alert', alertId, title: alert.title, severity: alert.severity, correlated: true, now: at }, state);
      writes.push({ streamId: streams.case(caseId), events: caseEvents.map((e) => ({ ...e, metadata })), expectedVersion: boundHistory.length });
      caseKey = state.exists ? state.key : '';
    } else {
      caseId = deps.ids();
      const number = await nextCaseNumber(deps.db);
      const opened = caseDecider.decide(
        {
          type: 'open_case',
          caseId,
          number,
          keyPrefix: deps.config.keyPrefix,
          title: alert.title,
          description: alert.url,
          severity: alert.severity,
          tags: [],
          initialStatus: deps.config.initialStatus,
          team: alert.team,
          correlationKey,
          actor: null,
          now: at,
        },
        caseDecider.initialState(),
      );
      const openedState = opened.reduce(caseDecider.evolve, caseDecider.initialState());
      const appended = caseDecider.decide({ type: 'append_alert', alertId, title: alert.title, severity: alert.severity, correlated: false, now: at }, openedState);
      caseEvents = [...opened, ...appended];
      caseKey = openedState.exists ? openedState.key : '';
      writes.push({ streamId: streams.case(caseId), events: caseEvents.map((e) => ({ ...e, metadata })), expectedVersion: 0 });
      const bound: CorrelationCaseBound = { type: 'correlation.case_bound', data: { correlation_key: correlationKey, case_id: caseId, at } };
      writes.push({ streamId: correlationStream, events: [{ ...bound, metadata }], expectedVersion: bindings.length });
    }

    const received: AlertEvent[] = [
      {
        type: 'alert.received',
        data: {
          alert_id: alertId,
          source: alert.source,
          external_id: alert.external_id,
          rule_id: alert.rule_id,
          title: alert.title,
          severity: alert.severity,
          detected_at: alert.detected_at,
          url: alert.url,
          correlation_key: correlationKey,
          suite_correlation_id: alert.suite_correlation_id,
          team: alert.team,
          observables: alert.observables,
          payload: alert.payload,
          received_at: at,
        },
      },
      { type: 'alert.linked', data: { alert_id: alertId, case_id: caseId, correlated: decision.kind === 'append', at } },
    ];
    writes.push({ streamId: alertStream, events: received.map((e) => ({ ...e, metadata })), expectedVersion: 0 });

    const trigger = alertTrigger(alert, alertId, caseId);
    const runs = matchingRunbooks(deps.alertRunbooks(), triggerFacts(trigger)).map((runbook) => {
      const runId = deps.ids();
      const queued: RunQueued = {
        type: 'run.queued',
        data: { run_id: runId, runbook, case_id: caseId, trigger_type: 'alert', trigger, inputs: {}, dry_run: false, requested_by: null, queued_at: at },
      };
      writes.push({ streamId: streams.run(runId), events: [{ ...queued, metadata }], expectedVersion: 0 });
      return runId;
    });

    const appended = await deps.store.appendMany(writes);
    return {
      result: { alert_id: alertId, case_id: caseId, case_key: caseKey, deduplicated: false, correlated: decision.kind === 'append', runs },
      position: appended.lastPosition,
    };
  };

  /** Takes one validated alert in; retries when a concurrent writer moved one of its streams. */
  const ingest = async (alert: IncomingAlert): Promise<IntakeOutcome> =>
    withLock(`${alert.team ?? ''}\u0000${correlationKeyOf(alert)}`, async () => {
      for (let n = 0; ; n++) {
        try {
          return await attempt(alert);
        } catch (error) {
          if (!(error instanceof StreamVersionConflict) || n >= MAX_CONFLICT_RETRIES) throw error;
        }
      }
    });

  return { ingest };
}

export type AlertIntake = ReturnType<typeof createAlertIntake>;

/** Builds an IncomingAlert's observables from explicit ones and the matched log's ECS fields. */
export function withObservables(alert: Omit<IncomingAlert, 'observables'> & { observables: IncomingAlert['observables'] }): IncomingAlert {
  return { ...alert, observables: collectObservables(alert.observables, flattenDocument(alert.matched_log)) };
}
