/**
 * The batched projector end to end, on every engine: a realistic history written
 * through the real event store (alert intake, case work, a finished and an unfinished
 * run) projects to the same read models whatever the batch size, when replayed from
 * an older checkpoint, and across projector restarts. Databases other than the one
 * the history was appended to receive the very same `events` rows (positions and
 * `recorded_at` included), so timeline timestamps compare exactly.
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import type { NewEvent, StreamWrite } from '../../adapters/event-store/port.ts';
import type { AlertEvent, CorrelationCaseBound } from '../../domain/alerts/events.ts';
import type { CaseEvent } from '../../domain/cases/index.ts';
import type { RunbookDefinition, StepDefinition } from '../../domain/runbooks/model.ts';
import { verifyChain, type ChainedRow } from '../../domain/shared/hash-chain.ts';
import type { ActionLogRow, RunEvent } from '../../domain/runs/events.ts';
import type { EventMetadata, RecordedEvent } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import { alertsProjection } from '../../projections/alerts/alerts.projection.ts';
import { casesProjection } from '../../projections/cases/cases.projection.ts';
import type { Database } from '../../projections/database.ts';
import { createProjector, type Projection } from '../../projections/projector.ts';
import { runsProjection } from '../../projections/runs/runs.projection.ts';
import { engines, type TestEngine } from '../support/engines.ts';
import { recording } from '../support/recording.ts';

type Opened = Awaited<ReturnType<TestEngine['open']>>;

const projections = [casesProjection, alertsProjection, runsProjection];
const project = (db: Kysely<Database>, batchSize: number) => createProjector(db, new PostgresEventStore(db), projections, { batchSize });

// ---------------------------------------------------------------------------------
// The history: ids, clock and actors
// ---------------------------------------------------------------------------------

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const BASE = Date.parse('2025-01-15T08:00:00.000Z');
/** The n-th tick of a clock with millisecond parts, as ISO 8601. */
const at = (n: number) => new Date(BASE + n * 61_237).toISOString();

const webhook: EventMetadata = { actor: { id: null, email: null, kind: 'webhook' } };
const system: EventMetadata = { actor: { id: null, email: null, kind: 'system' } };
const ANA = { id: uuid(0xa1), email: 'ana@example.com' };
const BOB = { id: uuid(0xb0b), email: 'bob@example.com' };
const user = (u: { id: string; email: string }): EventMetadata => ({ actor: { id: u.id, email: u.email, kind: 'user' } });

const C1 = uuid(0xc1);
const C2 = uuid(0xc2);
const C3 = uuid(0xc3);
const C4 = uuid(0xc4);
const A1 = uuid(0xa001);
const A2 = uuid(0xa002);
const A3 = uuid(0xa003);
const A4 = uuid(0xa004);
const R1 = uuid(0xf001);
const R2 = uuid(0xf002);

const step = (id: string, action: string, needs: string[] = []): StepDefinition => ({
  id,
  kind: 'action',
  action,
  when: null,
  needs,
  when_branch: null,
  with: {},
  timeout_s: 30,
  retries: 1,
  on_error: { kind: 'fail' },
  approval: null,
  autonomous: true,
  for_each: null,
  ui: null,
});

/** Declared out of execution order: `run_steps.position` follows `needs`. */
const runbook: RunbookDefinition = {
  id: 'phishing-triage',
  name: 'Phishing triage',
  description: 'Notify the on-call, then close',
  version: 3,
  enabled: true,
  trigger: { type: 'manual' },
  inputs: [],
  steps: [step('close', 'case.update', ['notify']), step('notify', 'notify.webhook')],
};

/** Builds `appendMany` calls with the exact expected version of every stream, as the commands do. */
class History {
  readonly appends: StreamWrite[][] = [];
  private readonly versions = new Map<string, number>();

  add(...writes: { streamId: string; events: NewEvent[] }[]): void {
    this.appends.push(
      writes.map((w) => {
        const expectedVersion = this.versions.get(w.streamId) ?? 0;
        this.versions.set(w.streamId, expectedVersion + w.events.length);
        return { ...w, expectedVersion };
      }),
    );
  }
}

const withMeta = (metadata: EventMetadata, events: (CaseEvent | AlertEvent | RunEvent | CorrelationCaseBound)[]): NewEvent[] =>
  events.map((e) => ({ ...e, metadata }));

type IncomingAlert = { id: string; source: string; externalId: string; title: string; severity: string; key: string; t: number };

