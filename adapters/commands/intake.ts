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
import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import * as v from 'valibot';
import type { CorrelationCaseBound } from '../../domain/alerts/events.ts';
import { flattenDocument } from '../../domain/alerts/flatten.ts';
import { alertDecider } from '../../domain/alerts/index.ts';
import { correlationKeyOf, decideCorrelation, type IncomingAlert } from '../../domain/alerts/intake.ts';
import { collectObservables } from '../../domain/alerts/observables.ts';
import { caseDecider, type CaseEvent } from '../../domain/cases/index.ts';
import type { CaseState } from '../../domain/cases/state.ts';
import { matchingRunbooks } from '../../domain/runbooks/triggers.ts';
import type { RunbookDefinition } from '../../domain/runbooks/model.ts';
import { runDecider } from '../../domain/runs/index.ts';
import { fold, type EventMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { Database } from '../../projections/database.ts';
import { StreamVersionConflict, type AppendResult, type EventStore, type StreamWrite } from '../event-store/port.ts';
import { isObservableType, normalizeObservable } from '../observables/normalize.ts';
import { conflictBackoff, MAX_CONFLICT_RETRIES } from './aggregate.ts';
import type { CaseConfig } from './case-config.ts';
import { nextCaseNumber } from './cases.ts';
import { createIntakeCache, type KnownAlert, type KnownBinding, type KnownCase } from './intake-cache.ts';
import { createKeyedMutex } from './keyed-mutex.ts';
import { streamStatesOf } from './stream-states.ts';

/** What intake did with one alert: its case, whether it repeated a known alert or joined an open case, and the runs it queued. */
export const intakeResultSchema = v.strictObject({
  alert_id: v.string(),
  case_id: v.string(),
  case_key: v.string(),
  deduplicated: v.boolean(),
  correlated: v.boolean(),
  runs: v.array(v.string()),
});

export type IntakeResult = v.InferOutput<typeof intakeResultSchema>;

/** An intake result and the last event position it wrote (for read-your-writes). */
export type IntakeOutcome = { result: IntakeResult; position: number };

/** An alert decided, its append queued: the answer once `commit` lands. */
type Pending = { commit: Promise<AppendResult>; streamIds: string[]; result: IntakeResult };

export type IntakeDeps = {
  store: EventStore;
  db: Kysely<Database>;
  config: CaseConfig;
  /** Enabled runbooks with an alert trigger, as loaded now. */
  alertRunbooks: () => RunbookDefinition[];
  ids: () => string;
  now: () => Date;
  /** Most entries the intake cache keeps per kind (intake-cache.ts). */
  cacheEntries: number;
};

const digest = (...parts: (string | null)[]) => hash('sha256', parts.map((p) => p ?? '').join('\u0000'), 'hex').slice(0, 40);

/** The alert stream of (source, external id): a repeat of an alert finds it. */
export const alertStreamOf = (alert: Pick<IncomingAlert, 'source' | 'external_id'>) => streams.alert(digest(alert.source, alert.external_id));

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

  const cache = createIntakeCache(deps.cacheEntries);

  const readCase = (caseId: string): Promise<KnownCase> => streamStatesOf(deps.store).load(streams.case(caseId), caseDecider);
  const readAlert = async (alertStream: string): Promise<KnownAlert | null> => {
    const events = await deps.store.readStream(alertStream);
    const state = fold(alertDecider, events);
    return state.exists ? { state, version: events.length, received: Promise.resolve() } : null;
  };
  const readBinding = async (correlationStream: string): Promise<KnownBinding> => {
    const bindings = await deps.store.readStream(correlationStream);
    const last = bindings[bindings.length - 1]?.data as CorrelationCaseBound['data'] | undefined;
    return { caseId: last?.case_id ?? null, version: bindings.length };
  };

  /** Decided against the known state as it is, cached or read: a repeat reads nothing more. */
  const repeat = (alertStream: string, known: KnownAlert, at: string): Pending => {
    const repeated = alertDecider.decide({ type: 'repeat', now: at }, known.state);
    cache.alerts.set(alertStream, { ...known, version: known.version + repeated.length });
    const { id, caseId, caseKey } = known.state;
    return {
      commit: known.received.then(() =>
        deps.store.append(
          alertStream,
          repeated.map((e) => ({ ...e, metadata })),
          known.version,
        ),
      ),
      streamIds: [alertStream],
      result: { alert_id: id, case_id: caseId ?? '', case_key: caseKey ?? '', deduplicated: true, correlated: false, runs: [] },
    };
  };

  /**
   * One try at taking `alert` in: decides it, queues its append and records the
   * streams' expected state in the cache before the append commits, so the next alert
   * of the key can be decided at once and land in the same group commit. With `fresh`
   * false it trusts the cache and takes an unknown alert stream for a new alert; the
   * expected versions catch a wrong guess.
   */
  const attempt = async (alert: IncomingAlert, fresh: boolean): Promise<Pending> => {
    const now = deps.now();
    const at = now.toISOString();
    const alertStream = alertStreamOf(alert);
    const knownAlert = fresh ? await readAlert(alertStream) : (cache.alerts.get(alertStream) ?? null);
    if (knownAlert) return repeat(alertStream, knownAlert, at);

    const correlationKey = correlationKeyOf(alert);
    const correlationStream = streams.correlation(digest(alert.team, correlationKey));
    const binding = (!fresh && cache.bindings.get(correlationStream)) || (await readBinding(correlationStream));
    const bound = binding.caseId === null ? null : (!fresh && cache.cases.get(streams.case(binding.caseId))) || (await readCase(binding.caseId));
    const decision = decideCorrelation(bound?.state ?? null, now, deps.config.correlationWindowMs, deps.config.closedStatuses);

    const alertId = deps.ids();
    const writes: StreamWrite[] = [];
    let caseId: string;
    let caseEvents: CaseEvent[];
    let priorState: CaseState;
    if (decision.kind === 'append' && bound) {
      caseId = decision.caseId;
      priorState = bound.state;
      caseEvents = caseDecider.decide({ type: 'append_alert', alertId, title: alert.title, severity: alert.severity, correlated: true, now: at }, priorState);
      writes.push({ streamId: streams.case(caseId), events: caseEvents.map((e) => ({ ...e, metadata })), expectedVersion: bound.version });
    } else {
      caseId = deps.ids();
      priorState = caseDecider.initialState();
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
          private: false,
          correlationKey,
          actor: null,
          now: at,
        },
        priorState,
      );
      const openedState = opened.reduce(caseDecider.evolve, priorState);
      const appended = caseDecider.decide(
        { type: 'append_alert', alertId, title: alert.title, severity: alert.severity, correlated: false, now: at },
        openedState,
      );
      caseEvents = [...opened, ...appended];
      writes.push({ streamId: streams.case(caseId), events: caseEvents.map((e) => ({ ...e, metadata })), expectedVersion: 0 });
      const bound: CorrelationCaseBound = { type: 'correlation.case_bound', data: { correlation_key: correlationKey, case_id: caseId, at } };
      writes.push({ streamId: correlationStream, events: [{ ...bound, metadata }], expectedVersion: binding.version });
    }
    const caseState = caseEvents.reduce(caseDecider.evolve, priorState);
    const caseKey = caseState.exists ? caseState.key : '';

    // The stream is new (the cache or the read found none): decided on the initial state, no read.
    const received = alertDecider.decide(
      { type: 'receive', alertId, alert, link: { caseId, caseKey, correlated: decision.kind === 'append' }, now: at },
      alertDecider.initialState(),
    );
    const alertState = received.reduce(alertDecider.evolve, alertDecider.initialState());
    writes.push({ streamId: alertStream, events: received.map((e) => ({ ...e, metadata })), expectedVersion: 0 });

    const trigger = alertTrigger(alert, alertId, caseId);
    // A new run id has no stream yet: decided on the initial state, no read on the hot path.
    const runs = matchingRunbooks(deps.alertRunbooks(), triggerFacts(trigger)).map((runbook) => {
      const runId = deps.ids();
      const queued = runDecider.decide(
        { type: 'queue_run', runbook, runId, caseId, triggerType: 'alert', trigger, inputs: {}, dryRun: false, requestedBy: null, now: at },
        runDecider.initialState(),
      );
      writes.push({ streamId: streams.run(runId), events: queued.map((e) => ({ ...e, metadata })), expectedVersion: 0 });
      return runId;
    });

    const expected = (streamId: string) => {
      const write = writes.find((w) => w.streamId === streamId);
      return write && typeof write.expectedVersion === 'number' ? write.expectedVersion + write.events.length : 0;
    };
    const commit = deps.store.appendMany(writes);
    // The cache keeps whether the receipt committed, not the append's result: that result's
    // `versions`, keyed by this alert's own stream ids, would stay on the heap with it, a
    // few hundred bytes an alert for as long as the entry lives (bench/memory.ts). A failed
    // append is the caller's to handle (and its entries are forgotten), so the rejection
    // here is marked handled rather than left to end the process.
    const committed = commit.then(() => undefined);
    committed.catch(() => {});
    if (alertState.exists) cache.alerts.set(alertStream, { state: alertState, version: expected(alertStream), received: committed });
    cache.cases.set(streams.case(caseId), { state: caseState, version: expected(streams.case(caseId)) });
    if (decision.kind === 'open') cache.bindings.set(correlationStream, { caseId, version: expected(correlationStream) });
    return {
      commit,
      streamIds: writes.map((w) => w.streamId),
      result: { alert_id: alertId, case_id: caseId, case_key: caseKey, deduplicated: false, correlated: decision.kind === 'append', runs },
    };
  };

  /**
   * Takes one validated alert in. The per-key lock covers deciding and queueing only;
   * when the append fails, what the cache guessed for its streams is dropped and a
   * conflict is retried from the store.
   */
  const ingest = async (alert: IncomingAlert): Promise<IntakeOutcome> => {
    const key = `${alert.team ?? ''}\u0000${correlationKeyOf(alert)}`;
    for (let n = 0; ; n++) {
      const pending = await withLock(key, () => attempt(alert, n > 0));
      try {
        const appended = await pending.commit;
        return { result: pending.result, position: appended.lastPosition };
      } catch (error) {
        cache.forget(pending.streamIds);
        if (!(error instanceof StreamVersionConflict) || n >= MAX_CONFLICT_RETRIES) throw error;
        // A moved alert stream means a repeat, not a race: retry at once.
        if (error.params.stream_id !== alertStreamOf(alert)) await conflictBackoff(n);
      }
    }
  };

  /**
   * Whether intake already holds an alert of `alert`'s (source, external id); unlike
   * `ingest`, counts no repeat. A receipt this process has not committed yet counts once it
   * commits: should its append fail, the store is asked instead.
   */
  const holds = async (alert: Pick<IncomingAlert, 'source' | 'external_id'>): Promise<boolean> => {
    const alertStream = alertStreamOf(alert);
    const committed = await cache.alerts.get(alertStream)?.received.then(
      () => true,
      () => false,
    );
    return committed === true || (await readAlert(alertStream)) !== null;
  };

  return { ingest, holds };
}

export type AlertIntake = ReturnType<typeof createAlertIntake>;

/**
 * Builds an IncomingAlert's observables from explicit ones and the matched log's ECS
 * fields, each with its normalized value (adapters/observables/normalize.ts) so the
 * case shows it: a type outside the case observable types keeps its name and is
 * normalized as `other`; a value invalid for its type (an `ip` that is no address, a
 * value over the size cap) gets none.
 */
export function withObservables(alert: Omit<IncomingAlert, 'observables'> & { observables: IncomingAlert['observables'] }): IncomingAlert {
  const observables = collectObservables(alert.observables, flattenDocument(alert.matched_log)).map((o) => {
    const n = normalizeObservable(isObservableType(o.type) ? o.type : 'other', o.value);
    return n.ok ? { ...o, normalized: n.value } : o;
  });
  return { ...alert, observables };
}
