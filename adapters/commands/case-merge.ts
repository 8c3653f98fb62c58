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
import { caseDecider, type Actor, type CaseCommand, type CaseEvent, type CaseState } from '../../domain/cases/index.ts';
import { mergedPinRef } from '../../domain/cases/merge.ts';
import { observableDecider } from '../../domain/observables/index.ts';
import { notFound } from '../../domain/shared/errors.ts';
import { streams } from '../../domain/shared/streams.ts';
import { taskDecider } from '../../domain/tasks/index.ts';
import type { AuditActor } from '../../domain/audit/events.ts';
import type { Database } from '../../projections/database.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import { retryOnConflict } from './aggregate.ts';
import type { AuditLog } from './audit.ts';
import type { CaseConfig } from './case-config.ts';
import { actorMetadata } from './cases.ts';
import { alertStreamOf } from './intake.ts';
import { observableStreamOf } from './observables.ts';
import { streamStatesOf } from './stream-states.ts';

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

type Loaded = { state: Extract<CaseState, { exists: true }>; version: number };

export function createCaseMergeCommands(deps: CaseMergeDeps) {
  const { store, db } = deps;
  const loadCase = async (caseId: string): Promise<Loaded> => {
    const { state, version } = await streamStatesOf(store).load(streams.case(caseId), caseDecider);
    if (!state.exists) throw notFound('case_not_found', 'case not found', { case_id: caseId });
    return { state, version };
  };

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
        const target = await loadCase(targetId);
        const sources = await Promise.all(sourceIds.map(loadCase));
        // Decided first, so a refused source (merged elsewhere, the target itself) refuses the whole merge before anything is read.
        const mergeInto: CaseCommand = { type: 'merge_into', targetId, targetKey: target.state.key, mergedStatus: deps.config.mergedStatus, reason, now: at };
        const moving = sources.filter((s) => caseDecider.decide(mergeInto, s.state).length > 0);
        // An empty family decides nothing but still refuses a target that was merged itself.
        caseDecider.decide({ type: 'receive_merge', sources: [], reason, copies: { comments: [], attachments: [], pins: [] }, now: at }, target.state);
        if (moving.length === 0) return { merged: [], position: null };

        await deps.waitFor(await store.headPosition());
        const targetObservables = await db
          .selectFrom('case_observables')
          .select(['id', 'type', 'normalized'])
          .where('case_id', '=', targetId)
          .where('removed_at', 'is', null)
          .execute();
        const manualOnTarget = new Map(targetObservables.map((o) => [`${o.type}\u0000${o.normalized}`, o.id]));
        const writes: StreamWrite[] = [];
        const copies: MergeCopies = { comments: [], attachments: [], pins: [] };
        const alertEvents: CaseCommand[] = [];
        const family: { case_id: string; key: string }[] = [];

        for (const source of moving) {
          const sourceId = source.state.id;
          const held = await holdings(sourceId);
          family.push({ case_id: sourceId, key: source.state.key }, ...source.state.mergedFrom);
          const sourceEvents: CaseEvent[] = [];
          let sourceState: CaseState = source.state;
          const onSource = (command: CaseCommand) => {
            const decided = caseDecider.decide(command, sourceState);
            sourceState = decided.reduce(caseDecider.evolve, sourceState);
            sourceEvents.push(...decided);
          };

          for (const alert of held.alerts) {
            const streamId = alertStreamOf(alert);
            const loaded = await streamStatesOf(store).load(streamId, alertDecider);
            const linked = alertDecider.decide({ type: 'link', caseId: targetId, caseKey: target.state.key, now: at }, loaded.state);
            if (linked.length === 0) continue;
            writes.push({ streamId, events: linked.map((e) => ({ ...e, metadata })), expectedVersion: loaded.version });
            onSource({ type: 'remove_alert', alertId: alert.id, now: at });
            alertEvents.push({ type: 'append_alert', alertId: alert.id, title: alert.title, severity: alert.severity, correlated: false, now: at });
          }

          const observableIds = new Map<string, string>();
          for (const o of held.observables) {
            const key = `${o.type}\u0000${o.normalized}`;
            const by = actor.email ?? actor.userId;
            const from = observableStreamOf(sourceId, o.type, o.normalized);
            const fromLoaded = await streamStatesOf(store).load(from, observableDecider);
            const removed = observableDecider.decide({ type: 'remove', observableId: o.id, caseId: sourceId, by, now: at }, fromLoaded.state);
            writes.push({ streamId: from, events: removed.map((e) => ({ ...e, metadata })), expectedVersion: fromLoaded.version });
            const existing = manualOnTarget.get(key);
            if (existing !== undefined) {
              observableIds.set(o.id, existing);
              continue;
            }
            const to = observableStreamOf(targetId, o.type, o.normalized);
            const toLoaded = await streamStatesOf(store).load(to, observableDecider);
            const id = deps.ids();
            const added = observableDecider.decide(
              { type: 'add', observableId: id, caseId: targetId, kind: o.type, value: o.value, normalized: o.normalized, by, now: at },
              toLoaded.state,
            );
            writes.push({ streamId: to, events: added.map((e) => ({ ...e, metadata })), expectedVersion: toLoaded.version });
            manualOnTarget.set(key, id);
            observableIds.set(o.id, id);
          }
          for (const d of held.derived) {
            observableIds.set(d.id, manualOnTarget.get(`${d.type}\u0000${d.normalized}`) ?? derivedObservableId(targetId, d.type, d.normalized));
          }

          for (const task of held.tasks) {
            const streamId = streams.task(task.id);
            const loaded = await streamStatesOf(store).load(streamId, taskDecider);
            const moved = taskDecider.decide({ type: 'move_task', caseId: sourceId, toCaseId: targetId, now: at }, loaded.state);
            writes.push({ streamId, events: moved.map((e) => ({ ...e, metadata })), expectedVersion: loaded.version });
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

          onSource(mergeInto);
          writes.push({ streamId: streams.case(sourceId), events: sourceEvents.map((e) => ({ ...e, metadata })), expectedVersion: source.version });
        }

        let targetState: CaseState = target.state;
        const targetEvents: CaseEvent[] = [];
        for (const command of [{ type: 'receive_merge', sources: family, reason, copies, now: at } as CaseCommand, ...alertEvents]) {
          const decided = caseDecider.decide(command, targetState);
          targetState = decided.reduce(caseDecider.evolve, targetState);
          targetEvents.push(...decided);
        }
        writes.push({ streamId: streams.case(targetId), events: targetEvents.map((e) => ({ ...e, metadata })), expectedVersion: target.version });

        const merged = moving.map((m) => m.state.id);
        writes.push(
          deps.audit.write({
            action: 'case.merge',
            actor: by,
            target: { type: 'case', id: targetId },
            team: target.state.team,
            detail: { case_key: target.state.key, sources: merged },
          }),
        );
        const written = await store.appendMany(writes.filter((w) => w.events.length > 0));
        return { merged, position: written.lastPosition };
      }),
  };
}

export type CaseMergeCommands = ReturnType<typeof createCaseMergeCommands>;