const receivedEvents = (a: IncomingAlert, caseId: string, caseKey: string, correlated: boolean): AlertEvent[] => [
  {
    type: 'alert.received',
    data: {
      alert_id: a.id,
      source: a.source,
      external_id: a.externalId,
      rule_id: `rule-${a.externalId}`,
      title: a.title,
      severity: a.severity,
      detected_at: at(a.t - 1),
      url: `https://siem.example/alerts/${a.externalId}`,
      correlation_key: a.key,
      suite_correlation_id: null,
      team: 'soc',
      observables: [{ type: 'ip', value: '203.0.113.9' }],
      payload: { external: a.externalId, nested: { user: 'ana@example.com', hits: [1, 2, 3] } },
      received_at: at(a.t),
    },
  },
  { type: 'alert.linked', data: { alert_id: a.id, case_id: caseId, case_key: caseKey, correlated, at: at(a.t) } },
];

/** Intake of an alert that opens a case: case, correlation binding and alert streams in one append. */
function intakeNewCase(h: History, a: IncomingAlert, c: { id: string; number: number }): void {
  const key = `SEC-${c.number}`;
  h.add(
    {
      streamId: streams.case(c.id),
      events: withMeta(webhook, [
        {
          type: 'case.opened',
          data: {
            case_id: c.id,
            key,
            number: c.number,
            title: a.title,
            description: `https://siem.example/alerts/${a.externalId}`,
            severity: a.severity,
            tags: [],
            status: 'new',
            team: 'soc',
            correlation_key: a.key,
            opened_at: at(a.t),
            opened_by: null,
            opened_by_id: null,
            private: false,
          },
        },
        { type: 'case.alert_appended', data: { case_id: c.id, alert_id: a.id, title: a.title, severity: a.severity, correlated: false, at: at(a.t) } },
      ]),
    },
    {
      streamId: streams.correlation(`soc-${a.key}`),
      events: withMeta(webhook, [{ type: 'correlation.case_bound', data: { correlation_key: a.key, case_id: c.id, at: at(a.t) } }]),
    },
    { streamId: streams.alert(`${a.source}-${a.externalId}`), events: withMeta(webhook, receivedEvents(a, c.id, key, false)) },
  );
}

/** Intake of an alert correlated into an open case. */
function intakeCorrelated(h: History, a: IncomingAlert, c: { id: string; number: number }): void {
  h.add(
    {
      streamId: streams.case(c.id),
      events: withMeta(webhook, [
        { type: 'case.alert_appended', data: { case_id: c.id, alert_id: a.id, title: a.title, severity: a.severity, correlated: true, at: at(a.t) } },
      ]),
    },
    { streamId: streams.alert(`${a.source}-${a.externalId}`), events: withMeta(webhook, receivedEvents(a, c.id, `SEC-${c.number}`, true)) },
  );
}

function repeatAlert(h: History, a: IncomingAlert, t: number): void {
  h.add({
    streamId: streams.alert(`${a.source}-${a.externalId}`),
    events: withMeta(webhook, [{ type: 'alert.repeated', data: { alert_id: a.id, at: at(t) } }]),
  });
}

function caseWork(h: History, caseId: string, actor: EventMetadata, events: CaseEvent[]): void {
  h.add({ streamId: streams.case(caseId), events: withMeta(actor, events) });
}

function runWork(h: History, runId: string, events: RunEvent[]): void {
  h.add({ streamId: streams.run(runId), events: withMeta(system, events) });
}

const queued = (runId: string, caseId: string, t: number, dryRun: boolean): RunEvent => ({
  type: 'run.queued',
  data: {
    run_id: runId,
    runbook,
    case_id: caseId,
    trigger_type: 'manual',
    trigger: { case_id: caseId },
    inputs: { reason: 'triage' },
    dry_run: dryRun,
    requested_by: ANA.email,
    queued_at: at(t),
  },
});

const logRow = (
  runId: string,
  stepId: string,
  action: string | null,
  attempt: number,
  status: ActionLogRow['status'],
  output: unknown,
  error: string | null,
  t0: number,
  t1: number,
): ActionLogRow => ({
  run_id: runId,
  step_id: stepId,
  action,
  attempt,
  status,
  input: { url: 'https://hooks.example/oncall', body: { case: stepId } },
  output,
  error,
  started_at: at(t0),
  finished_at: at(t1),
});

const alerts = {
  a1: { id: A1, source: 'sentinel', externalId: 'ext-1', title: 'Impossible travel for ana', severity: 'medium', key: 'user:ana', t: 1 },
  a2: { id: A2, source: 'sentinel', externalId: 'ext-2', title: 'Second login for ana', severity: 'high', key: 'user:ana', t: 3 },
  a3: { id: A3, source: 'guardduty', externalId: 'gd-1', title: 'Crypto mining on i-123', severity: 'critical', key: 'host:i-123', t: 4 },
  a4: { id: A4, source: 'sentinel', externalId: 'ext-3', title: 'Impossible travel for ana, again', severity: 'medium', key: 'user:ana', t: 40 },
} satisfies Record<string, IncomingAlert>;

