/**
 * Case templates (SPEC.md "Cases": `POST /cases/<case_id>/apply-template`; the
 * `template_id` of `POST /cases` is handled in cases.routes.ts). `GET /case-templates`
 * is our addition, so a console can offer the templates of this install.
 *
 * Apply needs `manage_cases` in the case's team; an invisible case is 404 like an absent
 * one. Answer: `{added, skipped, sla_applied, sla_skipped_reason}` with `added` the new
 * tasks as the task routes show them, `skipped` their `{phase, title}`, and
 * `sla_skipped_reason` null, `case_has_sla_policy` or `template_has_no_sla`.
 */
import { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import * as v from 'valibot';
import type { CaseTemplate } from '../../domain/case-templates/template.ts';
import { caseTasks } from '../../projections/tasks/tasks.queries.ts';
import { caseRouteGuards } from './case-access.ts';
import { actorOf, templateOf } from './cases.routes.ts';
import type { AppEnv } from './context.ts';
import type { HttpDeps } from './deps.ts';
import { idParam } from '../shared/shapes.ts';
import { jsonAnswer } from './openapi.ts';
import { taskSchema, taskView } from './tasks.routes.ts';
import { requireJson, validate } from './validation.ts';

/** A case template as `GET /case-templates` lists it: its tasks grouped by phase, in template order. */
export const caseTemplateSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    name: v.string(),
    description: v.nullable(v.string()),
    phases: v.array(v.strictObject({ name: v.string(), tasks: v.array(v.strictObject({ title: v.string(), description: v.nullable(v.string()) })) })),
    sla: v.nullable(v.strictObject({ ack_minutes: v.nullable(v.number()), resolve_minutes: v.nullable(v.number()) })),
    auto_ai_triage: v.boolean(),
  }),
  v.metadata({ ref: 'CaseTemplate' }),
);

/** What applying a template did: tasks added (as the task routes show them), tasks skipped as present, and the SLA policy's fate. */
export const templateApplicationSchema = v.strictObject({
  added: v.array(taskSchema),
  skipped: v.array(v.strictObject({ phase: v.string(), title: v.string() })),
  sla_applied: v.boolean(),
  sla_skipped_reason: v.nullable(v.picklist(['case_has_sla_policy', 'template_has_no_sla'])),
});

const templateView = (t: CaseTemplate): v.InferOutput<typeof caseTemplateSchema> => ({
  id: t.id,
  name: t.name,
  description: t.description,
  phases: t.phases.map((phase) => ({
    name: phase,
    tasks: t.tasks.filter((task) => task.phase === phase).map(({ title, description }) => ({ title, description })),
  })),
  sla: t.sla,
  auto_ai_triage: t.autoAiTriage,
});

/** What the case template routes read of the service (adapters/http/deps.ts). */
export type CaseTemplateRouteDeps = Pick<HttpDeps, 'caseTemplateCommands' | 'caseTemplates' | 'db' | 'permissions' | 'waitFor'>;

export function caseTemplateRoutes(deps: CaseTemplateRouteDeps) {
  const { access, read, manage } = caseRouteGuards(deps.db, deps.permissions);

  return new Hono<AppEnv>()
    .get(
      '/case-templates',
      describeRoute({
        summary: 'Case templates of this install (our addition)',
        tags: ['cases'],
        responses: { 200: jsonAnswer(v.strictObject({ items: v.array(caseTemplateSchema) }), 'The case templates') },
      }),
      read,
      (c) => c.json({ items: deps.caseTemplates.list().map(templateView) }),
    )
    .post(
      '/cases/:id/apply-template',
      describeRoute({
        summary: 'Apply a case template: add the tasks the case lacks, and its SLA policy if the case has none',
        tags: ['cases'],
        responses: { 200: jsonAnswer(templateApplicationSchema, 'What the template added and skipped') },
      }),
      manage,
      validate('param', idParam),
      requireJson,
      validate('json', v.object({ template_id: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64)) })),
      async (c) => {
        const { id } = c.req.valid('param');
        const principal = c.get('principal');
        await access.actOn(principal, id, 'manage_cases');
        const template = templateOf(deps, c.req.valid('json').template_id);
        const r = await deps.caseTemplateCommands.apply(id, template, actorOf(principal));
        await deps.waitFor(r.position);
        const byId = new Map((await caseTasks(deps.db, id)).map((t) => [t.id, t]));
        const added = r.added.flatMap((taskId) => {
          const row = byId.get(taskId);
          return row ? [taskView(row)] : [];
        });
        return c.json({ added, skipped: r.skipped, sla_applied: r.slaApplied, sla_skipped_reason: r.slaSkippedReason } satisfies v.InferOutput<
          typeof templateApplicationSchema
        >);
      },
    );
}
