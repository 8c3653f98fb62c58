/**
 * Case merge (docs/configuration.md "Case merge and split"; issue 50): `merge` moves
 * what the source cases hold into the target in one atomic `appendMany`, at the stream
 * versions read, decided again on a conflict:
 * - alerts move (each alert stream links to the target; each case follows), and the
 *   observables they carry follow them;
 * - hand-added observables move (removed from the source's stream, added to the
 *   target's unless the target has that (type, normalized value) already);
 * - tasks move with their comments (`task.moved`);
 * - comments, attachments (the same stored file) and evidence pins are copied, each
 *   naming where it came from, pins pointing at the target's copy of their item;
 * - each source takes the merged status and points at the target (`case.merged`); the
 *   target records its new family (`case.merge_received`); a `case.merge` audit entry
 *   names the target and the sources (the reason is free text: it stays on the events).
 * A source already merged into the target is skipped, so a repeated request merges
 * nothing more. Run references and ticket links stay on the source: the target reads the
 * runs of its family.
 *
 * The sub-resource lists come from the read models, read after the projections reached
 * the store's head and after the source versions were read: whatever the case streams
 * gain after that read conflicts on append and is read again.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { alertDecider } from '../../domain/alerts/index.ts';
import type { MergeCopies } from '../../domain/cases/commands.ts';
import type { EvidenceKind } from '../../domain/cases/evidence.ts';
import { caseDecider, type Actor, type CaseCommand, type CaseState } from '../../domain/cases/index.ts';
import { mergedPinRef } from '../../domain/cases/merge.ts';
import { observableDecider } from '../../domain/observables/index.ts';
import { notFound } from '../../domain/shared/errors.ts';
import { streams } from '../../domain/shared/streams.ts';
import { taskDecider } from '../../domain/tasks/index.ts';
import type { AuditActor } from '../../domain/audit/events.ts';
import type { Database } from '../../projections/database.ts';
import type { EventStore } from '../event-store/port.ts';
import { retryOnConflict } from './aggregate.ts';
import type { AuditLog } from './audit.ts';
import type { CaseConfig } from './case-config.ts';
import { actorMetadata } from './cases.ts';
import { alertStreamOf } from './intake.ts';
import { observableStreamOf } from './observables.ts';
import { createUnitOfWork } from './unit-of-work.ts';

export type CaseMergeDeps = {
  store: EventStore;
  db: Kysely<Database>;
  config: CaseConfig;
  ids: () => string;
  now: () => Date;
  /** Resolves once the projections reached `position`. */
  waitFor: (position: number | null) => Promise<void>;
  audit: Pick<AuditLog, 'write'>;
};

/** What a merge did: the sources it merged now (not those merged before), and the last position written (null: nothing). */
export type MergeOutcome = { merged: string[]; position: number | null };