function buildHistory(): History {
  const h = new History();
  const c1 = { id: C1, number: 1 };
  const c2 = { id: C2, number: 2 };
  intakeNewCase(h, alerts.a1, c1);
  repeatAlert(h, alerts.a1, 2);
  intakeCorrelated(h, alerts.a2, c1);
  intakeNewCase(h, alerts.a3, c2);
  caseWork(h, C1, user(ANA), [{ type: 'case.acknowledged', data: { case_id: C1, acknowledged_at: at(5), acknowledged_by: ANA.email, by_user_id: ANA.id } }]);
  caseWork(h, C1, user(ANA), [{ type: 'case.assigned', data: { case_id: C1, owner_id: ANA.id, owner_email: ANA.email, previous_owner_id: null, at: at(6) } }]);
  caseWork(h, C1, user(ANA), [{ type: 'case.status_changed', data: { case_id: C1, from: 'new', to: 'investigating', note: 'on it', at: at(7) } }]);
  caseWork(h, C1, user(ANA), [
    {
      type: 'case.comment_added',
      data: { case_id: C1, comment_id: uuid(0xd001), body: 'Looks like a VPN exit node', author_id: ANA.id, author_email: ANA.email, at: at(8) },
    },
  ]);
  repeatAlert(h, alerts.a1, 9);
  repeatAlert(h, alerts.a3, 10);
  caseWork(h, C1, user(ANA), [{ type: 'case.updated', data: { case_id: C1, changes: { tags: ['phishing', 'vip'], severity: 'high' }, at: at(11) } }]);
  caseWork(h, C2, user(BOB), [
    {
      type: 'case.comment_added',
      data: { case_id: C2, comment_id: uuid(0xd002), body: 'Isolating the host', author_id: BOB.id, author_email: BOB.email, at: at(12) },
    },
    { type: 'case.updated', data: { case_id: C2, changes: { title: 'Crypto mining on i-123 (prod)', description: 'Confirmed by Bob' }, at: at(12) } },
  ]);
  // A run on C1 to its end: one step executed, the next skipped.
  runWork(h, R1, [queued(R1, C1, 13, false)]);
  runWork(h, R1, [{ type: 'run.started', data: { run_id: R1, at: at(14) } }]);
  runWork(h, R1, [{ type: 'step.started', data: { run_id: R1, step_id: 'notify', attempt: 1, at: at(15) } }]);
  runWork(h, R1, [
    {
      type: 'step.finished',
      data: {
        run_id: R1,
        step_id: 'notify',
        attempt: 1,
        status: 'ok',
        output: { status: 202, delivered: true },
        error: null,
        log: logRow(R1, 'notify', 'notify.webhook', 1, 'ok', { status: 202, delivered: true }, null, 15, 16),
        at: at(16),
      },
    },
  ]);
  runWork(h, R1, [
    {
      type: 'step.finished',
      data: {
        run_id: R1,
        step_id: 'close',
        attempt: 1,
        status: 'skipped',
        output: null,
        error: 'condition false',
        log: logRow(R1, 'close', 'case.update', 1, 'skipped', null, 'condition false', 17, 17),
        at: at(17),
      },
    },
  ]);
  runWork(h, R1, [{ type: 'run.finished', data: { run_id: R1, status: 'succeeded', error: null, at: at(18) } }]);
  // A dry run on C2 left unfinished: a failed attempt, the retry in flight (its job row stays).
  runWork(h, R2, [queued(R2, C2, 19, true), { type: 'run.started', data: { run_id: R2, at: at(19) } }]);
  runWork(h, R2, [{ type: 'step.started', data: { run_id: R2, step_id: 'notify', attempt: 1, at: at(20) } }]);
  runWork(h, R2, [
    {
      type: 'step.finished',
      data: {
        run_id: R2,
        step_id: 'notify',
        attempt: 1,
        status: 'error',
        output: null,
        error: 'HTTP 503',
        log: logRow(R2, 'notify', 'notify.webhook', 1, 'error', null, 'HTTP 503', 20, 21),
        at: at(21),
      },
    },
  ]);
  runWork(h, R2, [{ type: 'step.started', data: { run_id: R2, step_id: 'notify', attempt: 2, at: at(22) } }]);
  caseWork(h, C1, user(ANA), [
    { type: 'case.status_changed', data: { case_id: C1, from: 'investigating', to: 'resolved', note: 'false positive', at: at(23) } },
  ]);
  caseWork(h, C2, user(BOB), [{ type: 'case.assigned', data: { case_id: C2, owner_id: BOB.id, owner_email: BOB.email, previous_owner_id: null, at: at(24) } }]);
  caseWork(h, C2, user(BOB), [{ type: 'case.status_changed', data: { case_id: C2, from: 'new', to: 'resolved', note: null, at: at(25) } }]);
  caseWork(h, C1, user(ANA), [{ type: 'case.status_changed', data: { case_id: C1, from: 'resolved', to: 'closed', note: null, at: at(26) } }]);
  // A case opened by hand, without alerts, worked in one command burst and reassigned.
  caseWork(h, C3, user(BOB), [
    {
      type: 'case.opened',
      data: {
        case_id: C3,
        key: 'SEC-3',
        number: 3,
        title: 'Suspicious OAuth consent',
        description: null,
        severity: 'low',
        tags: ['oauth', 'manual'],
        status: 'new',
        team: null,
        correlation_key: null,
        opened_at: at(30),
        opened_by: BOB.email,
        opened_by_id: null,
        private: false,
      },
    },
  ]);
  caseWork(h, C3, user(BOB), [{ type: 'case.assigned', data: { case_id: C3, owner_id: BOB.id, owner_email: BOB.email, previous_owner_id: null, at: at(31) } }]);
  caseWork(h, C3, user(BOB), [
    {
      type: 'case.comment_added',
      data: { case_id: C3, comment_id: uuid(0xd003), body: 'Asked the user', author_id: BOB.id, author_email: BOB.email, at: at(32) },
    },
  ]);
  caseWork(h, C3, user(ANA), [
    { type: 'case.assigned', data: { case_id: C3, owner_id: ANA.id, owner_email: ANA.email, previous_owner_id: BOB.id, at: at(33) } },
  ]);
  caseWork(h, C3, user(ANA), [{ type: 'case.updated', data: { case_id: C3, changes: { tags: [] }, at: at(34) } }]);
  caseWork(h, C3, user(ANA), [{ type: 'case.acknowledged', data: { case_id: C3, acknowledged_at: at(35), acknowledged_by: ANA.email, by_user_id: ANA.id } }]);
  // C1 is closed: the next alert of its key opens a new case; a repeat of C1's first alert still counts there.
  intakeNewCase(h, alerts.a4, { id: C4, number: 4 });
  repeatAlert(h, alerts.a1, 41);
  repeatAlert(h, alerts.a4, 42);
  caseWork(h, C4, user(ANA), [
    {
      type: 'case.comment_added',
      data: { case_id: C4, comment_id: uuid(0xd004), body: 'Same VPN again', author_id: ANA.id, author_email: ANA.email, at: at(43) },
    },
  ]);
  return h;
}

