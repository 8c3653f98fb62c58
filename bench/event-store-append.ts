/**
 * `make bench`: event-store appends through the port (../shared/BENCH.md row "event-store
 * append", target >= 0.7x), next to a baseline measured in the same run on the same
 * database: raw multi-row INSERTs into a table of the events table's shape.
 *
 * The port (adapters/event-store/postgres.ts, the store every process uses on either
 * engine): BENCH_APPEND_EVENTS (20,000) events appended by BENCH_APPEND_WRITERS (64)
 * concurrent writers, each appending one event at a time at its stream's next version
 * (the expected version checked, as every command does), ten events a stream. Every
 * event carries an intake-sized payload (an alert as `alert.received` holds it, about
 * 700 bytes of JSON) and actor metadata. Events per second from the first append to the
 * last answer. The writers' appends meet in the store's group commit: what arrives while a
 * batch is written goes in the next one, one `svc_append` statement each.
 * Baseline: the same events as INSERTs of 100 rows each (the ~45k rows/s of BENCH.md's
 * notes), from 4 concurrent connections, into `bench_events`, made `like events` with its
 * indexes and constraints and a sequence of its own. No version check, no lock, no ordered
 * commit: the least the same rows cost.
 *
 * The database is fresh and migrated, with no projector or worker on it (bench-service.ts
 * `openBenchDatabase`), so the figure is the store's alone. Prints medians of BENCH_ROUNDS
 * rounds as `name value baseline ratio target`. Engine: PGlite in a temp dir, or a fresh
 * database on the server of DATABASE_URL (dropped afterwards).
 *
 * First figures (2026-11-29, session 13; 3 rounds): 0.36x on a server (19.7k events/s
 * against 54.5k) and 0.44x on PGlite (11.8k against 26.7k). The service's thread was
 * three quarters idle: the batch's statement was the cost. `svc_append` (migration 0039)
 * ran a conflict check, a write loop and an INSERT per request in PL/pgSQL; timed alone
 * on a server it took 42-56 µs an event in batches of 64 and 75 µs in batches of 256,
 * where a multi-row INSERT of the same events took 24-27. Migration 0040 decides a batch
 * of distinct streams in one set-based statement (30-34 and 27 µs), which PostgreSQL had
 * JIT-compiled on every call (about 500 ms) until the function turned JIT off for itself.
 * Then: 0.53x on a server (22.5k against 42.2k) and 0.58x on PGlite (14.5k against 25.0k).
 * More writers do not close the rest (128 and 256 writers: 0.50x and 0.52x): appends are
 * serialized by the append lock, which keeps positions committing in order (docs/architecture.md
 * "Write path", the gap problem), so the port's batches run one at a time on one server CPU while
 * the baseline's four connections use both. Intake and steps/s did not move beyond their
 * noise with 0040 (alternating runs): there the appender is not what the thread waits on.
 *
 * A second batch in flight on a server (2026-11-29, session 14; tried, not kept): while
 * one batch runs, the next is sent on another connection and waits for the append lock
 * there, so the round trip and the client's work would hide behind the first. 0.41x and
 * 0.44x against 0.42x and 0.41x with one batch (3-round runs, alternating): the batches'
 * own time under the lock on the server's one CPU is the limit, not what surrounds it.
 */
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { PostgresEventStore } from '../adapters/event-store/postgres.ts';
import type { NewEvent } from '../adapters/event-store/port.ts';
import type { Database } from '../projections/database.ts';
import { benchLine, median, openBenchDatabase, printReport, runBench } from './bench-service.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const eventCount = Number(process.env.BENCH_APPEND_EVENTS ?? 20_000);
const writers = Number(process.env.BENCH_APPEND_WRITERS ?? 64);
const EVENTS_PER_STREAM = 10;
const BASELINE_ROWS_PER_INSERT = 100;
const BASELINE_CONNECTIONS = 4;

