/**
 * Additive application of a case template (SPEC.md "Other case moves": apply-template):
 * only tasks whose (phase, title) the case lacks are added, after the highest position
 * in template order; the SLA policy only when the case has none. Title, severity and
 * tags are never touched. Phase and title compare exactly as stored (the parser trims
 * template values; task titles are stored as the API received them).
 */
import type { CaseTemplate, SlaPolicy, TemplateTask } from './template.ts';

export type ExistingTask = { phase: string | null; title: string };
export type SlaSkippedReason = 'case_has_sla_policy' | 'template_has_no_sla';

export type TemplatePlan = {
  add: (TemplateTask & { position: number })[];
  skipped: { phase: string; title: string }[];
  sla: SlaPolicy | null;
  slaSkippedReason: SlaSkippedReason | null;
};

/** `nextPosition`: the position after the case's highest (1 for a case without tasks, as for any new task). */
export function planTemplate(template: CaseTemplate, existing: readonly ExistingTask[], caseHasSla: boolean, nextPosition: number): TemplatePlan {
  const present = new Set(existing.map((t) => key(t.phase, t.title)));
  const add: TemplatePlan['add'] = [];
  const skipped: TemplatePlan['skipped'] = [];
  for (const task of template.tasks) {
    if (present.has(key(task.phase, task.title))) skipped.push({ phase: task.phase, title: task.title });
    else add.push({ ...task, position: nextPosition + add.length });
  }
  const slaSkippedReason = template.sla === null ? 'template_has_no_sla' : caseHasSla ? 'case_has_sla_policy' : null;
  return { add, skipped, sla: slaSkippedReason === null ? template.sla : null, slaSkippedReason };
}

const key = (phase: string | null, title: string) => `${phase ?? ''}\u0000${title}`;
