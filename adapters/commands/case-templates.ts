/**
 * Case template commands (SPEC.md "Cases": `POST /cases` with `template_id`,
 * `POST /cases/<id>/apply-template`). Each writes the case's events and one new stream
 * per added task in ONE atomic append, so a case never shows half a template.
 *
 * Apply is race-free: it decides against the case stream's version and the tasks
 * projected up to that version, and appends `case.template_applied` with that expected
 * version; a concurrent apply moves the case stream, so the loser retries against the
 * tasks the winner added. Applies of one case also take turns inside a process.
 */
import type { Kysely } from 'kysely';
import { planTemplate, type SlaSkippedReason } from '../../domain/case-templates/apply.ts';
import type { CaseTemplate } from '../../domain/case-templates/template.ts';
import { pendingTriageRecord } from '../../domain/ai/triage.ts';
import { caseDecider, type Actor, type CaseEvent, type CaseState } from '../../domain/cases/index.ts';
import { fold } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import { taskDecider, taskStatuses } from '../../domain/tasks/index.ts';
import type { Database } from '../../projections/database.ts';
import { caseTasks, nextTaskPosition } from '../../projections/tasks/tasks.queries.ts';
import { StreamVersionConflict, type EventStore, type StreamWrite } from '../event-store/port.ts';
import { conflictBackoff, MAX_CONFLICT_RETRIES } from './aggregate.ts';
import type { CaseConfig } from './case-config.ts';
import { actorMetadata, nextCaseNumber, openCaseCommand, type CaseOpening } from './cases.ts';
import { createKeyedMutex } from './keyed-mutex.ts';

export type CaseTemplateCommandDeps = {
  store: EventStore;
  db: Kysely<Database>;
  config: CaseConfig;
  ids: () => string;
  now: () => Date;
  /** Resolves once projections reached `position` (read-your-writes). */
  waitFor: (position: number | null) => Promise<void>;
};

export type NewCase = Omit<CaseOpening, 'caseId' | 'number'>;

export type TemplateApplied = {
  position: number;
  /** Ids of the tasks added, in template order. */
  added: string[];
  skipped: { phase: string; title: string }[];
  slaApplied: boolean;
  slaSkippedReason: SlaSkippedReason | null;
};

type PlannedTask = { taskId: string; phase: string; title: string; description: string | null; position: number };

export function createCaseTemplateCommands(deps: CaseTemplateCommandDeps) {
  const perCase = createKeyedMutex();

  const taskWrites = (caseId: string, tasks: PlannedTask[], actor: Actor, now: string): StreamWrite[] =>
    tasks.map((t) => {
      const events = taskDecider.decide(
        {
          type: 'create_task',
          taskId: t.taskId,
          caseId,
          title: t.title,
          description: t.description,
          phase: t.phase,
          position: t.position,
          status: taskStatuses[0],
          assignee: null,
          dueAt: null,
          actor,
          now,
        },
        taskDecider.initialState(),
      );
      return { streamId: streams.task(t.taskId), events: events.map((e) => ({ ...e, metadata: actorMetadata(actor, 'user') })), expectedVersion: 0 };
    });

  const applyEvents = (state: CaseState, template: CaseTemplate, tasks: PlannedTask[], skipped: { phase: string; title: string }[], now: string): CaseEvent[] =>
    caseDecider.decide(
      {
        type: 'apply_template',
        templateId: template.id,
        tasks: tasks.map(({ taskId, phase, title }) => ({ taskId, phase, title })),
        skipped,
        sla: template.sla,
        closedStatuses: deps.config.closedStatuses,
        now,
      },
      state,
    );

  return {
    /**
     * Opens a case with the template's tasks (positions 1.. in template order) and its SLA
     * policy, and a pending AI triage when the template sets `auto_ai_triage`. No acknowledgement.
     */
    open: async (input: NewCase, template: CaseTemplate, actor: Actor): Promise<{ caseId: string; position: number }> => {
      const caseId = deps.ids();
      const number = await nextCaseNumber(deps.db);
      const now = deps.now().toISOString();
      const opened = caseDecider.decide(openCaseCommand(deps.config, { caseId, number, ...input }, actor, now), caseDecider.initialState());
      const tasks = template.tasks.map((t, i) => ({ ...t, taskId: deps.ids(), position: i + 1 }));
      const applied = applyEvents(fold(caseDecider, opened), template, tasks, [], now);
      // The template's auto_ai_triage policy: a pending record, which queues the triage (projections/ai/auto-triage.projection.ts).
      const queued = template.autoAiTriage
        ? caseDecider.decide(
            { type: 'record_ai_triage', record: pendingTriageRecord(), requestedBy: actor.email, now },
            fold(caseDecider, [...opened, ...applied]),
          )
        : [];
      const metadata = actorMetadata(actor, 'user');
      const r = await deps.store.appendMany([
        { streamId: streams.case(caseId), events: [...opened, ...applied, ...queued].map((e) => ({ ...e, metadata })), expectedVersion: 0 },
        ...taskWrites(caseId, tasks, actor, now),
      ]);
      return { caseId, position: r.lastPosition };
    },

    /**
     * Adds the template's tasks the case lacks and its SLA policy when the case has none.
     * Errors: 404 `case_not_found`, 409 `case_closed`.
     */
    apply: (caseId: string, template: CaseTemplate, actor: Actor): Promise<TemplateApplied> =>
      perCase(caseId, async () => {
        for (let n = 0; ; n++) {
          const history = await deps.store.readStream(streams.case(caseId));
          const state = fold(caseDecider, history);
          await deps.waitFor(history.at(-1)?.globalPosition ?? null);
          const existing = await caseTasks(deps.db, caseId);
          const plan = planTemplate(template, existing, state.exists && state.slaPolicy !== null, await nextTaskPosition(deps.db, caseId));
          const tasks = plan.add.map((t) => ({ ...t, taskId: deps.ids() }));
          const now = deps.now().toISOString();
          const events = applyEvents(state, template, tasks, plan.skipped, now);
          const metadata = actorMetadata(actor, 'user');
          try {
            // Task streams first: the case event then holds the append's highest position, so a
            // retry that waits for it (above) is sure to see the tasks this append added.
            const r = await deps.store.appendMany([
              ...taskWrites(caseId, tasks, actor, now),
              { streamId: streams.case(caseId), events: events.map((e) => ({ ...e, metadata })), expectedVersion: history.length },
            ]);
            const slaApplied = events.some((e) => e.type === 'case.sla_policy_applied');
            return { position: r.lastPosition, added: tasks.map((t) => t.taskId), skipped: plan.skipped, slaApplied, slaSkippedReason: plan.slaSkippedReason };
          } catch (error) {
            if (!(error instanceof StreamVersionConflict) || n >= MAX_CONFLICT_RETRIES) throw error;
            await conflictBackoff(n);
          }
        }
      }),
  };
}

export type CaseTemplateCommands = ReturnType<typeof createCaseTemplateCommands>;
