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
import { FieldReader, isMapping } from '../runbooks/field-reader.ts';
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
const MAX_MINUTES = 525_600;

export function parseCaseTemplate(yamlText: string): { ok: true; template: CaseTemplate } | { ok: false; errors: TemplateError[] } {
  const loaded = loadYaml(yamlText);
  if (!loaded.ok) return { ok: false, errors: [{ loc: [], msg: loaded.msg }] };
  if (!isMapping(loaded.value)) return { ok: false, errors: [{ loc: [], msg: 'a case template must be a YAML mapping' }] };
  const errors: TemplateError[] = [];
  const r = new FieldReader(loaded.value, [], errors);
  r.refuseUnknown(['id', 'name', 'description', 'phases', 'sla', 'auto_ai_triage']);
  const id = r.string('id', true);
  if (id !== null && !TEMPLATE_ID.test(id)) r.report(['id'], `must match ${TEMPLATE_ID.source}`);
  const name = r.text('name', true);
  const description = r.string('description', false);
  const { phases, tasks } = readPhases(r);
  const sla = readSla(r);
  const autoAiTriage = r.boolean('auto_ai_triage') ?? false;
  if (errors.length > 0 || id === null || name === null) return { ok: false, errors };
  return { ok: true, template: { id, name, description, phases, tasks, sla, autoAiTriage } };
}

function readPhases(r: FieldReader): { phases: string[]; tasks: TemplateTask[] } {
  const phases: string[] = [];
  const tasks: TemplateTask[] = [];
  const list = r.list('phases', true);
  if (list === null) return { phases, tasks };
  if (list.length === 0) r.report(['phases'], 'must list at least one phase');
  list.forEach((item, i) => {
    const p = r.child(['phases', i], item);
    if (!p) return;
    p.refuseUnknown(['name', 'tasks']);
    const phase = p.text('name', true)?.trim() ?? null;
    if (phase !== null && phases.includes(phase)) p.report(['name'], `phase '${phase}' appears twice`);
    if (phase !== null) phases.push(phase);
    const titles = new Set<string>();
    (p.list('tasks', true) ?? []).forEach((t, j) => {
      const task = p.child(['tasks', j], t);
      if (!task) return;
      task.refuseUnknown(['title', 'description']);
      const title = task.text('title', true)?.trim() ?? null;
      if (title !== null && title.length > 500) task.report(['title'], 'must be at most 500 characters');
      if (title !== null && titles.has(title)) task.report(['title'], `task '${title}' appears twice in this phase`);
      if (title !== null) titles.add(title);
      const description = task.string('description', false);
      if (phase !== null && title !== null) tasks.push({ phase, title, description });
    });
  });
  return { phases, tasks };
}

function readSla(r: FieldReader): SlaPolicy | null {
  const s = r.mapping('sla', false);
  if (!s) return null;
  s.refuseUnknown(['ack_minutes', 'resolve_minutes']);
  const sla = { ack_minutes: s.integer('ack_minutes', 1, MAX_MINUTES), resolve_minutes: s.integer('resolve_minutes', 1, MAX_MINUTES) };
  if (sla.ack_minutes === null && sla.resolve_minutes === null) s.report([], 'must set ack_minutes, resolve_minutes or both');
  return sla;
}