// ---------------------------------------------------------------------------------
// Databases: append, copy, dump
// ---------------------------------------------------------------------------------

/** Appends every command of `history` through the real store; returns each append's last position. */
async function appendHistory(db: Kysely<Database>, history: History): Promise<number[]> {
  const store = new PostgresEventStore(db);
  const boundaries: number[] = [];
  for (const writes of history.appends) boundaries.push((await store.appendMany(writes)).lastPosition);
  await store.settle();
  return boundaries;
}

/** Copies the `events` rows with position in (after, upTo] verbatim (position, recorded_at and all). */
async function copyEvents(from: Kysely<Database>, to: Kysely<Database>, after: number, upTo: number): Promise<void> {
  const rows = await from
    .selectFrom('events')
    .selectAll()
    .where('global_position', '>', after)
    .where('global_position', '<=', upTo)
    .orderBy('global_position')
    .execute();
  if (rows.length === 0) return;
  await to
    .insertInto('events')
    .values(
      rows.map((r) => ({
        global_position: Number(r.global_position),
        stream_id: r.stream_id,
        stream_version: r.stream_version,
        type: r.type,
        data: JSON.stringify(r.data),
        metadata: JSON.stringify(r.metadata),
        recorded_at: r.recorded_at,
      })),
    )
    .execute();
}

const readModelTables = ['cases', 'case_timeline', 'case_comments', 'alerts', 'runs', 'run_steps', 'action_log', 'jobs'] as const;

/** Empties the events, the read models and the checkpoints: a fresh database without paying for a new one. */
async function wipe(db: Kysely<Database>): Promise<void> {
  for (const table of [...readModelTables, 'projection_checkpoints', 'events'] as const) await db.deleteFrom(table).execute();
}

