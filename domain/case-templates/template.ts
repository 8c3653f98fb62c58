/**
 * Case templates (SPEC.md "Case" `template_id`, "Other case moves" apply-template):
 * phased tasks and an optional SLA policy, written as YAML configuration files
 * (docs/configuration.md "Case templates"). Parsing reports every problem with its
 * path, like runbook validation.
 *
 * Shape: `{id, name, description?, phases: [{name, tasks: [{title, description?}]}],
 * sla?: {ack_minutes?, resolve_minutes?}, auto_ai_triage?}`; minutes are positive
 * integers. `auto_ai_triage: true` (SPEC.md "Generic actions": a case policy may set it)
 * queues one advisory AI triage of each case opened with the template.
 */
import * as v from 'valibot';
import { booleanField, FieldReader, integerBetween, isMapping, stringField, textField } from '../runbooks/field-reader.ts';
import { loadYaml } from '../runbooks/parse.ts';

export type TemplateTask = { phase: string; title: string; description: string | null };
export type SlaPolicy = { ack_minutes: number | null; resolve_minutes: number | null };
export type CaseTemplate = {
  id: string;
  name: string;
  description: string | null;
  /** Phase names in template order. */
  phases: string[];
  /** Every task in template order, each with its phase. */
  tasks: TemplateTask[];
  sla: SlaPolicy | null;
  /** Whether a case opened with the template gets one advisory AI triage, out of band. */
  autoAiTriage: boolean;
};
export type TemplateError = { loc: (string | number)[]; msg: string };

const TEMPLATE_ID = /^[a-z0-9-]{3,64}$/;
/** A minute count up to a year: beyond it a target is a typo, not a policy. */
const minutes = () => v.nullish(integerBetween(1, 525_600));

const TaskFields = v.strictObject({ title: textField(), description: v.nullish(stringField()) });
const PhaseFields = v.strictObject({ name: textField(), tasks: v.array(TaskFields, 'must be a list') });
const SlaFields = v.strictObject({ ack_minutes: minutes(), resolve_minutes: minutes() });
const TemplateFields = v.strictObject({
  id: v.pipe(stringField(), v.regex(TEMPLATE_ID, `must match ${TEMPLATE_ID.source}`)),
  name: textField(),
  description: v.nullish(stringField()),
  phases: v.pipe(v.array(PhaseFields, 'must be a list'), v.minLength(1, 'must list at least one phase')),
  sla: v.nullish(SlaFields),
  auto_ai_triage: v.nullish(booleanField(), false),
});

export function parseCaseTemplate(yamlText: string): { ok: true; template: CaseTemplate } | { ok: false; errors: TemplateError[] } {
  const loaded = loadYaml(yamlText);
  if (!loaded.ok) return { ok: false, errors: [{ loc: [], msg: loaded.msg }] };
  if (!isMapping(loaded.value)) return { ok: false, errors: [{ loc: [], msg: 'a case template must be a YAML mapping' }] };
  const errors: TemplateError[] = [];
  const r = new FieldReader(loaded.value, [], errors);
  const fields = TemplateFields.entries;
  r.refuseUnknown(TemplateFields);
  const id = r.field('id', fields.id);
  const name = r.field('name', fields.name);
  const description = r.field('description', fields.description) ?? null;
  const { phases, tasks } = readPhases(r);
  const sla = readSla(r);
  const autoAiTriage = r.defaulted('auto_ai_triage', fields.auto_ai_triage);
  if (errors.length > 0 || id === null || name === null) return { ok: false, errors };
  return { ok: true, template: { id, name, description, phases, tasks, sla, autoAiTriage } };
}

function readPhases(r: FieldReader): { phases: string[]; tasks: TemplateTask[] } {
  const phases: string[] = [];
  const tasks: TemplateTask[] = [];
  const list = r.list('phases', TemplateFields.entries.phases);
  if (list === null) return { phases, tasks };
  list.forEach((item, i) => {
    const p = r.child(['phases', i], item);
    if (!p) return;
    p.refuseUnknown(PhaseFields);
    const phase = p.field('name', PhaseFields.entries.name)?.trim() ?? null;
    if (phase !== null && phases.includes(phase)) p.report(['name'], `phase '${phase}' appears twice`);
    if (phase !== null) phases.push(phase);
    const titles = new Set<string>();
    (p.list('tasks', PhaseFields.entries.tasks) ?? []).forEach((t, j) => {
      const task = p.child(['tasks', j], t);
      if (!task) return;
      task.refuseUnknown(TaskFields);
      const title = task.field('title', TaskFields.entries.title)?.trim() ?? null;
      if (title !== null && title.length > 500) task.report(['title'], 'must be at most 500 characters');
      if (title !== null && titles.has(title)) task.report(['title'], `task '${title}' appears twice in this phase`);
      if (title !== null) titles.add(title);
      const description = task.field('description', TaskFields.entries.description) ?? null;
      if (phase !== null && title !== null) tasks.push({ phase, title, description });
    });
  });
  return { phases, tasks };
}

function readSla(r: FieldReader): SlaPolicy | null {
  const s = r.mapping('sla', TemplateFields.entries.sla);
  if (!s) return null;
  s.refuseUnknown(SlaFields);
  const sla = {
    ack_minutes: s.field('ack_minutes', SlaFields.entries.ack_minutes) ?? null,
    resolve_minutes: s.field('resolve_minutes', SlaFields.entries.resolve_minutes) ?? null,
  };
  if (sla.ack_minutes === null && sla.resolve_minutes === null) s.report([], 'must set ack_minutes, resolve_minutes or both');
  return sla;
}
