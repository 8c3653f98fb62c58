/**
 * The case report's data (domain/reports/case-report.ts; docs/configuration.md "Case
 * report"), read from the read models, every list in a fixed order so the same case gives
 * the same report:
 * - the case's own timeline (not its merged sources'), by event position;
 * - tasks by position; observables (hand-added and from alerts) by type and value, each with
 *   the reputation verdicts (`enrich.reputation_*` step outputs) of the runs of the case and
 *   of the cases merged into it whose indicator was that value;
 * - evidence pins by when they were pinned, an attachment pin with the file's sha256;
 * - approval gates, containment effects and runs of the case and its merged sources, each
 *   run with its action-log rows recomputed (hash, and link to the chain row before it).
 */
import { sql, type Kysely } from 'kysely';
import type { CaseReport } from '../../domain/reports/case-report.ts';
import { chainHashOfText, GENESIS_HASH } from '../../domain/shared/hash-chain.ts';
import { caseFamily, type CaseRow } from '../cases/cases.queries.ts';
import { nativeSha256Hex } from '../chains/chain-table.ts';
import type { Database } from '../database.ts';

const iso = (at: Date | string) => new Date(at).toISOString();
const isoOrNull = (at: Date | string | null) => (at === null ? null : iso(at));

/** The report of case `row` (already checked visible to the reader). */
export async function caseReport(db: Kysely<Database>, row: CaseRow): Promise<CaseReport> {
  const family = await caseFamily(db, row.id);
  const [timeline, tasks, observables, pins, gates, effects, runs, verdicts] = await Promise.all([
    db.selectFrom('case_timeline').select(['kind', 'actor_email', 'actor_id', 'at']).where('case_id', '=', row.id).orderBy('event_position').execute(),
    db
      .selectFrom('case_tasks')
      .select(['title', 'phase', 'status', 'assignee_email', 'due_at'])
      .where('case_id', '=', row.id)
      .orderBy('position')
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db.selectFrom('case_observables_present').select(['type', 'value', 'source']).where('case_id', '=', row.id).orderBy('type').orderBy('normalized').execute(),
    db
      .selectFrom('case_evidence as e')
      .leftJoin('case_attachments as f', (join) =>
        join.on(sql`f.id::text`, '=', sql`e.ref_id`).on('e.kind', '=', 'attachment').onRef('f.case_id', '=', 'e.case_id'),
      )
      .select(['e.kind', 'e.ref_id', 'e.url', 'e.note', 'e.pinned_by', 'e.pinned_at', 'f.sha256'])
      .where('e.case_id', '=', row.id)
      .orderBy('e.event_position')
      .execute(),
    db
      .selectFrom('run_gates as g')
      .innerJoin('runs as r', 'r.id', 'g.run_id')
      .select(['g.run_id', 'g.step_id', 'g.status', 'g.opened_at', 'g.decided_by', 'g.decided_at'])
      .where('r.case_id', 'in', family)
      .orderBy('g.opened_at')
      .orderBy('g.run_id')
      .orderBy('g.step_id')
      .execute(),
    db
      .selectFrom('effects')
      .select(['id', 'effect_type', 'target_type', 'target', 'status', 'ttl_seconds', 'applied_at', 'expires_at', 'reversed_at'])
      .where('case_id', 'in', family)
      .orderBy('requested_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('runs')
      .select(['id', 'runbook_id', 'runbook_version', 'status', 'queued_at', 'finished_at'])
      .where('case_id', 'in', family)
      .where('dry_run', '=', false)
      .orderBy('queued_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('run_steps as s')
      .innerJoin('runs as r', 'r.id', 's.run_id')
      .select(['s.run_id', 's.step_id', 's.output', 's.finished_at'])
      .where('r.case_id', 'in', family)
      .where(sql<boolean>`s.output ? 'indicator' and s.output ? 'verdict'`)
      .orderBy('s.finished_at')
      .orderBy('s.run_id')
      .orderBy('s.step_id')
      .execute(),
  ]);
  const chains = await runChains(
    db,
    runs.map((r) => r.id),
  );
  return {
    report_version: 1,
    case: {
      id: row.id,
      key: row.key,
      title: row.title,
      description: row.description,
      severity: row.severity,
      status: row.status,
      team: row.team,
      private: row.private,
      owner_email: row.owner_email,
      tags: row.tags,
      custom_fields: row.custom_fields,
      opened_at: iso(row.created_at),
      acknowledged_at: isoOrNull(row.acknowledged_at),
      acknowledged_by: row.acknowledged_by,
      resolved_at: isoOrNull(row.resolved_at),
      closed_at: isoOrNull(row.closed_at),
      updated_at: iso(row.updated_at),
      merged_into: row.merged_into,
      merged_from: row.merged_from,
    },
    attack_techniques: row.attack_techniques,
    timeline: timeline.map((t) => ({ at: iso(t.at), kind: t.kind, actor: t.actor_email ?? t.actor_id })),
    tasks: tasks.map((t) => ({ title: t.title, phase: t.phase, status: t.status, assignee_email: t.assignee_email, due_at: isoOrNull(t.due_at) })),
    observables: observables.map((o) => ({
      type: o.type,
      value: o.value,
      source: o.source === 'alert' ? ('alert' as const) : ('manual' as const),
      verdicts: verdicts
        .filter((s) => String((s.output as { indicator?: unknown }).indicator ?? '').toLowerCase() === o.value.toLowerCase())
        .map((s) => {
          const out = s.output as { verdict?: unknown; score?: unknown };
          return {
            verdict: String(out.verdict),
            score: typeof out.score === 'number' ? out.score : null,
            run_id: s.run_id,
            step_id: s.step_id,
            at: isoOrNull(s.finished_at),
          };
        }),
    })),
    evidence: pins.map((p) => ({
      kind: p.kind,
      ref_id: p.ref_id,
      url: p.url,
      note: p.note,
      pinned_by: p.pinned_by,
      pinned_at: iso(p.pinned_at),
      sha256: p.sha256 ?? null,
    })),
    approvals: gates.map((g) => ({
      run_id: g.run_id,
      step_id: g.step_id,
      status: g.status,
      opened_at: iso(g.opened_at),
      decided_by: g.decided_by,
      decided_at: isoOrNull(g.decided_at),
    })),
    effects: effects.map((e) => ({
      id: e.id,
      effect_type: e.effect_type,
      target_type: e.target_type,
      target: e.target,
      status: e.status,
      ttl_seconds: Number(e.ttl_seconds),
      applied_at: isoOrNull(e.applied_at ?? null),
      expires_at: isoOrNull(e.expires_at ?? null),
      reversed_at: isoOrNull(e.reversed_at ?? null),
    })),
    runs: runs.map((r) => ({
      id: r.id,
      runbook_id: r.runbook_id,
      runbook_version: r.runbook_version,
      status: r.status,
      queued_at: iso(r.queued_at),
      finished_at: isoOrNull(r.finished_at),
      chain: chains.get(r.id) ?? { valid: true, rows: 0 },
    })),
  };
}

/**
 * Each run's action-log rows recomputed: a row is sound when its hash is the hash of its
 * previous hash and its stored text, and its previous hash is the hash of the chain row
 * before it (or the genesis hash for the first row). Other runs' rows sit between a run's,
 * so a run is checked row by row rather than as a chain of its own.
 */
async function runChains(db: Kysely<Database>, runIds: string[]): Promise<Map<string, { valid: boolean; rows: number }>> {
  const result = new Map<string, { valid: boolean; rows: number }>();
  if (runIds.length === 0) return result;
  const rows = await db
    .selectFrom('action_log as a')
    .leftJoin('action_log as p', (join) => join.on(sql`p.chain_index`, '=', sql`a.chain_index - 1`))
    .select(['a.run_id', sql<string>`a.row::text`.as('text'), 'a.prev_hash', 'a.hash', 'a.chain_index', 'p.hash as before'])
    .where('a.run_id', 'in', runIds)
    .orderBy('a.chain_index')
    .execute();
  for (const r of rows) {
    const linked = r.prev_hash === (Number(r.chain_index) === 0 ? GENESIS_HASH : r.before);
    const sound = linked && r.hash === chainHashOfText(r.prev_hash, r.text, nativeSha256Hex);
    const seen = result.get(r.run_id) ?? { valid: true, rows: 0 };
    result.set(r.run_id, { valid: seen.valid && sound, rows: seen.rows + 1 });
  }
  return result;
}