/** Every read model the three projections write, ordered by primary key, as JSON. */
async function dumpReadModels(db: Kysely<Database>) {
  const tables = {
    cases: await db.selectFrom('cases').selectAll().orderBy('id').execute(),
    case_timeline: await db.selectFrom('case_timeline').selectAll().orderBy('event_position').execute(),
    case_comments: await db.selectFrom('case_comments').selectAll().orderBy('id').execute(),
    alerts: await db.selectFrom('alerts').selectAll().orderBy('id').execute(),
    runs: await db.selectFrom('runs').selectAll().orderBy('id').execute(),
    run_steps: await db.selectFrom('run_steps').selectAll().orderBy('run_id').orderBy('step_id').execute(),
    action_log: await db.selectFrom('action_log').selectAll().orderBy('chain_index').execute(),
    // `jobs.id` is a sequence value, different after a replay; the rest is the read model.
    jobs: await db.selectFrom('jobs').select(['kind', 'key', 'due_at', 'lease_owner', 'lease_until']).orderBy('kind').orderBy('key').execute(),
  };
  return JSON.parse(JSON.stringify(tables)) as { [K in keyof typeof tables]: Record<string, unknown>[] };
}

type Dump = Awaited<ReturnType<typeof dumpReadModels>>;

async function checkpointOf(db: Kysely<Database>, name = 'main'): Promise<number> {
  const row = await db.selectFrom('projection_checkpoints').select('position').where('name', '=', name).executeTakeFirstOrThrow();
  return Number(row.position);
}

const rowOf = (rows: Record<string, unknown>[], key: string, value: unknown) => {
  const row = rows.find((r) => r[key] === value);
  if (!row) throw new Error(`no row with ${key} = ${String(value)}`);
  return row;
};

// ---------------------------------------------------------------------------------
// The suites
// ---------------------------------------------------------------------------------

/**
 * Two databases per engine (opening one costs seconds on PGlite): `source` holds the
 * history as appended through the store and its one-event-per-batch projection;
 * `scratch` is wiped and refilled by each test that needs a second database.
 */