/** The `n`th event of a round: an alert as intake records it. */
function eventOf(round: number, n: number): NewEvent {
  return {
    type: 'alert.received',
    data: {
      alert_id: `append-${round}-${n}`,
      source: 'detector',
      external_id: `det-${round}-${n}`,
      rule: { id: `rule-${n % 20}`, title: `Bench rule ${n % 20}`, severity: 'medium', technique: 'T1110' },
      received_at: '2026-11-29T10:00:00.000Z',
      payload: {
        alert_id: `det-${round}-${n}`,
        rule: { id: `rule-${n % 20}`, title: `Bench rule ${n % 20}`, severity: 'medium' },
        matched_log: { source: { ip: `198.51.100.${n % 250}`, port: 51000 + (n % 1000) }, user: { name: `user${n % 50}` }, host: { name: `host-${n % 40}` } },
        message: 'Multiple failed logins followed by a success from the same source address',
      },
      observables: [{ type: 'ip', value: `198.51.100.${n % 250}` }],
    },
    metadata: { actor: { id: null, email: null, kind: 'webhook' }, correlation_id: `corr-${round}-${n}` },
  };
}

/** Appends every event of the round through the port, each writer to streams of its own; events per second. */
async function portRound(store: PostgresEventStore, round: number): Promise<number> {
  const writer = async (w: number) => {
    for (let k = 0, n = w; n < eventCount; k++, n += writers) {
      await store.append(`bench-${round}-${w}-${Math.floor(k / EVENTS_PER_STREAM)}`, [eventOf(round, n)], k % EVENTS_PER_STREAM);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
  return eventCount / ((performance.now() - started) / 1000);
}

/** Inserts the same events as 100-row INSERTs from 4 connections; rows per second. */
async function baselineRound(db: Kysely<Database>, round: number): Promise<number> {
  const batches = Math.ceil(eventCount / BASELINE_ROWS_PER_INSERT);
  let next = 0;
  const inserter = async () => {
    for (let b = next++; b < batches; b = next++) {
      const rows = [];
      for (let n = b * BASELINE_ROWS_PER_INSERT; n < Math.min(eventCount, (b + 1) * BASELINE_ROWS_PER_INSERT); n++) {
        const e = eventOf(round, n);
        rows.push(
          sql`(${`base-${round}-${Math.floor(n / EVENTS_PER_STREAM)}`}, ${(n % EVENTS_PER_STREAM) + 1}, ${e.type}, ${JSON.stringify(e.data)}::jsonb, ${JSON.stringify(e.metadata)}::jsonb)`,
        );
      }
      await sql`insert into bench_events (stream_id, stream_version, type, data, metadata) values ${sql.join(rows)}`.execute(db);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: BASELINE_CONNECTIONS }, inserter));
  return eventCount / ((performance.now() - started) / 1000);
}

async function main() {
  const opened = await openBenchDatabase();
  try {
    await sql`create sequence bench_events_position`.execute(opened.db);
    await sql`create table bench_events (like events including all)`.execute(opened.db);
    await sql`alter table bench_events alter column global_position set default nextval('bench_events_position')`.execute(opened.db);
    const store = new PostgresEventStore(opened.db);
    const port: number[] = [];
    const base: number[] = [];
    for (let round = 0; round < rounds; round++) {
      base.push(await baselineRound(opened.db, round));
      port.push(await portRound(store, round));
    }
    const { rows } = await sql<{ events: number }>`select count(*)::int as events from events`.execute(opened.db);
    if (rows[0]?.events !== eventCount * rounds) throw new Error(`expected ${eventCount * rounds} events in the store, found ${rows[0]?.events}`);
    printReport(`engine=${opened.engine} events=${eventCount} writers=${writers} events_per_stream=${EVENTS_PER_STREAM} rounds=${rounds}`, [
      benchLine('event_store_append_events_per_s', median(port), median(base), '>= 0.7x'),
    ]);
  } finally {
    await opened.close();
  }
}

runBench(main);
