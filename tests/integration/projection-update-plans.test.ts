/**
 * The projections' batched updates (one statement for every alert, run or step row a
 * projector batch changed) find their rows by primary key on every engine. They join
 * the table to a JSON record set, which the planner takes for 100 rows; without the
 * `any` of the ids it scanned the whole table, so each batch cost more as history grew
 * (0.8 ms a statement on a server at about 4,600 runs, 2026-11-28).
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertRowsUpdate } from '../../projections/alerts/alerts.projection.ts';
import type { AlertRecord } from '../../projections/alerts/alert-row.ts';
import type { Database } from '../../projections/database.ts';
import { runRowsUpdate, stepRowsUpdate } from '../../projections/runs/runs.projection.ts';
import { engines } from '../support/engines.ts';

const ROWS = 3000;
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** The plan of `statement` as the database would run it, one text. */
async function planOf(db: Kysely<Database>, statement: { compile: (db: Kysely<Database>) => CompiledQuery }): Promise<string> {
  const compiled = statement.compile(db);
  const result = await db.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
  return result.rows.map((r) => Object.values(r).join(' ')).join('\n');
}

describe.each(engines)('batched projection updates on $name', (engine) => {
  let opened: Awaited<ReturnType<typeof engine.open>>;
  beforeAll(async () => {
    opened = await engine.open();
    const { db } = opened;
    await sql`
      insert into alerts (id, source, external_id, title, severity, status, payload, version, received_at, last_seen_at)
      select ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'detector', g::text, 'alert', 'low', 'new', '{}', 1, now(), now()
      from generate_series(1, ${ROWS}) as g`.execute(db);
    await sql`
      insert into runs (id, runbook_id, runbook_version, status, trigger_type, dry_run, queued_at)
      select ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'triage', 1, 'running', 'alert', false, now()
      from generate_series(1, ${ROWS}) as g`.execute(db);
    await sql`
      insert into run_steps (run_id, step_id, position, status, attempt)
      select ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 's' || s, s, 'pending', 0
      from generate_series(1, ${ROWS}) as g, generate_series(1, 3) as s`.execute(db);
    await sql`analyze alerts, runs, run_steps`.execute(db);
  }, 60_000);
  afterAll(async () => opened?.close());

  it('updates the alerts a batch changed by primary key', async () => {
    const rows = [7, 1900].map(
      (n) => ({ id: uuid(n), status: 'linked', case_id: uuid(1), repeat_count: 1, last_seen_at: new Date(), version: 2 }) as AlertRecord,
    );
    expect(await planOf(opened.db, alertRowsUpdate(rows))).not.toMatch(/Seq Scan on alerts/);
  });

  it('updates the runs a batch changed by primary key', async () => {
    const runs = new Map([7, 1900].map((n) => [uuid(n), { status: 'succeeded', finished_at: new Date().toISOString() }]));
    expect(await planOf(opened.db, runRowsUpdate(runs))).not.toMatch(/Seq Scan on runs/);
  });

  it('updates the steps a batch changed by primary key', async () => {
    const steps = [7, 1900].map((n) => ({ run_id: uuid(n), step_id: 's2', patch: { status: 'succeeded', attempt: 1 } }));
    expect(await planOf(opened.db, stepRowsUpdate(steps))).not.toMatch(/Seq Scan on run_steps/);
  });
});