describe.each(engines)('batched projections on $name', (engine) => {
  const history = buildHistory();
  let source: Opened | undefined;
  let scratch: Opened | undefined;
  let boundaries: number[] = [];
  let head = 0;
  /** The reference: the history projected one event per batch. */
  let oneByOne: Dump;

  /** The scratch database, emptied. */
  const fresh = async () => {
    if (!scratch) throw new Error('scratch database not open');
    await wipe(scratch.db);
    return scratch;
  };

  beforeAll(async () => {
    [source, scratch] = await Promise.all([engine.open(), engine.open()]);
    boundaries = await appendHistory(source.db, history);
    head = boundaries[boundaries.length - 1] ?? 0;
    await project(source.db, 1).catchUp();
    oneByOne = await dumpReadModels(source.db);
  });
  afterAll(async () => {
    await source?.close();
    await scratch?.close();
  });

  it('projects the history one event per batch to the read models the events describe', () => {
    const d = oneByOne;
    const caseEvents = history.appends
      .flat()
      .filter((w) => w.streamId.startsWith('case-'))
      .flatMap((w) => w.events);
    expect(d.case_timeline).toHaveLength(caseEvents.length);
    expect(d.case_comments.map((c) => c.body)).toEqual(['Looks like a VPN exit node', 'Isolating the host', 'Asked the user', 'Same VPN again']);

    expect(d.cases.map((c) => c.key)).toEqual(['SEC-1', 'SEC-2', 'SEC-3', 'SEC-4']);
    expect(rowOf(d.cases, 'id', C1)).toMatchObject({
      alert_count: 2,
      status: 'closed',
      severity: 'high',
      tags: ['phishing', 'vip'],
      owner_id: ANA.id,
      owner_email: ANA.email,
      acknowledged_by: ANA.email,
      acknowledged_at: at(5),
      last_alert_at: at(3),
      resolved_at: at(23),
      closed_at: at(26),
      updated_at: at(26),
      created_at: at(1),
      version: 10,
    });
    expect(rowOf(d.cases, 'id', C2)).toMatchObject({
      alert_count: 1,
      status: 'resolved',
      title: 'Crypto mining on i-123 (prod)',
      description: 'Confirmed by Bob',
      owner_email: BOB.email,
      resolved_at: at(25),
      closed_at: null,
      version: 6,
    });
    expect(rowOf(d.cases, 'id', C3)).toMatchObject({ alert_count: 0, tags: [], owner_id: ANA.id, acknowledged_at: at(35), last_alert_at: null, version: 6 });
    expect(rowOf(d.cases, 'id', C4)).toMatchObject({ alert_count: 1, status: 'new', version: 3 });

    expect(rowOf(d.alerts, 'id', A1)).toMatchObject({ status: 'linked', case_id: C1, repeat_count: 3, received_at: at(1), last_seen_at: at(41), version: 5 });
    expect(rowOf(d.alerts, 'id', A2)).toMatchObject({ status: 'linked', case_id: C1, repeat_count: 0, last_seen_at: at(3), version: 2 });
    expect(rowOf(d.alerts, 'id', A3)).toMatchObject({ case_id: C2, repeat_count: 1, last_seen_at: at(10) });
    expect(rowOf(d.alerts, 'id', A4)).toMatchObject({ case_id: C4, repeat_count: 1, last_seen_at: at(42) });
    expect(rowOf(d.alerts, 'id', A1).payload).toEqual({ external: 'ext-1', nested: { user: 'ana@example.com', hits: [1, 2, 3] } });

    expect(rowOf(d.runs, 'id', R1)).toMatchObject({
      status: 'succeeded',
      runbook_id: 'phishing-triage',
      runbook_version: 3,
      case_id: C1,
      started_at: at(14),
      finished_at: at(18),
    });
    expect(rowOf(d.runs, 'id', R2)).toMatchObject({ status: 'running', dry_run: true, finished_at: null });
    expect(d.run_steps.map((s) => [s.run_id, s.step_id, s.position, s.status, s.attempt])).toEqual([
      [R1, 'close', 1, 'skipped', 1],
      [R1, 'notify', 0, 'ok', 1],
      [R2, 'close', 1, 'pending', 0],
      [R2, 'notify', 0, 'running', 2],
    ]);
    expect(d.jobs).toEqual([{ kind: 'run', key: R2, due_at: at(19), lease_owner: null, lease_until: null }]);
    expect(d.action_log.map((r) => [r.chain_index, r.run_id, r.step_id])).toEqual([
      [0, R1, 'notify'],
      [1, R1, 'close'],
      [2, R2, 'notify'],
    ]);
    expect(verifyChain(d.action_log as unknown as ChainedRow[])).toMatchObject({ valid: true, checked: 3 });
  });

  it('projects the same rows with 500 events per batch as with one', async () => {
    const target = await fresh();
    await copyEvents(source!.db, target.db, 0, head);
    const projector = project(target.db, 500);
    await projector.catchUp();
    expect(projector.position()).toBe(head);
    expect(await dumpReadModels(target.db)).toEqual(oneByOne);
  });

  it.each([3, 7])('projects the same rows with %i events per batch (batches straddling streams and appends)', async (batchSize) => {
    const target = await fresh();
    await copyEvents(source!.db, target.db, 0, head);
    await project(target.db, batchSize).catchUp();
    expect(await dumpReadModels(target.db)).toEqual(oneByOne);
  });

  it('changes nothing when the checkpoint goes back and the events are applied again', async () => {
    const target = await fresh();
    await copyEvents(source!.db, target.db, 0, head);
    const projector = project(target.db, 500);
    await projector.catchUp();
    const middle = boundaries[Math.floor(boundaries.length / 2)] ?? 0;
    const replays: [from: number, batchSize: number][] = [
      [0, 500],
      [0, 500],
      [middle, 500],
      [0, 4],
      [head - 1, 1],
    ];
    for (const [from, batchSize] of replays) {
      await target.db.updateTable('projection_checkpoints').set({ position: from }).where('name', '=', 'main').execute();
      await (batchSize === 500 ? projector : project(target.db, batchSize)).catchUp();
      const after = await dumpReadModels(target.db);
      expect(after, `replay from ${from} in batches of ${batchSize}`).toEqual(oneByOne);
    }
    expect(await checkpointOf(target.db)).toBe(head);
  });

  it('resumes after a restart: a new projector on the same database continues from the checkpoint', async () => {
    const target = await fresh();
    // Stop at append boundaries (a reader never sees half a commit), in thirds.
    const cut1 = boundaries[Math.floor(boundaries.length / 3)] ?? 0;
    const cut2 = boundaries[Math.floor((2 * boundaries.length) / 3)] ?? 0;
    let done = 0;
    for (const cut of [cut1, cut2, head]) {
      await copyEvents(source!.db, target.db, done, cut);
      done = cut;
      const projector = project(target.db, 4);
      await projector.catchUp();
      expect(projector.position()).toBe(cut);
    }
    expect(await dumpReadModels(target.db)).toEqual(oneByOne);
  });

  it('applies each event once when two projectors, each with its own subscription, share one checkpoint', async () => {
    const target = await fresh();
    await copyEvents(source!.db, target.db, 0, head);
    const applied: number[] = [];
    const counting: Projection = { name: 'count', apply: async (_trx, events) => void applied.push(...events.map((e) => e.globalPosition)) };
    const two = [4, 7].map((batchSize) => createProjector(target.db, new PostgresEventStore(target.db), [...projections, counting], { batchSize }));
    await Promise.all(two.map((p) => p.catchUp()));
    await Promise.all(two.map((p) => p.catchUp()));
    expect([...applied].sort((a, b) => a - b)).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    expect(two.map((p) => p.position())).toEqual([head, head]);
    expect(await dumpReadModels(target.db)).toEqual(oneByOne);
  });

  it('resumes after a running projector is stopped after its second batch', async () => {
    const target = await fresh();
    await copyEvents(source!.db, target.db, 0, head);
    let batches = 0;
    const first = createProjector(target.db, new PostgresEventStore(target.db), projections, {
      batchSize: 5,
      pollIntervalMs: 60_000,
      // Stopping from the commit callback ends the loop before it takes a third batch.
      onAdvance: () => {
        batches += 1;
        if (batches === 2) void first.stop();
      },
    });
    first.start();
    await expect.poll(() => batches, { timeout: 10_000 }).toBe(2);
    await first.stop();
    expect(first.position()).toBe(10);
    expect(await checkpointOf(target.db)).toBe(10);
    const second = project(target.db, 5);
    await second.catchUp();
    expect(second.position()).toBe(head);
    expect(await dumpReadModels(target.db)).toEqual(oneByOne);
  });

  it('resumes after a projector dies in the middle of a batch: the failed batch rolls back and is projected again', async () => {
    const target = await fresh();
    await copyEvents(source!.db, target.db, 0, head);
    let batches = 0;
    // Runs after the real projections in the same transaction: they have written, the checkpoint has not moved.
    const crashOnThirdBatch: Projection = {
      name: 'crash',
      apply: async () => {
        batches += 1;
        if (batches === 3) throw new Error('process died');
      },
    };
    await expect(
      createProjector(target.db, new PostgresEventStore(target.db), [...projections, crashOnThirdBatch], { batchSize: 7 }).catchUp(),
    ).rejects.toThrow('process died');
    expect(await checkpointOf(target.db)).toBe(14);
    const second = project(target.db, 7);
    await second.catchUp();
    expect(second.position()).toBe(head);
    expect(await dumpReadModels(target.db)).toEqual(oneByOne);
  });

  it('moves the checkpoint in one statement a batch and writes every earlier alert a batch changed in one update', async () => {
    const events = await new PostgresEventStore(source!.db).readAll(0, head);
    const alertOf = (e: RecordedEvent) => String(e.data.alert_id);
    /** The alerts received up to `cut` that events after it change. */
    const changedAfter = (cut: number) => {
      const received = new Set(events.filter((e) => e.type === 'alert.received' && e.globalPosition <= cut).map(alertOf));
      return new Set(events.filter((e) => e.globalPosition > cut && e.type.startsWith('alert.') && received.has(alertOf(e))).map(alertOf));
    };
    const cut = boundaries.find((b) => changedAfter(b).size > 1);
    expect(cut, 'the history changes several alerts after they were received').toBeDefined();
    const target = await fresh();
    await copyEvents(source!.db, target.db, 0, cut!);
    await project(target.db, 500).catchUp();
    await copyEvents(source!.db, target.db, cut!, head);

    const seen: string[] = [];
    await project(recording(target.db, seen), 500).catchUp();
    // The first is the projector's `insert … on conflict do nothing` of its checkpoint row.
    expect(seen.filter((q) => q.includes('projection_checkpoints'))).toHaveLength(2);
    const updatesAlerts = (q: string) => q.includes('update alerts') || (q.startsWith('{"kind":"UpdateQueryNode"') && q.includes('"name":"alerts"'));
    expect(seen.filter(updatesAlerts)).toHaveLength(1);
    expect(await dumpReadModels(target.db)).toEqual(oneByOne);
  });

  /** One database, batches of 500: what each batch holds is chosen by the appends between catch-ups. */
  describe('both paths of the batched upserts', () => {
    let opened: Opened;
    let store: PostgresEventStore;
    const h = new History();
    let appended = 0;
    /** Appends what `h` gained since the last call, through the store. */
    const appendNew = async () => {
      for (const writes of h.appends.slice(appended)) await store.appendMany(writes);
      appended = h.appends.length;
    };
    const X = uuid(0x1c1);
    const Y = uuid(0x1c2);
    const ax = { id: uuid(0x1a1), source: 'sentinel', externalId: 'x-1', title: 'X first', severity: 'low', key: 'k:x', t: 1 };
    const ax2 = { id: uuid(0x1a2), source: 'sentinel', externalId: 'x-2', title: 'X second', severity: 'high', key: 'k:x', t: 2 };
    const ay = { id: uuid(0x1a3), source: 'sentinel', externalId: 'y-1', title: 'Y first', severity: 'medium', key: 'k:y', t: 10 };

    beforeAll(async () => {
      opened = await fresh();
      store = new PostgresEventStore(opened.db);
    });
    afterAll(async () => {
      await store.settle();
    });

    it('inserts a case opened and fed alerts in one batch, with its alerts received and linked in it', async () => {
      intakeNewCase(h, ax, { id: X, number: 101 });
      intakeCorrelated(h, ax2, { id: X, number: 101 });
      repeatAlert(h, ax, 3);
      await appendNew();
      const projector = project(opened.db, 500);
      await projector.catchUp();
      expect(projector.position()).toBe(await store.headPosition());

      const cases = await opened.db.selectFrom('cases').selectAll().execute();
      expect(cases).toHaveLength(1);
      expect(cases[0]).toMatchObject({ id: X, key: 'SEC-101', alert_count: 2, last_alert_at: new Date(at(2)), updated_at: new Date(at(2)), version: 3 });
      const alertRows = await opened.db.selectFrom('alerts').selectAll().orderBy('external_id').execute();
      expect(alertRows.map((a) => [a.external_id, a.status, a.case_id, a.repeat_count, a.version])).toEqual([
        ['x-1', 'linked', X, 1, 3],
        ['x-2', 'linked', X, 0, 2],
      ]);
      expect(alertRows[0]?.last_seen_at).toEqual(new Date(at(3)));
      expect(await opened.db.selectFrom('case_timeline').select('kind').where('case_id', '=', X).orderBy('event_position').execute()).toEqual([
        { kind: 'opened' },
        { kind: 'alert_appended' },
        { kind: 'alert_appended' },
      ]);
    });

    it('updates an existing case and alert and inserts a new case and alert in one batch', async () => {
      // X exists already; Y is new. One multi-row upsert carries both.
      caseWork(h, X, user(ANA), [
        { type: 'case.status_changed', data: { case_id: X, from: 'new', to: 'resolved', note: null, at: at(4) } },
        { type: 'case.comment_added', data: { case_id: X, comment_id: uuid(0x1d1), body: 'done', author_id: ANA.id, author_email: ANA.email, at: at(5) } },
      ]);
      repeatAlert(h, ax, 6);
      repeatAlert(h, ax2, 7);
      repeatAlert(h, ax, 8);
      intakeNewCase(h, ay, { id: Y, number: 102 });
      caseWork(h, Y, user(BOB), [{ type: 'case.updated', data: { case_id: Y, changes: { tags: ['new'] }, at: at(11) } }]);
      repeatAlert(h, ay, 12);
      caseWork(h, X, user(ANA), [{ type: 'case.updated', data: { case_id: X, changes: { tags: ['b', 'a'], title: 'X renamed' }, at: at(13) } }]);
      await appendNew();
      const before = await store.headPosition();
      const projector = project(opened.db, 500);
      await projector.catchUp();
      expect(projector.position()).toBe(before);

      const cases = await opened.db.selectFrom('cases').selectAll().orderBy('key').execute();
      expect(cases.map((c) => [c.key, c.status, c.alert_count, c.tags, c.title, c.version])).toEqual([
        ['SEC-101', 'resolved', 2, ['b', 'a'], 'X renamed', 6],
        ['SEC-102', 'new', 1, ['new'], 'Y first', 3],
      ]);
      expect(cases[0]).toMatchObject({
        resolved_at: new Date(at(4)),
        updated_at: new Date(at(13)),
        created_at: new Date(at(1)),
        last_alert_at: new Date(at(2)),
      });
      const alertRows = await opened.db.selectFrom('alerts').selectAll().orderBy('external_id').execute();
      expect(alertRows.map((a) => [a.external_id, a.status, a.case_id, a.repeat_count, a.version, a.last_seen_at.toISOString()])).toEqual([
        ['x-1', 'linked', X, 3, 5, at(8)],
        ['x-2', 'linked', X, 1, 3, at(7)],
        ['y-1', 'linked', Y, 1, 3, at(12)],
      ]);
      // The payload of an alert updated in place (loaded without it) is kept.
      expect(alertRows[0]?.payload).toEqual({ external: 'x-1', nested: { user: 'ana@example.com', hits: [1, 2, 3] } });
      expect(await opened.db.selectFrom('case_comments').select(['id', 'case_id', 'body']).execute()).toEqual([{ id: uuid(0x1d1), case_id: X, body: 'done' }]);
    });

    it('leaves both rows alone when the same mixed batch is applied again', async () => {
      const before = await dumpReadModels(opened.db);
      await opened.db.updateTable('projection_checkpoints').set({ position: 0 }).where('name', '=', 'main').execute();
      await project(opened.db, 500).catchUp();
      expect(await dumpReadModels(opened.db)).toEqual(before);
    });
  });
});