/** The id `case_observables_present` gives an observable an alert brings to a case: md5 of (case, type, normalized) read as a UUID (migration 0014). */
export function derivedObservableId(caseId: string, type: string, normalized: string): string {
  const h = createHash('md5').update(`${caseId}|${type}|${normalized}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

type Existing = Extract<CaseState, { exists: true }>;

export function createCaseMergeCommands(deps: CaseMergeDeps) {
  const { store, db } = deps;

  /** Everything a source holds in the read models, read in one go. */
  const holdings = async (caseId: string) => {
    const [alerts, observables, comments, attachments, pins, tasks, derived] = await Promise.all([
      db.selectFrom('alerts').select(['id', 'source', 'external_id', 'title', 'severity']).where('case_id', '=', caseId).orderBy('received_at').execute(),
      db
        .selectFrom('case_observables')
        .select(['id', 'type', 'value', 'normalized'])
        .where('case_id', '=', caseId)
        .where('removed_at', 'is', null)
        .orderBy('created_at')
        .execute(),
      db.selectFrom('case_comments').selectAll().where('case_id', '=', caseId).where('deleted_at', 'is', null).orderBy('created_at').orderBy('id').execute(),
      db.selectFrom('case_attachments').selectAll().where('case_id', '=', caseId).orderBy('event_position').execute(),
      db.selectFrom('case_evidence').selectAll().where('case_id', '=', caseId).orderBy('event_position').execute(),
      db.selectFrom('case_tasks').select('id').where('case_id', '=', caseId).orderBy('position').execute(),
      db.selectFrom('case_observables_present').select(['id', 'type', 'normalized']).where('case_id', '=', caseId).where('source', '=', 'alert').execute(),
    ]);
    return { alerts, observables, comments, attachments, pins, tasks, derived };
  };

  return {
    /**
     * Merges `sourceIds` into `targetId` (the caller checked access and reach), audited as
     * done by `by`. 404
     * `case_not_found` for a case that does not exist; 409 `case_already_merged` when the
     * target or a source was merged into another case; 422 `case_merge_self` for the
     * target among the sources.
     */
    merge: (targetId: string, sourceIds: string[], reason: string, actor: Actor, by: AuditActor): Promise<MergeOutcome> =>
      retryOnConflict(async () => {
        const at = deps.now().toISOString();
        const metadata = actorMetadata(actor, 'user');
        // Every decision is staged in one unit and appended at the versions it read; the case streams are read first, before the read models.
        const unit = createUnitOfWork(store);
        const caseOf = async (caseId: string): Promise<Existing> => {
          const state = await unit.state(streams.case(caseId), caseDecider);
          if (!state.exists) throw notFound('case_not_found', 'case not found', { case_id: caseId });
          return state;
        };
        const onCase = (caseId: string, command: CaseCommand) => unit.decide(streams.case(caseId), caseDecider, () => command, metadata);
        const target = await caseOf(targetId);
        const sources = await Promise.all(sourceIds.map(caseOf));
        // Decided first, so a refused source (merged elsewhere, the target itself) refuses the whole merge before anything is read.
        const mergeInto: CaseCommand = { type: 'merge_into', targetId, targetKey: target.key, mergedStatus: deps.config.mergedStatus, reason, now: at };
        const moving = sources.filter((s) => caseDecider.decide(mergeInto, s).length > 0);
        // An empty family decides nothing but still refuses a target that was merged itself.
        caseDecider.decide({ type: 'receive_merge', sources: [], reason, copies: { comments: [], attachments: [], pins: [] }, now: at }, target);
        if (moving.length === 0) return { merged: [], position: null };

        await deps.waitFor(await store.headPosition());
        const targetObservables = await db
          .selectFrom('case_observables')
          .select(['id', 'type', 'normalized'])
          .where('case_id', '=', targetId)
          .where('removed_at', 'is', null)
          .execute();
        const manualOnTarget = new Map(targetObservables.map((o) => [`${o.type}\u0000${o.normalized}`, o.id]));
        const copies: MergeCopies = { comments: [], attachments: [], pins: [] };
        const appended: CaseCommand[] = [];
        const family: { case_id: string; key: string }[] = [];
        // Who the observable events name as having removed or added a value.
        const who = actor.email ?? actor.userId;

        for (const source of moving) {
          const sourceId = source.id;
          const held = await holdings(sourceId);
          family.push({ case_id: sourceId, key: source.key }, ...source.mergedFrom);

          for (const alert of held.alerts) {
            const linked = await unit.decide(
              alertStreamOf(alert),
              alertDecider,
              () => ({ type: 'link' as const, caseId: targetId, caseKey: target.key, now: at }),
              metadata,
            );
            if (linked.length === 0) continue;
            await onCase(sourceId, { type: 'remove_alert', alertId: alert.id, now: at });
            appended.push({ type: 'append_alert', alertId: alert.id, title: alert.title, severity: alert.severity, correlated: false, now: at });
          }

          const observableIds = new Map<string, string>();
          for (const o of held.observables) {
            const key = `${o.type}\u0000${o.normalized}`;
            const from = observableStreamOf(sourceId, o.type, o.normalized);
            await unit.decide(from, observableDecider, () => ({ type: 'remove' as const, observableId: o.id, caseId: sourceId, by: who, now: at }), metadata);
            const existing = manualOnTarget.get(key);
            if (existing !== undefined) {
              observableIds.set(o.id, existing);
              continue;
            }
            const id = deps.ids();
            const to = observableStreamOf(targetId, o.type, o.normalized);
            await unit.decide(
              to,
              observableDecider,
              () => ({ type: 'add' as const, observableId: id, caseId: targetId, kind: o.type, value: o.value, normalized: o.normalized, by: who, now: at }),
              metadata,
            );
            manualOnTarget.set(key, id);
            observableIds.set(o.id, id);
          }
          for (const d of held.derived) {
            observableIds.set(d.id, manualOnTarget.get(`${d.type}\u0000${d.normalized}`) ?? derivedObservableId(targetId, d.type, d.normalized));
          }

          for (const task of held.tasks) {
            await unit.decide(
              streams.task(task.id),
              taskDecider,
              () => ({ type: 'move_task' as const, caseId: sourceId, toCaseId: targetId, now: at }),
              metadata,
            );
          }

          for (const c of held.comments) {
            copies.comments.push({
              commentId: deps.ids(),
              body: c.body,
              authorId: c.author_id,
              authorEmail: c.author_email,
              mergedFrom: c.merged_from ?? { case_id: sourceId, id: c.id, at: new Date(c.created_at).toISOString() },
            });
          }
          const attachmentIds = new Map<string, string>();
          for (const a of held.attachments) {
            const attachmentId = deps.ids();
            attachmentIds.set(a.id, attachmentId);
            copies.attachments.push({
              attachmentId,
              filename: a.filename,
              contentType: a.content_type,
              size: Number(a.size),
              sha256: a.sha256,
              uploadedBy: a.uploaded_by,
              mergedFrom: { case_id: sourceId, id: a.id, at: new Date(a.uploaded_at).toISOString() },
            });
          }
          for (const p of held.pins) {
            const kind = p.kind as EvidenceKind;
            copies.pins.push({
              pinId: deps.ids(),
              kind,
              refId: mergedPinRef(kind, p.ref_id, { observable: observableIds, attachment: attachmentIds }),
              url: p.url,
              note: p.note,
              pinnedBy: p.pinned_by,
              mergedFrom: { case_id: sourceId, id: p.id, at: new Date(p.pinned_at).toISOString() },
            });
          }

          await onCase(sourceId, mergeInto);
        }

        await onCase(targetId, { type: 'receive_merge', sources: family, reason, copies, now: at });
        for (const command of appended) await onCase(targetId, command);

        const merged = moving.map((m) => m.id);
        const audited = deps.audit.write({
          action: 'case.merge',
          actor: by,
          target: { type: 'case', id: targetId },
          team: target.team,
          detail: { case_key: target.key, sources: merged },
        });
        const written = await store.appendMany([...unit.writes(), audited]);
        return { merged, position: written.lastPosition };
      }),
  };
}

export type CaseMergeCommands = ReturnType<typeof createCaseMergeCommands>;
