/**
 * Evidence pin queries (SPEC.md "Cases": `GET /cases/<case_id>/evidence`; the war-room's
 * pinned evidence). A pin's `ref` is a small summary of the item it references, read
 * from that item's own read model and limited to the pin's case:
 * - `timeline`: `{kind, at, actor}`;
 * - `observable`: `{type, value, removed}`;
 * - `attachment`: `{filename, content_type, size, sha256}` (size in bytes);
 * - `action_log`: `{run_id, step_id, action, status, finished_at}`;
 * - `link`: null (the pin carries `url`).
 */
import type { Kysely, Selectable } from 'kysely';
import type { EvidenceKind } from '../../domain/cases/evidence.ts';
import type { ActionLogRow } from '../../domain/runs/events.ts';
import { caseFamily } from '../cases/cases.queries.ts';
import type { CaseEvidenceTable, Database } from '../database.ts';

/** The summary of a pinned item, by the pin's kind (see the list above). */
export type EvidenceRef =
  | { kind: string; at: string; actor: string | null }
  | { type: string; value: string; removed: boolean }
  | { filename: string; content_type: string; size: number; sha256: string }
  | { run_id: string; step_id: string; action: string | null; status: string | null; finished_at: string | null };

/** A pin as the API answers it; times are RFC 3339. */
export type EvidenceItem = {
  id: string;
  case_id: string;
  kind: string;
  ref_id: string | null;
  url: string | null;
  note: string;
  pinned_by: string | null;
  pinned_at: string;
  /** Summary of the referenced item; null for a link, or when the item is not found. */
  ref: EvidenceRef | null;
};

type Summaries = Map<string, EvidenceRef>;

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const indexShape = /^\d{1,15}$/;

/** The pins of a case, newest first, at most `limit`, each with its `ref` summary. */
export async function listEvidence(db: Kysely<Database>, caseId: string, limit = 200): Promise<EvidenceItem[]> {
  return withSummaries(
    db,
    caseId,
    await db.selectFrom('case_evidence').selectAll().where('case_id', '=', caseId).orderBy('event_position', 'desc').limit(limit).execute(),
  );
}

/** Pin `id` of case `caseId` with its `ref` summary, or undefined. */
export async function findEvidence(db: Kysely<Database>, caseId: string, id: string): Promise<EvidenceItem | undefined> {
  const [item] = await withSummaries(db, caseId, await db.selectFrom('case_evidence').selectAll().where('case_id', '=', caseId).where('id', '=', id).execute());
  return item;
}

async function withSummaries(db: Kysely<Database>, caseId: string, pins: Selectable<CaseEvidenceTable>[]): Promise<EvidenceItem[]> {
  const byKind = new Map<string, string[]>();
  for (const p of pins) if (p.ref_id !== null) byKind.set(p.kind, [...(byKind.get(p.kind) ?? []), p.ref_id]);
  const summaries = new Map<string, Summaries>();
  for (const [kind, ids] of byKind) summaries.set(kind, await summarize(db, caseId, kind as EvidenceKind, ids));
  return pins.map((p) => ({
    id: p.id,
    case_id: p.case_id,
    kind: p.kind,
    ref_id: p.ref_id,
    url: p.url,
    note: p.note,
    pinned_by: p.pinned_by,
    pinned_at: new Date(p.pinned_at).toISOString(),
    ref: p.ref_id === null ? null : (summaries.get(p.kind)?.get(p.ref_id) ?? null),
  }));
}

/**
 * Whether `refId` names an item of case `caseId` that a `kind` pin may reference: a
 * timeline row of the case, a present (not removed) observable of the case, an
 * attachment of the case, or an action-log row of a run bound to the case. Timeline
 * rows and runs of the cases merged into it count as its own (caseFamily).
 */
export async function evidenceRefExists(db: Kysely<Database>, caseId: string, kind: EvidenceKind, refId: string): Promise<boolean> {
  const summary = (await summarize(db, caseId, kind, [refId])).get(refId);
  return summary !== undefined && !(kind === 'observable' && 'removed' in summary && summary.removed);
}

/** Summaries of the `kind` items `ids` of case `caseId`, by id; ids of another shape or case are absent. */
async function summarize(db: Kysely<Database>, caseId: string, kind: EvidenceKind, ids: string[]): Promise<Summaries> {
  const uuids = ids.filter((id) => uuidShape.test(id));
  const indexes = ids.filter((id) => indexShape.test(id)).map(Number);
  switch (kind) {
    case 'timeline': {
      if (indexes.length === 0) return new Map();
      const rows = await db
        .selectFrom('case_timeline')
        .select(['event_position', 'kind', 'at', 'actor_email', 'actor_id'])
        .where('case_id', 'in', await caseFamily(db, caseId))
        .where('event_position', 'in', indexes)
        .execute();
      return new Map(rows.map((r) => [String(r.event_position), { kind: r.kind, at: new Date(r.at).toISOString(), actor: r.actor_email ?? r.actor_id }]));
    }
    case 'observable': {
      if (uuids.length === 0) return new Map();
      // Hand-added observables keep their row once removed; one from an alert exists while the alert is linked.
      const [added, present] = await Promise.all([
        db.selectFrom('case_observables').select(['id', 'type', 'value', 'removed_at']).where('case_id', '=', caseId).where('id', 'in', uuids).execute(),
        db
          .selectFrom('case_observables_present')
          .select(['id', 'type', 'value'])
          .where('case_id', '=', caseId)
          .where('source', '=', 'alert')
          .where('id', 'in', uuids)
          .execute(),
      ]);
      return new Map([
        ...present.map((r): [string, EvidenceRef] => [r.id, { type: r.type, value: r.value, removed: false }]),
        ...added.map((r): [string, EvidenceRef] => [r.id, { type: r.type, value: r.value, removed: r.removed_at !== null }]),
      ]);
    }
    case 'attachment': {
      if (uuids.length === 0) return new Map();
      const rows = await db
        .selectFrom('case_attachments')
        .select(['id', 'filename', 'content_type', 'size', 'sha256'])
        .where('case_id', '=', caseId)
        .where('id', 'in', uuids)
        .execute();
      return new Map(rows.map((r) => [r.id, { filename: r.filename, content_type: r.content_type, size: Number(r.size), sha256: r.sha256 }]));
    }
    case 'action_log': {
      if (indexes.length === 0) return new Map();
      const rows = await db
        .selectFrom('action_log')
        .innerJoin('runs', 'runs.id', 'action_log.run_id')
        .select(['action_log.chain_index', 'action_log.run_id', 'action_log.step_id', 'action_log.row'])
        .where('runs.case_id', 'in', await caseFamily(db, caseId))
        .where('action_log.chain_index', 'in', indexes)
        .execute();
      return new Map(
        rows.map((r): [string, EvidenceRef] => {
          // A row is recorded in this shape (domain/audit/chain-rows.ts); a member a rewritten row lacks reads as null.
          const row = r.row as Partial<ActionLogRow>;
          return [
            String(r.chain_index),
            { run_id: r.run_id, step_id: r.step_id, action: row.action ?? null, status: row.status ?? null, finished_at: row.finished_at ?? null },
          ];
        }),
      );
    }
    case 'link':
      return new Map();
  }
}
